"""The broker's activities in Temporal's ActivityEnvironment, on SQLite and PostgreSQL:
enforce and observe modes, a poisoned broker, a broken foundation, and a database
that fails in the middle of a decision."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import update
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.governance import BrokerActivities
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow
from domain.errors import StoreFailure
from domain.governance.intents import Decision, Intent, Outcome
from domain.governance.ports import GovernanceStore, GovernanceUnit
from domain.governance.values import BrokerMode
from domain.runs.failures import ErrorType
from domain.runs.run import BrokerRequest, DispatchRequest, ReviewRequest
from tests.support import APPROVAL_KEYS, Firm, payment_intent, signed, utc_now
from usecases import governance
from worker.bootstrap import build_connectors

ENV = ActivityEnvironment()


def _pay(firm: Firm, amount: int, invoice: str | None = None) -> Intent:
    return payment_intent(firm.org, firm.agents["ledger"], amount, invoice)


def _email_from_vega(firm: Firm) -> Intent:
    """Vega is staffed on west, not east: the broker refuses this."""
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id="run-v",
        principal_id=firm.agents["vega"],
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="j",
        payload={"to": "cfo@atlas.example", "subject": "s", "body": "b"},
    )


def _activities(store: Store, mode: BrokerMode = BrokerMode.ENFORCE) -> BrokerActivities:
    return BrokerActivities(
        store.governance,
        build_connectors(store, utc_now),
        utc_now,
        mode,
        approvals=APPROVAL_KEYS,
    )


async def test_enforce_mode_stops_what_the_broker_refuses(store: Store, firm: Firm) -> None:
    acts = _activities(store)
    decision = await ENV.run(acts.decide, BrokerRequest(intent=_email_from_vega(firm)))
    assert (decision.outcome, decision.rule, decision.mode) == (
        Outcome.REJECT,
        "not_staffed",
        BrokerMode.ENFORCE,
    )


async def test_observe_mode_records_what_enforcement_would_do_and_lets_it_through(
    store: Store, firm: Firm
) -> None:
    acts = _activities(store, BrokerMode.OBSERVE)
    decision = await ENV.run(acts.decide, BrokerRequest(intent=_email_from_vega(firm)))
    assert decision.outcome is Outcome.ALLOW and decision.mode is BrokerMode.OBSERVE
    assert decision.enforced is Outcome.REJECT and "not_staffed" in decision.rule
    entry = store.audit.entries(firm.org)[-1]
    assert entry.payload["mode"] == "observe" and entry.payload["enforced"] == "reject"
    big = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 500_000)))
    assert (big.outcome, big.enforced) == (Outcome.ALLOW, Outcome.HOLD)
    fine = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 10)))
    assert (fine.outcome, fine.enforced, fine.mode) == (Outcome.ALLOW, None, BrokerMode.OBSERVE)
    written = await ENV.run(
        acts.dispatch, DispatchRequest(org_id=firm.org, intent_id=big.intent_id, decision=big)
    )
    assert written.intent_id == big.intent_id  # observed, not blocked
    assert store.audit.verify(firm.org).ok


async def test_a_poisoned_broker_refuses_everything_on_the_record(store: Store, firm: Firm) -> None:
    acts = _activities(store)
    allowed = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 10)))
    held_intent = _pay(firm, 500_000)
    held = await ENV.run(acts.decide, BrokerRequest(intent=held_intent))
    assert (allowed.outcome, held.outcome) == (Outcome.ALLOW, Outcome.HOLD)
    assert governance.poison(store.governance, firm.org, "test: foundation broken", utc_now())

    refused = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 10)))
    assert (refused.outcome, refused.rule) == (Outcome.REJECT, "broker_poisoned")
    request = signed(held_intent, firm.founder, now=utc_now(), hold=held)
    review = await ENV.run(
        acts.review,
        ReviewRequest(org_id=firm.org, run_id=held_intent.run_id, request=request, attempt=1),
    )
    assert not review.review.accepted and review.review.rule == "broker_poisoned"
    with pytest.raises(ApplicationError) as raised:
        await ENV.run(
            acts.dispatch,
            DispatchRequest(org_id=firm.org, intent_id=allowed.intent_id, decision=allowed),
        )
    assert raised.value.type == ErrorType.BROKER_POISONED and raised.value.non_retryable
    entries = store.audit.entries(firm.org)
    refusal = [e for e in entries if e.decision == "dispatch_refused"]
    assert refusal and refusal[0].rule == "broker_poisoned"
    assert store.audit.verify(firm.org).ok


async def test_a_broken_foundation_at_dispatch_poisons_the_organization(
    store: Store, firm: Firm
) -> None:
    acts = _activities(store)
    allowed = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 10)))
    with store.db.transaction() as s:  # the allowing entry is altered in the database
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == allowed.audit_seq)
            .values(rule="forged")
        )
    with pytest.raises(ApplicationError) as raised:
        await ENV.run(
            acts.dispatch,
            DispatchRequest(org_id=firm.org, intent_id=allowed.intent_id, decision=allowed),
        )
    assert raised.value.type == ErrorType.FOUNDATION_BROKEN and raised.value.non_retryable
    with store.governance.unit(firm.org, utc_now()) as unit:
        assert "does not match" in (unit.poisoned() or "")
    decisions = [e.decision for e in store.audit.entries(firm.org)[-2:]]
    assert decisions == ["dispatch_refused", "broker_poisoned"]
    # every later decision, in any worker, is refused
    refused = await ENV.run(acts.decide, BrokerRequest(intent=_pay(firm, 10)))
    assert refused.rule == "broker_poisoned"


class FailingOnce:
    """A governance store whose database fails once, at ``where`` (snapshot or record)."""

    def __init__(self, inner: GovernanceStore, where: str) -> None:
        self.inner, self.where, self.failed = inner, where, False

    @contextmanager
    def _unit(self, org_id: str, now: datetime) -> Iterator[GovernanceUnit]:
        with self.inner.unit(org_id, now) as unit:
            yield _Failing(unit, self)

    def unit(self, org_id: str, now: datetime) -> AbstractContextManager[GovernanceUnit]:
        return self._unit(org_id, now)

    def token_for(self, org_id: str, decision: Decision) -> Any:
        return self.inner.token_for(org_id, decision)


class _Failing:
    def __init__(self, unit: GovernanceUnit, plan: FailingOnce) -> None:
        self._unit, self._plan = unit, plan

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._unit, name)
        if name == self._plan.where and not self._plan.failed:

            def fail(*_: object, **__: object) -> None:
                self._plan.failed = True
                raise StoreFailure(f"connection lost during {name}")

            return fail
        return attr


@pytest.mark.parametrize("where", ["snapshot", "record", "latest"])
def test_a_database_failure_while_deciding_is_a_recorded_rejection(
    store: Store, firm: Firm, where: str
) -> None:
    flaky = FailingOnce(store.governance, where)
    intent = _pay(firm, 10)
    decision = governance.decide(flaky, intent, utc_now())  # type: ignore[arg-type]
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_error")
    assert "connection lost" in decision.reason
    assert governance.decide(store.governance, intent, utc_now()) == decision  # recorded once
    assert store.audit.verify(firm.org).ok
