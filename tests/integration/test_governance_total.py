"""The broker is total outside its stages too (issue 19.2): whatever fails between
receiving an intent and recording its decision (a load step of the snapshot, a pluggable
memory backend's ``retrieve``, the recording itself) becomes a recorded rejection
(``broker_error``), on SQLite and PostgreSQL; a review or re-check that fails is refused
or rejected on the record in the same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import pytest

from adapters.store.governance import SqlGovernance
from adapters.store.store import Store
from domain.errors import NotFound, StoreFailure, UnknownOrganization
from domain.governance.intents import Intent, Outcome
from domain.memory.adapter import MemoryAdapter
from tests.support import APPROVAL_KEYS, TEST_KEYS, Firm, payment_intent, signed, utc_now
from usecases import governance, governance_review


class Injected(RuntimeError):
    """The fault a test injects."""


class FaultyUnit:
    """A real governance unit whose method ``where`` raises when called."""

    def __init__(self, real: Any, where: str, error: Exception | None = None) -> None:
        self._real, self._where, self._error = real, where, error

    def __getattr__(self, name: str) -> Any:
        if name == self._where:

            def fail(*args: Any, **kwargs: Any) -> Any:
                raise self._error or Injected(f"injected at {name}")

            return fail
        return getattr(self._real, name)


class FaultyStore:
    """The real governance store; its first ``faults`` units fail at ``where``."""

    def __init__(
        self, real: Any, where: str, faults: int = 1, error: Exception | None = None
    ) -> None:
        self._real, self._where, self._faults, self._error = real, where, faults, error

    @contextmanager
    def unit(self, org_id: str, now: datetime) -> Iterator[Any]:
        with self._real.unit(org_id, now) as unit:
            if self._faults > 0:
                self._faults -= 1
                yield FaultyUnit(unit, self._where, self._error)
            else:
                yield unit

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class FailingMemory:
    """A memory backend whose ``retrieve`` raises (a third party's backend with a bug)."""

    def __init__(self, real: MemoryAdapter, error: Exception | None = None) -> None:
        self._real = real
        self._error = error or Injected("the backend's retrieve failed")

    def joined(self, unit: object) -> FailingMemory:
        return FailingMemory(self._real.joined(unit), self._error)

    def retrieve(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


LOAD_STEPS = ["latest", "poisoned", "snapshot", "record"]
"""Each step of a first decision that reads or writes through the unit."""


def _pay(firm: Firm, amount: int = 10_000, **extra: Any) -> Intent:
    intent = payment_intent(firm.org, firm.agents["ledger"], amount)
    return intent.model_copy(update=extra) if extra else intent


def _rejected_on_the_record(store: Store, firm: Firm, intent: Intent, where: str) -> None:
    with store.governance.unit(firm.org, utc_now()) as unit:
        latest = unit.latest(intent.id)
    assert latest is not None and (latest.outcome, latest.rule) == (Outcome.REJECT, "broker_error")
    assert where in latest.reason
    (entry,) = [e for e in store.audit.entries(firm.org) if e.intent_id == intent.id]
    assert (entry.decision, entry.rule) == ("reject", "broker_error")
    assert store.audit.verify(firm.org).ok


@pytest.mark.parametrize("where", LOAD_STEPS)
def test_a_fault_at_any_load_step_is_a_recorded_rejection(
    store: Store, firm: Firm, where: str
) -> None:
    intent = _pay(firm)
    faulty = FaultyStore(store.governance, where)
    decision = governance.decide(faulty, intent, utc_now())  # type: ignore[arg-type]
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_error")
    assert f"Injected: injected at {where}" in decision.reason
    _rejected_on_the_record(store, firm, intent, where)
    # asked again (a retry), it answers as recorded and appends nothing
    entries = store.audit.verify(firm.org).entries
    assert governance.decide(store.governance, intent, utc_now()) == decision
    assert store.audit.verify(firm.org).entries == entries


@pytest.mark.parametrize("where", LOAD_STEPS)
def test_a_fault_in_a_batch_is_recorded_as_each_intents_own(
    store: Store, firm: Firm, where: str
) -> None:
    """The batch is decided again one by one: a fault that persists into the first one's
    own unit is recorded as the first's, the others are decided as usual."""
    intents = [_pay(firm) for _ in range(3)]
    faulty = FaultyStore(store.governance, where, faults=2)
    decisions = governance.decide_many(faulty, intents, utc_now())  # type: ignore[arg-type]
    assert [d.outcome for d in decisions] == [Outcome.REJECT, Outcome.ALLOW, Outcome.ALLOW]
    assert decisions[0].rule == "broker_error"
    assert store.audit.verify(firm.org).ok


@pytest.mark.parametrize(
    "error",
    [Injected("the backend's retrieve failed"), NotFound("the backend's retrieve failed")],
    ids=["a bug", "its own NotFound"],
)
def test_a_memory_backend_that_fails_while_the_snapshot_loads_is_a_recorded_rejection(
    store: Store, firm: Firm, error: Exception
) -> None:
    """The issue's example: an intent that references a record makes the snapshot ask the
    memory backend; a backend whose ``retrieve`` raises left no decision at all (also one
    that raises the domain's NotFound, which only an unknown organization may)."""
    memory = FailingMemory(store.governance._memory, error)
    failing = SqlGovernance(store.db, TEST_KEYS, memory)  # type: ignore[arg-type]
    intent = _pay(firm, references=("atlas-letter",))
    decision = governance.decide(failing, intent, utc_now())  # type: ignore[arg-type]
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_error")
    assert "the backend's retrieve failed" in decision.reason
    _rejected_on_the_record(store, firm, intent, "retrieve")


def test_an_unknown_organization_is_no_decision_to_record(store: Store, firm: Firm) -> None:
    intent = _pay(firm).model_copy(update={"org_id": "no-such-org"})
    with pytest.raises(UnknownOrganization):
        governance.decide(store.governance, intent, utc_now())


@pytest.mark.parametrize("where", ["stored", "snapshot", "principal"])
def test_a_review_that_fails_is_refused_on_the_record(store: Store, firm: Firm, where: str) -> None:
    intent = _pay(firm, 200_000)
    assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.HOLD
    request = signed(intent, firm.founder, now=utc_now(), store=store.governance)
    faulty = FaultyStore(store.governance, where)
    outcome = governance_review.review_hold(
        faulty,  # type: ignore[arg-type]
        firm.org,
        intent.run_id,
        request,
        1,
        utc_now(),
        keys=APPROVAL_KEYS,
    )
    assert (outcome.review.accepted, outcome.review.rule) == (False, "broker_error")
    assert outcome.decision is not None and outcome.decision.outcome is Outcome.HOLD
    refusals = [e for e in store.audit.entries(firm.org) if e.decision == "review_refused"]
    assert [e.rule for e in refusals] == ["broker_error"]
    # the proof was not spent by the review that failed: the approver's decision counts
    again = governance_review.review_hold(
        store.governance, firm.org, intent.run_id, request, 2, utc_now(), keys=APPROVAL_KEYS
    )
    assert again.review.accepted and again.decision is not None
    assert again.decision.outcome is Outcome.APPROVED
    assert store.audit.verify(firm.org).ok


def test_a_recheck_that_fails_is_a_recorded_rejection(store: Store, firm: Firm) -> None:
    """An intent held for a collision, decided again while the snapshot fails: rejected on
    the record (its hold closed), never left without an answer."""
    invoice = "INV-COLLIDE"
    first = payment_intent(firm.org, firm.agents["ledger"], 10_000, invoice=invoice)
    second = payment_intent(firm.org, firm.agents["ledger"], 10_000, invoice=invoice)
    assert governance.decide(store.governance, first, utc_now()).outcome is Outcome.ALLOW
    held = governance.decide(store.governance, second, utc_now())
    assert held.outcome is Outcome.HOLD and "collision" in held.rule
    # the database failing is waited for: the hold is recorded, and stays open
    busy = FaultyStore(store.governance, "snapshot", error=StoreFailure("database is locked"))
    with pytest.raises(StoreFailure):
        governance_review.recheck(busy, firm.org, second.id, utc_now())  # type: ignore[arg-type]
    with store.governance.unit(firm.org, utc_now()) as unit:
        stored = unit.stored(second.id)
    assert stored is not None and stored.open
    faulty = FaultyStore(store.governance, "snapshot")
    decision = governance_review.recheck(faulty, firm.org, second.id, utc_now())  # type: ignore[arg-type]
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_error")
    with store.governance.unit(firm.org, utc_now()) as unit:
        stored = unit.stored(second.id)
    assert stored is not None and not stored.open
    assert store.audit.verify(firm.org).ok
