"""The audit chain in the database, on SQLite and PostgreSQL: tamper detection,
concurrent appenders, concurrent broker decisions, and refusal on a broken chain."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, update

from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow
from domain import broker
from domain.audit import AuditDraft
from domain.intents import Intent, Outcome
from domain.model import SpendCap
from tests.conftest import Firm, utc_now
from worker.bootstrap import BrokenChain, verify_chains

CHAIN = 12


def _fill(store: Store, org: str, n: int = CHAIN) -> None:
    for i in range(n):
        store.audit.append(
            org,
            AuditDraft(
                event_key=f"e{i}",
                actor="tester",
                decision="allow",
                stage="test",
                rule=f"r{i}",
                payload={"i": i, "note": f"entry {i}"},
            ),
            utc_now(),
        )


def _rows(store: Store, org: str) -> list[dict[str, Any]]:
    with store.db.transaction() as s:
        rows = s.execute(
            select(AuditEntryRow).where(AuditEntryRow.org_id == org).order_by(AuditEntryRow.seq)
        ).scalars()
        return [r.model_dump() for r in rows]


def _restore(store: Store, org: str, rows: list[dict[str, Any]]) -> None:
    with store.db.transaction() as s:
        s.execute(delete(AuditEntryRow).where(AuditEntryRow.org_id == org))
        for row in rows:
            s.execute(insert(AuditEntryRow).values(**row))


def _tamper(
    store: Store, org: str, kind: str, pos: int, other: int, rows: list[dict[str, Any]]
) -> None:
    seq = pos + 1
    where = (AuditEntryRow.org_id == org, AuditEntryRow.seq == seq)
    with store.db.transaction() as s:
        if kind == "payload":
            s.execute(update(AuditEntryRow).where(*where).values(payload={"i": -1}))
        elif kind == "decision":
            s.execute(update(AuditEntryRow).where(*where).values(decision="reject"))
        elif kind == "actor":
            s.execute(update(AuditEntryRow).where(*where).values(actor="mallory"))
        elif kind == "at":
            s.execute(
                update(AuditEntryRow).where(*where).values(at="2000-01-01T00:00:00.000000+00:00")
            )
        elif kind == "delete":
            s.execute(delete(AuditEntryRow).where(*where))
        elif kind == "reorder":
            # swap the content of two positions, keeping each row's sequence number
            a, b = rows[pos], rows[other]
            s.execute(
                delete(AuditEntryRow).where(
                    AuditEntryRow.org_id == org, AuditEntryRow.seq.in_([a["seq"], b["seq"]])
                )
            )
            s.execute(
                insert(AuditEntryRow).values(
                    **{**b, "seq": a["seq"], "event_key": "x" + b["event_key"]}
                )
            )
            s.execute(
                insert(AuditEntryRow).values(
                    **{**a, "seq": b["seq"], "event_key": "y" + a["event_key"]}
                )
            )


KINDS = ["payload", "decision", "actor", "at", "delete", "reorder"]


def test_any_single_tampering_is_detected(store: Store, firm: Firm) -> None:
    _fill(store, firm.org)
    original = _rows(store, firm.org)
    assert store.audit.verify(firm.org).ok

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        kind=st.sampled_from(KINDS),
        pos=st.integers(0, CHAIN - 1),
        other=st.integers(0, CHAIN - 1),
    )
    def check(kind: str, pos: int, other: int) -> None:
        if kind == "reorder" and pos == other:
            other = (pos + 1) % CHAIN
        try:
            _tamper(store, firm.org, kind, pos, other, original)
            result = store.audit.verify(firm.org)
            assert not result.ok, (kind, pos, other)
            assert result.broken_at is not None
            with pytest.raises(BrokenChain):
                verify_chains(store)
        finally:
            _restore(store, firm.org, original)
        assert store.audit.verify(firm.org).ok

    check()


def test_concurrent_appenders_never_fork_the_chain(store: Store, firm: Firm) -> None:
    threads, per_thread = 6, 15
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(per_thread):
                store.audit.append(
                    firm.org,
                    AuditDraft(
                        event_key=f"t{t}-{i}",
                        actor=f"thread-{t}",
                        decision="allow",
                        stage="test",
                        rule="concurrent",
                        payload={"t": t, "i": i},
                    ),
                    utc_now(),
                )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert errors == []
    result = store.audit.verify(firm.org)
    assert result.ok, result
    assert result.entries == threads * per_thread
    seqs = [r["seq"] for r in _rows(store, firm.org)]
    assert seqs == list(range(1, threads * per_thread + 1))


def test_appending_the_same_event_twice_is_idempotent(store: Store, firm: Firm) -> None:
    draft = AuditDraft(event_key="once", actor="a", decision="allow", stage="s", rule="r")
    first = store.audit.append(firm.org, draft, utc_now())
    again = store.audit.append(firm.org, draft, utc_now())
    assert again == first
    assert store.audit.verify(firm.org).entries == 1


def _payment(firm: Firm, invoice: str, amount: int) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=str(uuid.uuid4()),
        principal_id=firm.agents["ledger"],
        tool="payments.pay",
        projects=("east",),
        payload={
            "payee": "Northwind",
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
        cost_cents=amount,
        justification="due",
    )


def _decide_concurrently(store: Store, intents: list[Intent]) -> list[Outcome | BaseException]:
    results: list[Any] = [None] * len(intents)

    def work(i: int) -> None:
        try:
            results[i] = store.governance.decide(intents[i], utc_now(), broker.decide)
        except BaseException as exc:  # noqa: BLE001
            results[i] = exc

    pool = [threading.Thread(target=work, args=(i,)) for i in range(len(intents))]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    return results


def test_concurrent_intents_on_one_resource_are_booked_once(store: Store, firm: Firm) -> None:
    intents = [_payment(firm, "INV-1", 10_000) for _ in range(8)]
    decisions = _decide_concurrently(store, intents)
    assert not [d for d in decisions if isinstance(d, BaseException)]
    allowed = [d for d in decisions if d.outcome is Outcome.ALLOW]
    collided = [d for d in decisions if d.rule == "collision"]
    assert len(allowed) == 1
    assert len(collided) == 7
    assert store.audit.verify(firm.org).ok


def test_concurrent_payments_never_overrun_a_confirmed_cap(store: Store, firm: Firm) -> None:
    cap = firm.svc.add_commitment(
        firm.org,
        firm.founder,
        "cap",
        SpendCap(limit_cents=200_000),
        source="letter",
        projects=("east",),
    )
    firm.svc.confirm_commitment(cap.id, firm.founder)
    intents = [_payment(firm, f"INV-{i}", 50_000) for i in range(10)]
    decisions = _decide_concurrently(store, intents)
    assert not [d for d in decisions if isinstance(d, BaseException)]
    allowed = [d for d in decisions if d.outcome is Outcome.ALLOW]
    assert sum(50_000 for _ in allowed) <= 200_000
    assert len(allowed) == 4
    assert all(
        d.outcome is Outcome.HOLD and "spend_cap" in d.rule for d in decisions if d not in allowed
    )
    assert store.audit.verify(firm.org).ok


def test_a_retried_decision_returns_the_recorded_one(store: Store, firm: Firm) -> None:
    intent = _payment(firm, "INV-9", 10_000)
    first = store.governance.decide(intent, utc_now(), broker.decide)
    again = store.governance.decide(intent, utc_now(), broker.decide)
    assert again == first
    assert store.audit.verify(firm.org).entries == 1
