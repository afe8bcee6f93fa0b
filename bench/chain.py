"""Verifying an organization's audit chain against hashing its entries and nothing else.

The chain holds decisions of emails and payments (each with its intent's body) and the
connector writes that follow, as governance appends them. The figure is
:meth:`AuditLog.verify` (read, re-hash, check links and signatures, cross-check the
decision rows) in entries per second; the baseline is SHA-256 over the same entries'
canonical bytes, already in memory, chained: the floor no verifier can go below.
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from adapters.connectors.email import EmailOutbox
from adapters.connectors.payments import PaymentsLedger
from adapters.store.audit import AuditLog, ChainWriter, lock
from adapters.store.governance import SqlGovernanceUnit, record_dispatch
from adapters.store.organization_cache import OrgCache
from adapters.store.store import Store
from bench.stack import bench_keys
from domain.audit.bundle import export_bytes, verify_export, verify_inclusion_proof
from domain.audit.chain import entry_hash
from domain.canonical import canonical_json
from domain.governance import records
from domain.governance.intents import Decision, DispatchResult, Intent, Outcome, Stage
from domain.governance.ports import ConnectorWrite
from domain.governance.tokens import token_for
from domain.governance.values import Verdict, effects_of
from domain.tools import REGISTRY
from usecases import organization
from worker.ports import build_ports
from worker.settings import Settings

CHUNK = 5_000


@dataclass(frozen=True)
class ChainFigures:
    """Entries per second: verifying, and hashing alone."""

    entries: int
    verify_per_s: float
    """A whole verification by a log that has verified nothing yet (every entry hashed)."""
    listed_per_s: float
    """Verified and listed, as the audit page's first view in a process does."""
    again_per_s: float
    """The same chain verified and listed again by that log, as the page's next view
    (rows unchanged: the first ``adapters.store.audit.VERIFIED_KEPT`` entries it kept are
    not hashed again, the rest are)."""
    sha256_per_s: float
    offline_per_s: float
    """An export checked offline with the public key alone (``verify_bundle``): every entry
    re-hashed from its content, linked, and the tree held to every signed checkpoint."""
    offline_sha256_per_s: float
    """SHA-256 over the same entries' canonical bytes, chained: the same floor."""
    proof_check_us: float
    """Checking one entry's inclusion proof against its signed checkpoint (µs, median)."""
    proof_sha256_us: float
    """SHA-256 of that entry's canonical bytes alone (µs, median of the same count)."""


def _intent(org: str, agent: str, i: int) -> Intent:
    """Emails and payments, alternately."""
    email = i % 2 == 1
    return Intent(
        id=f"i-{i}",
        org_id=org,
        run_id=f"r-{i // 4}",
        principal_id=agent,
        tool="email.send" if email else "payments.pay",
        projects=("east",),
        cost_cents=0 if email else 12_500,
        justification="follow up with the client" if email else "supplier invoice due",
        payload=(
            {"to": f"c{i}@client.example", "subject": "Status", "body": "All on track."}
            if email
            else {
                "payee": "Northwind",
                "invoice": f"inv-{i}",
                "amount_cents": 12_500,
                "currency": "USD",
                "memo": "October",
            }
        ),
    )


def fill(store: Store, org: str, agent: str, n: int) -> None:
    """Append about ``n`` entries as governance and the connectors do: per intent, its
    decision (intent and decision rows) and its write (connector row, dispatch entry),
    many per transaction (how they are grouped does not change what verifying costs)."""
    now = datetime.now(UTC)
    connectors = {  # only their rows are used here
        "payments.pay": PaymentsLedger(store.db, lambda: now, store.keys),
        "email.send": EmailOutbox(store.db, lambda: now, store.keys),
    }
    i = 0
    while i < n:
        with store.db.transaction() as s:
            locked = lock(s, org)
            chain = ChainWriter(s, org, store.keys, locked)
            unit = SqlGovernanceUnit(s, org, now, locked, chain, OrgCache(), store.memory_stores)
            decided: list[tuple[Intent, Decision]] = []
            for _ in range(min(CHUNK, n - i) // 2):
                intent = _intent(org, agent, i)
                verdict = Verdict(
                    Decision(
                        intent_id=intent.id,
                        outcome=Outcome.ALLOW,
                        stage=Stage.AUDIT,
                        rule="all_stages_passed",
                        reason="every stage passed",
                        reach=("east",),
                        intent_digest=intent.digest,
                        decided_at=now,
                    )
                )
                unit.latest(intent.id)
                decision = unit.record(
                    intent,
                    verdict.decision,
                    effects_of(verdict.decision),
                    records.decision_draft(intent, verdict.decision, f"decide:{intent.id}", "b"),
                )
                decided.append((intent, decision))
                i += 2
            unit.flush()  # the decisions' rows first, as their own transaction would
            for intent, decision in decided:
                connector = connectors[intent.tool]
                write = ConnectorWrite(
                    intent=intent, tool=REGISTRY[intent.tool], token=token_for(intent, decision)
                )
                s.add(connector.build_row(write, now))
                system, action = intent.tool.split(".")
                result = DispatchResult(
                    intent_id=intent.id,
                    system=system,
                    action=action,
                    external_id=intent.id,
                    duplicate=False,
                )
                record_dispatch(s, chain, result, now)
            chain.flush()


def measure(url: str, n: int = 100_000) -> ChainFigures:
    """Verify a chain of about ``n`` entries on ``url``, and hash the same entries."""
    store = Store.open(url, bench_keys(), migrate_schema=False)
    try:
        ports = build_ports(store, None, Settings(database_url=url))
        done = organization.onboard(ports, "Chain", f"c{uuid.uuid4().hex[:6]}@bench.example")
        org = done.org.id
        agent = next(a.id for a in done.agents if a.handle == "ledger")
        organization.add_project(ports, org, done.founder.id, "east", "East")
        fill(store, org, agent, n)
        store.audit.verify(org)  # warm the database's cache the same way for both
        fresh = AuditLog(store.db, store.keys, store.memory_stores)
        start = time.perf_counter()
        verified = fresh.verify(org)
        verify_s = time.perf_counter() - start
        assert verified.ok, verified
        listing = AuditLog(store.db, store.keys, store.memory_stores)
        start = time.perf_counter()
        assert listing.verified_entries(org)[0].ok  # as the audit page's first view
        listed_s = time.perf_counter() - start
        start = time.perf_counter()
        assert listing.verified_entries(org)[0].ok  # and its next, rows unchanged
        again_s = time.perf_counter() - start
        bodies = [e.body() for e in store.audit.entries(org)]
        canonical = [(b["prev_hash"].encode("ascii"), canonical_json(b)) for b in bodies]
        sha256 = hashlib.sha256
        start = time.perf_counter()
        for prev, body in canonical:
            sha256(prev + body).hexdigest()
        hash_s = time.perf_counter() - start
        assert entry_hash(bodies[-1]["prev_hash"], bodies[-1]) == verified.head_hash
        offline_s, offline_hash_s, n_offline = _offline(store, org)
        proof_us, proof_hash_us = _proof_check(store, org)
        return ChainFigures(
            offline_per_s=n_offline / offline_s,
            offline_sha256_per_s=n_offline / offline_hash_s,
            proof_check_us=proof_us,
            proof_sha256_us=proof_hash_us,
            entries=verified.entries,
            verify_per_s=verified.entries / verify_s,
            listed_per_s=verified.entries / listed_s,
            again_per_s=verified.entries / again_s,
            sha256_per_s=len(canonical) / hash_s,
        )
    finally:
        store.close()


def _offline(store: Store, org: str) -> tuple[float, float, int]:
    """Seconds to check the org's export offline (read from its file, as an auditor
    would), and to hash the same entries' canonical bytes alone."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.jsonl"
        bundle = store.audit.export(org, datetime.now(UTC))
        path.write_bytes(export_bytes(bundle))
        keys = store.keys.log_keys()
        start = time.perf_counter()
        found = verify_export(path.read_bytes(), keys)
        offline_s = time.perf_counter() - start
    assert found.ok, found
    canonical = [(e.prev_hash.encode("ascii"), canonical_json(e.body())) for e in bundle.entries]
    sha256 = hashlib.sha256
    start = time.perf_counter()
    for prev, body in canonical:
        sha256(prev + body).hexdigest()
    return offline_s, time.perf_counter() - start, len(bundle.entries)


def _proof_check(store: Store, org: str, proofs: int = 200) -> tuple[float, float]:
    """Median µs to check one inclusion proof with the public key, and to hash that
    entry's canonical bytes once."""
    size = store.audit.head(org).seq  # type: ignore[union-attr]
    keys = store.keys.log_keys()
    checks, hashes = [], []
    for i in range(proofs):
        proof = store.audit.inclusion(org, 1 + (i * 7919) % size, datetime.now(UTC))
        start = time.perf_counter()
        assert verify_inclusion_proof(proof, keys) is None
        checks.append(time.perf_counter() - start)
        body = (proof.entry.prev_hash.encode("ascii"), canonical_json(proof.entry.body()))
        start = time.perf_counter()
        hashlib.sha256(body[0] + body[1]).hexdigest()
        hashes.append(time.perf_counter() - start)
    return statistics.median(checks) * 1e6, statistics.median(hashes) * 1e6
