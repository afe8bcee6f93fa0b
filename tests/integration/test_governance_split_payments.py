"""Split payments through the store, on SQLite and PostgreSQL: what one payee was paid is
added up under the organization's lock, across decisions, within one batch and between
concurrent decisions, so instalments cannot slip under the approval threshold together."""

from __future__ import annotations

import threading
import uuid

from adapters.store.store import Store
from domain.governance.intents import Intent, Outcome
from domain.organization.kinds import StaffRole
from tests.support import payment_intent, utc_now
from usecases import governance, organization
from usecases.context import Ports

THRESHOLD = 100_000


def _firm(services: Ports) -> tuple[str, str]:
    done = organization.onboard(services, "Split", f"f{uuid.uuid4().hex[:8]}@split.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    organization.add_project(services, org, founder, "east", "East")
    organization.staff(
        services, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    return org, ledger


def _pay(org: str, agent: str, amount: int, payee: str) -> Intent:
    intent = payment_intent(org, agent, amount)
    return intent.model_copy(update={"payload": {**intent.payload, "payee": payee}})


def test_a_second_instalment_to_one_payee_waits_for_an_approver(
    services: Ports, store: Store
) -> None:
    org, ledger = _firm(services)
    first = _pay(org, ledger, 99_000, "Acme Data Rooms")
    assert governance.decide(store.governance, first, utc_now()).outcome is Outcome.ALLOW
    second = governance.decide(
        store.governance, _pay(org, ledger, 99_000, "  ACME data   rooms"), utc_now()
    )
    assert (second.outcome, second.rule, second.evidence) == (
        Outcome.HOLD,
        "split_payments",
        (first.id,),
    )
    other = governance.decide(store.governance, _pay(org, ledger, 99_000, "Birch"), utc_now())
    assert other.outcome is Outcome.ALLOW  # another payee's own threshold
    assert store.audit.verify(org).ok


def test_instalments_decided_in_one_batch_add_up(services: Ports, store: Store) -> None:
    org, ledger = _firm(services)
    batch = [_pay(org, ledger, 60_000, "Acme") for _ in range(3)]
    got = governance.decide_many(store.governance, batch, utc_now())
    assert [(d.outcome, d.rule) for d in got] == [
        (Outcome.ALLOW, "all_stages_passed"),
        (Outcome.HOLD, "split_payments"),
        (Outcome.HOLD, "split_payments"),
    ]
    assert got[2].evidence == (batch[0].id,)  # a held one counts for nothing


def test_concurrent_instalments_never_pass_the_threshold_together(
    services: Ports, store: Store
) -> None:
    org, ledger = _firm(services)
    intents = [_pay(org, ledger, 30_000, "Acme") for _ in range(8)]
    decided: list[Outcome] = []
    errors: list[BaseException] = []
    start = threading.Barrier(len(intents))

    def work(intent: Intent) -> None:
        try:
            start.wait()
            decided.append(governance.decide(store.governance, intent, utc_now()).outcome)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(i,)) for i in intents]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert errors == []
    assert decided.count(Outcome.ALLOW) == THRESHOLD // 30_000  # three, whichever they are
    assert decided.count(Outcome.HOLD) == len(intents) - THRESHOLD // 30_000
    assert store.audit.verify(org).ok
