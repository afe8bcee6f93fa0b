"""An approval re-runs the broker: it cannot overrun a cap or a budget, or release
the intent of an agent that was unstaffed meanwhile (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid

from adapters.store.store import Store
from domain import broker
from domain.intents import ApprovalRequest, ApprovalVerdict, Intent, Outcome
from domain.model import SpendCap
from tests.conftest import Firm, utc_now

RUN = "run-1"


def _pay(firm: Firm, amount: int, run_id: str = RUN) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=run_id,
        principal_id=firm.agents["ledger"],
        tool="payments.pay",
        projects=("east",),
        cost_cents=amount,
        justification="due",
        payload={
            "payee": "N",
            "invoice": f"INV-{uuid.uuid4().hex[:6]}",
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
    )


def _approve(
    store: Store,
    firm: Firm,
    intent: Intent,
    attempt: int,
    run_id: str = RUN,
    who: str | None = None,
):  # type: ignore[no-untyped-def]
    request = ApprovalRequest(
        intent_id=intent.id,
        approver_id=who or firm.founder,
        verdict=ApprovalVerdict.APPROVE,
        intent_digest=intent.digest,
    )
    return store.governance.review(
        firm.org, run_id, request, attempt, utc_now(), broker.review, broker.decide
    )


def test_two_threshold_holds_cannot_together_overrun_a_cap(store: Store, firm: Firm) -> None:
    cap = firm.svc.add_commitment(
        firm.org,
        firm.founder,
        "cap",
        SpendCap(limit_cents=500_000),
        source="letter",
        projects=("east",),
    )
    firm.svc.confirm_commitment(cap.id, firm.founder)
    first, second = _pay(firm, 400_000, "run-a"), _pay(firm, 400_000, "run-b")
    for intent in (first, second):
        held = store.governance.decide(intent, utc_now(), broker.decide)
        assert held.outcome is Outcome.HOLD and held.rule == "money_over_threshold"

    ok, decision = _approve(store, firm, first, 1, "run-a")
    assert ok.accepted and decision is not None and decision.outcome is Outcome.APPROVED

    refused, rehold = _approve(store, firm, second, 1, "run-b")
    assert not refused.accepted and refused.rule == "hold_reasons_changed"
    assert rehold is not None and rehold.outcome is Outcome.HOLD and "spend_cap" in rehold.rule
    # the founder, now shown the cap, may knowingly approve the override
    again, decision = _approve(store, firm, second, 2, "run-b")
    assert again.accepted and decision is not None and decision.outcome is Outcome.APPROVED
    assert store.audit.verify(firm.org).ok


def test_an_approval_cannot_exceed_the_run_budget(store: Store, firm: Firm) -> None:
    # ledger's effective budget is 1,500,000 cents per run
    first, second = _pay(firm, 1_000_000), _pay(firm, 1_000_000)
    for intent in (first, second):
        assert store.governance.decide(intent, utc_now(), broker.decide).outcome is Outcome.HOLD
    assert _approve(store, firm, first, 1)[0].accepted
    refused, _ = _approve(store, firm, second, 2)
    assert not refused.accepted and refused.rule == "budget_exceeded"


def test_an_agent_unstaffed_while_held_is_not_released(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 200_000)
    assert store.governance.decide(intent, utc_now(), broker.decide).outcome is Outcome.HOLD
    (row,) = [s for s in store.directory.staffing(firm.org, firm.agents["ledger"])]
    firm.svc.unstaff(firm.org, firm.founder, row.id)
    refused, held = _approve(store, firm, intent, 1)
    assert not refused.accepted and refused.rule == "not_staffed"
    assert held is not None and held.outcome is Outcome.HOLD


def test_a_review_names_its_run(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 200_000)
    store.governance.decide(intent, utc_now(), broker.decide)
    refused, _ = _approve(store, firm, intent, 1, run_id="another-run")
    assert not refused.accepted and refused.rule == "wrong_run"


def test_a_retried_refusal_is_answered_as_recorded(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 200_000)
    store.governance.decide(intent, utc_now(), broker.decide)
    first, _ = _approve(store, firm, intent, 1, who=firm.associate)
    retried, latest = _approve(store, firm, intent, 1, who=firm.associate)
    assert not first.accepted and not retried.accepted
    assert retried.rule == first.rule == "no_approval_authority"
    assert latest is not None and latest.outcome is Outcome.HOLD
    assert store.audit.verify(firm.org).entries == 2


def test_a_closed_run_releases_its_keys(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 50_000)
    assert store.governance.decide(intent, utc_now(), broker.decide).outcome is Outcome.ALLOW
    closed = store.governance.expire(firm.org, intent.id, utc_now(), "run_failed", "worker gave up")
    assert closed.outcome is Outcome.EXPIRED and closed.rule == "run_failed"
    same_invoice = intent.model_copy(update={"id": str(uuid.uuid4())})
    assert store.governance.decide(same_invoice, utc_now(), broker.decide).outcome is Outcome.ALLOW
