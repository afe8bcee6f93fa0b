"""Hypothesis over interleavings of decisions, approvals, writes and closes, on SQLite and
PostgreSQL: collisions and spend caps hold whatever the order.

After every step: no two writes to one resource may happen at once, a confirmed cap is
never exceeded by what the broker allowed on its own, every in-flight key belongs to an
open intent, an invoice is paid twice only when a human approved the repeat, and the
chain verifies.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from adapters.store.store import Store
from adapters.store.tables import ClaimRow, IntentRow
from domain.governance.intents import Intent, Outcome
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from tests.support import APPROVAL_KEYS, payment_intent, signed, utc_now
from usecases import commitments, governance, governance_review, organization
from usecases.context import Ports
from worker.bootstrap import build_connectors

CAP = 200_000
INVOICES = ["inv-a", "inv-b", "inv-c", ""]
AMOUNTS = [10_000, 60_000, 150_000]

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("decide"), st.sampled_from(INVOICES), st.sampled_from(AMOUNTS)),
        st.tuples(  # several decided in one transaction (group commit)
            st.just("batch"),
            st.lists(
                st.tuples(st.sampled_from(INVOICES), st.sampled_from(AMOUNTS)),
                min_size=1,
                max_size=4,
            ),
        ),
        st.tuples(st.just("dispatch"), st.integers(0, 9)),
        st.tuples(st.just("approve"), st.integers(0, 9)),
        st.tuples(st.just("close"), st.integers(0, 9)),
        st.tuples(st.just("recheck"), st.integers(0, 9)),
    ),
    min_size=1,
    max_size=18,
)


def _intents(store: Store, org: str) -> list[IntentRow]:
    with store.db.read() as s:
        rows = s.execute(
            select(IntentRow).where(IntentRow.org_id == org).order_by(IntentRow.created_at)
        ).scalars()
        return list(rows)


def _check(store: Store, org: str, cap_from: Any) -> None:
    rows = _intents(store, org)
    # 1. one write at a time per resource: at most one open allowed intent per key, and
    #    none beside an open allowed intent that names no resource
    open_writes = [r for r in rows if r.status in ("allow", "approved") and not r.dispatched]
    keys = [r.op_key or "payments.pay:*" for r in open_writes]
    assert len(keys) == len(set(keys)), keys
    if "payments.pay:*" in keys:
        assert len(keys) == 1, keys
    # 2. what the broker allowed on its own never exceeds the confirmed cap
    allowed = sum(r.spend_cents for r in rows if r.status == "allow" and r.created_at >= cap_from)
    assert allowed <= CAP, allowed
    # 3. every in-flight key belongs to an open intent
    with store.db.read() as s:
        claims = list(s.execute(select(ClaimRow).where(ClaimRow.org_id == org)).scalars())
    by_id = {r.id: r for r in rows}
    for claim in claims:
        holder = by_id[claim.intent_id]
        assert holder.status in ("allow", "hold", "approved") and not holder.dispatched, claim
    # 4. an invoice is paid twice only when a human approved the repeat
    paid: dict[str, list[IntentRow]] = defaultdict(list)
    for r in rows:
        if r.dispatched and r.op_key is not None:
            paid[r.op_key].append(r)
    for key, writes in paid.items():
        assert all(w.status == "approved" for w in writes[1:]), (key, [w.status for w in writes])
    assert store.audit.verify(org).ok


def payment(org: str, agent: str, invoice: str, amount: int) -> Intent:
    return payment_intent(org, agent, amount, invoice)


def _firm(services: Ports) -> tuple[str, str, str]:
    done = organization.onboard(services, "Prop", f"f{uuid.uuid4().hex[:8]}@prop.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    organization.add_project(services, org, founder, "east", "East")
    organization.staff(
        services, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    cap = commitments.add_commitment(
        services,
        org,
        founder,
        commitments.AddCommitment("cap", SpendCap(limit_cents=CAP), "l", projects=("east",)),
    )
    commitments.confirm(services, cap.id, founder)
    return org, founder, ledger


def test_a_batch_decides_as_the_same_intents_one_by_one(services: Ports, store: Store) -> None:
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        st.lists(
            st.tuples(st.sampled_from(INVOICES), st.sampled_from(AMOUNTS)), min_size=1, max_size=8
        )
    )
    def check(steps: list[tuple[str, int]]) -> None:
        one_by_one, batched = _firm(services), _firm(services)
        alone = [payment(one_by_one[0], one_by_one[2], i, a) for i, a in steps]
        together = [payment(batched[0], batched[2], i, a) for i, a in steps]
        singles = [governance.decide(store.governance, i, utc_now()) for i in alone]
        grouped = governance.decide_many(store.governance, together, utc_now())
        assert [(d.outcome, d.rule) for d in grouped] == [(d.outcome, d.rule) for d in singles]
        assert [d.intent_id for d in grouped] == [i.id for i in together]
        # a retried intent in the same batch gets its recorded decision back
        again = governance.decide_many(store.governance, [together[0], together[0]], utc_now())
        assert again == [grouped[0], grouped[0]]
        assert store.audit.verify(batched[0]).ok

    check()


def test_no_interleaving_double_books_a_resource_or_overruns_a_cap(
    services: Ports, store: Store
) -> None:
    connectors = build_connectors(store, utc_now)

    @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
    @given(steps=STEPS)
    def check(steps: list[tuple[Any, ...]]) -> None:
        done = organization.onboard(services, "Prop", f"f{uuid.uuid4().hex[:8]}@prop.example")
        org, founder = done.org.id, done.founder.id
        ledger = next(a.id for a in done.agents if a.handle == "ledger")
        organization.add_project(services, org, founder, "east", "East")
        organization.staff(
            services, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
        )
        cap = commitments.add_commitment(
            services,
            org,
            founder,
            commitments.AddCommitment(
                "cap", SpendCap(limit_cents=CAP), "letter", projects=("east",)
            ),
        )
        commitments.confirm(services, cap.id, founder)
        cap_from = utc_now()
        intents: list[Intent] = []
        for step in steps:
            rows = {r.id: r for r in _intents(store, org)}

            def pick(k: int, *statuses: str, rows: dict[str, IntentRow] = rows) -> Intent | None:
                found = [
                    i
                    for i in intents
                    if rows[i.id].status in statuses and not rows[i.id].dispatched
                ]
                return found[k % len(found)] if found else None

            if step[0] == "decide":
                intent = payment(org, ledger, step[1], step[2])
                governance.decide(store.governance, intent, utc_now())
                intents.append(intent)
            elif step[0] == "batch":
                batch = [payment(org, ledger, invoice, amount) for invoice, amount in step[1]]
                governance.decide_many(store.governance, batch, utc_now())
                intents.extend(batch)
            elif step[0] == "dispatch" and (target := pick(step[1], "allow", "approved")):
                with store.governance.unit(org, utc_now()) as unit:
                    latest = unit.latest(target.id)
                assert latest is not None
                governance.dispatch(store.governance, connectors, org, latest, utc_now())
            elif step[0] == "approve" and (target := pick(step[1], "hold")):
                request = signed(target, founder, now=utc_now(), store=store.governance)
                governance_review.review_hold(
                    store.governance,
                    org,
                    target.run_id,
                    request,
                    len(steps),
                    utc_now(),
                    keys=APPROVAL_KEYS,
                )
            elif step[0] == "close" and (target := pick(step[1], "allow", "approved", "hold")):
                governance.close(store.governance, org, target.id, "run_failed", "r", utc_now())
            elif step[0] == "recheck" and (target := pick(step[1], "hold")):
                decision = governance_review.recheck(store.governance, org, target.id, utc_now())
                assert decision.outcome in (Outcome.HOLD, Outcome.ALLOW, Outcome.REJECT)
            _check(store, org, cap_from)

    check()
