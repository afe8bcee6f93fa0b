"""Audit append and broker decision cost, against an ORM-append baseline in the same run.

The append path uses a plain SQL insert inside the caller's transaction (DESIGN: an
ORM round trip measured ≈4.8× slower). This prints per-operation medians over several
rounds and each case's ratio to the baseline. Set ``VERLETICA_TEST_POSTGRES_URL`` to
include PostgreSQL.
"""

from __future__ import annotations

import os
import secrets
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import psycopg
from rich.console import Console
from rich.table import Table
from sqlalchemy import select

from adapters.store.audit_log import append
from adapters.store.db import libpq_url, migrate, normalise_url
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, AuditHeadRow
from domain.audit import AuditDraft, ChainHead, ChainKey, ChainKeys, link
from domain.intents import Intent
from domain.model import StaffRole
from usecases import governance, organization
from worker.ports import build_ports
from worker.settings import Settings

ROUNDS, PER_ROUND = 5, 200


def now() -> datetime:
    return datetime.now(UTC)


def timed(fn: Callable[[int], None]) -> float:
    """Median seconds per operation over ROUNDS rounds of PER_ROUND operations."""
    samples = []
    for r in range(ROUNDS):
        start = time.perf_counter()
        for i in range(PER_ROUND):
            fn(r * PER_ROUND + i)
        samples.append((time.perf_counter() - start) / PER_ROUND)
    return statistics.median(samples)


def bench(url: str) -> list[tuple[str, float]]:
    keys = ChainKeys(current=ChainKey(secrets.token_bytes(32)))
    store = Store.open(url, keys, migrate_schema=False)
    svc = build_ports(store, None, Settings(database_url=url), now)
    done = organization.onboard(svc, "Bench", "b@bench.example")
    org, founder = done.org.id, done.founder.id
    agent = next(a.id for a in done.agents if a.handle == "orion")
    organization.add_project(svc, org, founder, "east", "East")
    organization.staff(svc, org, founder, agent, "east", StaffRole.MEMBER)
    tag = uuid.uuid4().hex[:6]

    def draft(i: int, kind: str) -> AuditDraft:
        return AuditDraft(
            event_key=f"{kind}-{tag}-{i}",
            actor="bench",
            decision="allow",
            stage="bench",
            rule="bench",
            payload={"i": i},
        )

    def orm_append(i: int) -> None:
        with store.db.transaction() as s:
            head_row = s.get(AuditHeadRow, org, with_for_update=True)
            assert head_row is not None
            key = draft(i, "orm").event_key  # the same idempotency lookup as the real path
            found = s.execute(
                select(AuditEntryRow).where(
                    AuditEntryRow.org_id == org, AuditEntryRow.event_key == key
                )
            ).scalar_one_or_none()
            assert found is None
            entry, head = link(
                org,
                ChainHead(seq=head_row.seq, entry_hash=head_row.entry_hash),
                draft(i, "orm"),
                now().isoformat(),
                keys,
            )
            s.add(AuditEntryRow(**entry.model_dump()))
            head_row.seq, head_row.entry_hash = entry.seq, entry.entry_hash
            head_row.signature = head.signature
            s.add(head_row)
            s.flush()
            s.refresh(head_row)

    def sql_append(i: int) -> None:
        with store.db.transaction() as s:
            append(s, org, draft(i, "sql"), now(), keys)

    def decide(i: int) -> None:
        intent = Intent(
            id=f"{tag}-{i}",
            org_id=org,
            run_id="bench",
            principal_id=agent,
            tool="email.send",
            projects=("east",),
            cost_cents=0,
            justification="b",
            payload={"to": f"c{i}@x.example", "subject": "s", "body": "b"},
        )
        governance.decide(store.governance, intent, now())

    results = [
        ("audit append, ORM round trip, same lookups (baseline)", timed(orm_append)),
        ("audit append, plain SQL (used)", timed(sql_append)),
        ("broker decision: snapshot + stages + audit", timed(decide)),
    ]
    assert store.audit.verify(org).ok
    store.close()
    return results


def main() -> None:
    console = Console()
    targets = {}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = f"sqlite:///{tmp}/bench.db"
        migrate(sqlite)
        targets["SQLite"] = sqlite
        pg = os.environ.get("VERLETICA_TEST_POSTGRES_URL")
        name = f"vt_bench_{uuid.uuid4().hex[:8]}"
        admin = libpq_url(pg) if pg else None
        if admin:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            targets["PostgreSQL"] = normalise_url(pg or "").rsplit("/", 1)[0] + f"/{name}"
            migrate(targets["PostgreSQL"])
        try:
            table = Table(title=f"median per operation, {ROUNDS} rounds × {PER_ROUND}")
            for col in ("database", "case", "ms/op", "ops/s", "× baseline"):
                table.add_column(col)
            for db, url in targets.items():
                rows = bench(url)
                base = rows[0][1]
                for case, secs in rows:
                    table.add_row(
                        db, case, f"{secs * 1e3:.3f}", f"{1 / secs:,.0f}", f"{secs / base:.2f}"
                    )
            console.print(table)
        finally:
            if admin:
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
