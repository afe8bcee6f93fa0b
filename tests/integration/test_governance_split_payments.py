"""Split payments through the store, on SQLite and PostgreSQL: what one payee was paid is
added up under the organization's lock, across decisions, within one batch and between
concurrent decisions, so instalments cannot slip under the approval threshold together."""

from __future__ import annotations

import threading
import uuid
from datetime import datetime, timedelta

from adapters.store.store import Store
from domain.governance.intents import ApprovalVerdict, Intent, Outcome
from domain.organization.kinds import DestinationKind, StaffRole
from tests.support import APPROVAL_KEYS, payment_intent, signed, utc_now
from usecases import destinations, governance, governance_review, organization
from usecases.context import Ports

THRESHOLD = 100_000


def _firm(services: Ports) -> tuple[str, str, str]:
    done = organization.onboard(services, "Split", f"f{uuid.uuid4().hex[:8]}@split.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    organization.add_project(services, org, founder, "east", "East")
    organization.staff(
        services, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    destinations.establish_all(
        services,
        org,
        founder,
        [
            destinations.Establish("east", DestinationKind.PAYEE, payee)
            for payee in ("Acme Data Rooms", "Acme", "Birch")
        ],
    )
    return org, ledger, founder


def _pay(org: str, agent: str, amount: int, payee: str) -> Intent:
    intent = payment_intent(org, agent, amount)
    return intent.model_copy(update={"payload": {**intent.payload, "payee": payee}})


def test_a_second_instalment_to_one_payee_waits_for_an_approver(
    services: Ports, store: Store
) -> None:
    org, ledger, founder = _firm(services)
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
    org, ledger, founder = _firm(services)
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
    org, ledger, founder = _firm(services)
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


def test_an_approved_instalment_counts_from_its_approval_and_a_denied_one_not_at_all(
    services: Ports, store: Store
) -> None:
    """Held because a member asked, approved eight days later: the split window starts at
    the approval, so the next instalment waits; denied, that one counts for nothing."""
    org, ledger, founder = _firm(services)
    ben = organization.add_human(services, org, founder, "ben@split.example", "Ben").id
    organization.staff(
        services, org, founder, organization.AssignStaff(ben, "east", StaffRole.MEMBER)
    )
    first = _pay(org, ledger, 60_000, "Acme").model_copy(update={"requested_by": ben})
    held = governance.decide(store.governance, first, utc_now())
    assert (held.outcome, held.rule) == (Outcome.HOLD, "requester_not_approver")
    later = utc_now() + timedelta(days=8)  # proposed a window ago, approved now
    _answer(store, org, first, founder, ApprovalVerdict.APPROVE, Outcome.APPROVED, later)

    second = _pay(org, ledger, 60_000, "Acme")
    got = governance.decide(store.governance, second, later)
    assert (got.outcome, got.rule, got.evidence) == (
        Outcome.HOLD,
        "split_payments",
        (first.id,),
    )
    _answer(store, org, second, founder, ApprovalVerdict.DENY, Outcome.DENIED, later)
    third = governance.decide(store.governance, _pay(org, ledger, 30_000, "Acme"), later)
    assert third.outcome is Outcome.ALLOW  # 60,000 approved + 30,000: within the threshold
    assert store.audit.verify(org).ok


def _answer(
    store: Store,
    org: str,
    intent: Intent,
    founder: str,
    verdict: ApprovalVerdict,
    wanted: Outcome,
    now: datetime,
) -> None:
    request = signed(intent, founder, verdict, now=now, store=store.governance)
    reviewed = governance_review.review_hold(
        store.governance, org, intent.run_id, request, 1, now, keys=APPROVAL_KEYS
    )
    assert reviewed.decision is not None and reviewed.decision.outcome is wanted, reviewed
