"""The governance use cases on the in-memory unit of work (``tests.fakes.governance``):
deciding, holding, approving and denying, in milliseconds and without a database.

What the fake itself must match is checked against SQLite in
``tests/contracts/test_governance_fake.py``; here the use cases are the subject.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.errors import FoundationBroken, StoreFailure
from domain.governance import records
from domain.governance.intents import ApprovalVerdict, Intent, Outcome, Stage
from domain.governance.usage import usage_draft
from domain.organization.contracts import SpendCap
from domain.organization.kinds import DestinationKind, StaffRole
from tests.fakes.governance import TEST_PAYEES, Clock, FakeFirm, FakeGovernance, FakeOrganization
from tests.support import APPROVAL_KEYS, payment_intent, race, signed
from usecases import governance, governance_review

RUN = "run-1"


@pytest.fixture
def firm() -> FakeFirm:
    return FakeFirm(clock=Clock(tick=timedelta(milliseconds=1)))


def _pay(firm: FakeFirm, amount: int, run_id: str = RUN, invoice: str | None = None) -> Intent:
    return payment_intent(firm.org, firm.agents["ledger"], amount, invoice, run_id=run_id)


def _decide(firm: FakeFirm, intent: Intent):  # type: ignore[no-untyped-def]
    return governance.decide(firm.store, intent, firm.clock())


def _review(firm: FakeFirm, request: Any, attempt: int, run_id: str = RUN):  # type: ignore[no-untyped-def]
    outcome = governance_review.review_hold(
        firm.store, firm.org, run_id, request, attempt, firm.clock(), keys=APPROVAL_KEYS
    )
    return outcome.review, outcome.decision


def _sign(firm: FakeFirm, intent: Intent, who: str | None = None, **kw: Any):  # type: ignore[no-untyped-def]
    return signed(intent, who or firm.founder, now=firm.clock(), store=firm.store, **kw)


def _shape(firm: FakeFirm) -> list[tuple[str, str, str]]:
    return [(e.stage, e.decision, e.rule) for e in firm.store.entries(firm.org)]


def test_a_small_payment_is_allowed_on_the_chain_and_a_retry_adds_nothing(firm: FakeFirm) -> None:
    intent = _pay(firm, 50_000)
    decision = _decide(firm, intent)
    assert (decision.outcome, decision.rule) == (Outcome.ALLOW, "all_stages_passed")
    assert decision.audit_seq == 1 and decision.intent_digest == intent.digest
    assert _decide(firm, intent) == decision  # a retry after a crash: as recorded
    assert _shape(firm) == [(Stage.AUDIT, "allow", "all_stages_passed")]
    assert firm.store.claims(firm.org) == {
        f"payments.pay:{intent.payload['invoice'].lower()}": intent.id
    }
    assert firm.store.verify(firm.org).ok


def test_a_payment_whose_records_reach_across_the_wall_is_refused_at_the_barrier(
    firm: FakeFirm,
) -> None:
    intent = _pay(firm, 50_000).model_copy(update={"references": ("birch-cim",)})
    decision = _decide(firm, intent)
    assert (decision.outcome, decision.stage, decision.rule) == (
        Outcome.REJECT,
        Stage.SCOPE,
        "barrier_crossed",
    )
    assert decision.reach == ("east", "west")
    assert firm.store.claims(firm.org) == {}  # a rejection holds no key
    assert _shape(firm) == [(Stage.SCOPE, "reject", "barrier_crossed")]


def test_a_payment_over_the_threshold_is_held_then_approved_with_a_signed_proof(
    firm: FakeFirm,
) -> None:
    intent = _pay(firm, 200_000)
    held = _decide(firm, intent)
    assert (held.outcome, held.stage, held.rule) == (
        Outcome.HOLD,
        Stage.APPROVAL,
        "money_over_threshold",
    )
    assert firm.store.open_holds(firm.org) == [intent.id]
    result, decision = _review(firm, _sign(firm, intent), 1)
    assert (result.accepted, result.rule) == (True, "approved_by_authority")
    assert decision is not None and decision.outcome is Outcome.APPROVED
    assert decision.stage is Stage.REVIEW and decision.audit_seq == 2
    assert firm.store.open_holds(firm.org) == []
    (approval,) = [e for e in firm.store.entries(firm.org) if e.decision == "approved"]
    assert approval.event_key.startswith("proof:") and approval.actor == firm.founder
    assert firm.store.verify(firm.org).ok


def test_a_replayed_proof_is_refused_and_a_retried_review_is_answered_as_recorded(
    firm: FakeFirm,
) -> None:
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    request = _sign(firm, intent)
    first, _ = _review(firm, request, 1)
    entries = len(firm.store.entries(firm.org))
    retried, _ = _review(firm, request, 1)  # the same activity, retried after a crash
    assert first.accepted and retried.accepted and retried.rule == first.rule
    assert len(firm.store.entries(firm.org)) == entries
    replayed, latest = _review(firm, request, 2)  # the proof copied from history, resent
    assert (replayed.accepted, replayed.rule) == (False, "proof_spent")
    assert latest is not None and latest.outcome is Outcome.APPROVED
    assert _shape(firm)[-1] == (Stage.REVIEW, "review_refused", "proof_spent")


def test_a_denied_hold_is_closed_and_its_invoice_may_be_proposed_again(firm: FakeFirm) -> None:
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    result, decision = _review(firm, _sign(firm, intent, verdict=ApprovalVerdict.DENY), 1)
    assert (result.accepted, result.rule) == (True, "denied_by_authority")
    assert decision is not None and decision.outcome is Outcome.DENIED
    stored = firm.store.intents(firm.org)[0]
    assert stored.status is Outcome.DENIED and firm.store.claims(firm.org) == {}
    again = intent.model_copy(update={"id": "retry-of-the-denied", "cost_cents": 20_000})
    again = again.model_copy(update={"payload": {**intent.payload, "amount_cents": 20_000}})
    assert _decide(firm, again).outcome is Outcome.ALLOW


@pytest.mark.parametrize(
    ("who", "change", "rule"),
    [
        ("associate", {}, "no_approval_authority"),
        ("founder", {"proof": None}, "missing_proof"),
        ("ledger", {}, "approver_not_human"),
    ],
)
def test_a_decision_without_authority_or_proof_is_refused_on_the_record(
    firm: FakeFirm, who: str, change: dict[str, Any], rule: str
) -> None:
    approver = {"associate": firm.associate, "founder": firm.founder, **firm.agents}[who]
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    request = _sign(firm, intent, approver).model_copy(update=change)
    result, latest = _review(firm, request, 1)
    assert (result.accepted, result.rule) == (False, rule)
    assert latest is not None and latest.outcome is Outcome.HOLD
    assert firm.store.open_holds(firm.org) == [intent.id]
    assert _shape(firm)[-1] == (Stage.REVIEW, "review_refused", rule)


def test_a_proof_older_than_a_day_is_stale(firm: FakeFirm) -> None:
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    request = _sign(firm, intent)
    firm.clock.advance(timedelta(days=1, minutes=1))
    result, _ = _review(firm, request, 1)
    assert (result.accepted, result.rule) == (False, "stale_proof")


def test_an_approval_taken_over_by_a_cap_is_held_again_and_its_proof_spent(
    firm: FakeFirm,
) -> None:
    """Issue 19.1 on the fake: the approval of a threshold hold is refused once a smaller
    payment took the cap, the intent is held again for the cap, and the same proof
    cannot approve the new hold."""
    firm.organization.add_commitment("cap", SpendCap(limit_cents=300_000), ("east",), firm.clock())
    big, small = _pay(firm, 250_000, "run-big"), _pay(firm, 90_000, "run-small")
    assert _decide(firm, big).rule == "money_over_threshold"
    ada = _sign(firm, big)
    assert _decide(firm, small).outcome is Outcome.ALLOW
    refused, rehold = _review(firm, ada, 1, "run-big")
    assert (refused.accepted, refused.rule) == (False, "hold_reasons_changed")
    assert rehold is not None and rehold.rule == "spend_cap+money_over_threshold"
    replayed, _ = _review(firm, ada, 2, "run-big")
    assert replayed.rule == "proof_spent"
    knowing, decision = _review(firm, _sign(firm, big), 3, "run-big")
    assert knowing.accepted and decision is not None and decision.outcome is Outcome.APPROVED
    assert firm.store.verify(firm.org).ok


def test_a_run_charged_for_its_model_call_has_that_much_less_budget(firm: FakeFirm) -> None:
    ledger = firm.agents["ledger"]  # effective budget: 1,500,000 cents a run
    draft = usage_draft(RUN, ledger, "scripted", "m", 10, 10, 1_450_000)
    governance.record_usage(firm.store, firm.org, draft, firm.clock())
    decision = _decide(firm, _pay(firm, 60_000))
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "budget_exceeded")
    assert _decide(firm, _pay(firm, 60_000, run_id="run-2")).outcome is Outcome.ALLOW


def test_a_poisoned_broker_rejects_until_its_chain_verifies_and_it_is_cleared(
    firm: FakeFirm,
) -> None:
    assert governance.poison(firm.store, firm.org, "entry 3 altered", firm.clock())
    assert not governance.poison(firm.store, firm.org, "again", firm.clock())
    decision = _decide(firm, _pay(firm, 10_000))
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_poisoned")
    verified = firm.store.verify(firm.org)
    governance.unpoison(firm.store, firm.org, firm.founder, "checked", verified, firm.clock())
    assert _decide(firm, _pay(firm, 10_000)).outcome is Outcome.ALLOW


def test_a_write_is_done_once_and_a_repeat_of_it_is_held_for_a_human(firm: FakeFirm) -> None:
    connectors = firm.connectors()
    first = _pay(firm, 10_000, invoice="INV-7")
    allowed = _decide(firm, first)
    result = governance.dispatch(firm.store, connectors, firm.org, allowed, firm.clock())
    assert (result.external_id, result.duplicate) == (f"payments:{first.id}", False)
    again = governance.dispatch(firm.store, connectors, firm.org, allowed, firm.clock())
    assert again.duplicate
    repeat = _decide(firm, _pay(firm, 10_000, run_id="run-2", invoice="INV-7"))
    assert (repeat.outcome, repeat.rule, repeat.evidence) == (
        Outcome.HOLD,
        "already_done",
        (first.id,),
    )
    assert [e.decision for e in firm.store.entries(firm.org)].count("dispatched") == 1


def test_a_collision_waits_and_is_decided_again_once_the_other_write_is_done(
    firm: FakeFirm,
) -> None:
    first, second = (_pay(firm, 10_000, f"run-{n}", "INV-9") for n in (1, 2))
    allowed = _decide(firm, first)
    waiting = _decide(firm, second)
    assert (waiting.rule, waiting.evidence) == ("collision", (first.id,))
    assert governance_review.recheck(firm.store, firm.org, second.id, firm.clock()) == waiting
    governance.dispatch(firm.store, firm.connectors(), firm.org, allowed, firm.clock())
    again = governance_review.recheck(firm.store, firm.org, second.id, firm.clock())
    assert (again.outcome, again.rule) == (Outcome.HOLD, "already_done")


def test_a_broken_stage_is_a_recorded_rejection(firm: FakeFirm) -> None:
    def broken(_: object) -> None:
        raise RuntimeError("boom")

    decision = governance.decide(
        firm.store, _pay(firm, 10_000), firm.clock(), stages=((Stage.IDENTITY, broken),)
    )
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "broker_error")
    assert "boom" in decision.reason and firm.store.verify(firm.org).ok


def test_a_unit_that_raises_leaves_nothing_behind(firm: FakeFirm) -> None:
    intent = _pay(firm, 10_000)
    with pytest.raises(RuntimeError), firm.store.unit(firm.org, firm.clock()) as unit:
        assert unit.latest(intent.id) is None
        governance._first_decision(unit, intent, firm.clock(), governance.BrokerMode.ENFORCE, ())
        assert unit.latest(intent.id) is not None  # seen inside its own unit
        raise RuntimeError("the transaction fails")
    assert firm.store.entries(firm.org) == [] and firm.store.intents(firm.org) == []
    assert firm.store.claims(firm.org) == {}


def test_a_unit_inside_another_of_its_organization_fails_as_a_busy_database(
    firm: FakeFirm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tests.fakes.governance.LOCK_WAIT", 0.01)
    with firm.store.unit(firm.org, firm.clock()), pytest.raises(StoreFailure):
        with firm.store.unit(firm.org, firm.clock()):
            pass


def test_an_unknown_organization_has_no_chain_to_record_on() -> None:
    store = FakeGovernance()
    with pytest.raises(governance.UnknownOrganization):
        governance.decide(store, payment_intent("nowhere", "x", 10), Clock()())


def test_records_and_charges_of_one_organization_are_not_another_s(firm: FakeFirm) -> None:
    other = firm.store.add(FakeOrganization.found("Other", "eve@other.example", firm.clock()))
    other.add_project("east", firm.clock())
    ledger = other.agent("ledger")
    other.staff(ledger, "east", StaffRole.MEMBER, firm.clock())
    for payee in TEST_PAYEES:
        other.establish("east", DestinationKind.PAYEE, payee, firm.clock())
    mine = _pay(firm, 10_000, invoice="INV-1")
    theirs = payment_intent(other.id, ledger, 10_000, "INV-1", run_id=RUN)
    assert _decide(firm, mine).outcome is Outcome.ALLOW
    assert governance.decide(firm.store, theirs, firm.clock()).outcome is Outcome.ALLOW
    assert [len(firm.store.entries(o)) for o in (firm.org, other.id)] == [1, 1]


# --- properties ------------------------------------------------------------------------------

CAP = 200_000
INVOICES = ["inv-a", "inv-b", "inv-c", ""]
AMOUNTS = [10_000, 60_000, 150_000]
STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("decide"),
            st.sampled_from(INVOICES),
            st.sampled_from(AMOUNTS),
            st.sampled_from(["run-a", "run-b"]),
        ),
        st.tuples(st.just("batch"), st.lists(st.sampled_from(AMOUNTS), min_size=1, max_size=4)),
        st.tuples(st.just("approve"), st.integers(0, 9)),
        st.tuples(st.just("deny"), st.integers(0, 9)),
        st.tuples(st.just("dispatch"), st.integers(0, 9)),
        st.tuples(st.just("close"), st.integers(0, 9)),
        st.tuples(st.just("recheck"), st.integers(0, 9)),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_no_sequence_of_use_cases_overruns_a_cap_or_double_books_a_resource(
    steps: list[tuple[Any, ...]],
) -> None:
    """After every step: what the broker allowed on its own never exceeds the confirmed
    cap, at most one open write holds each invoice (none beside a payment naming no
    invoice), every held key is an open intent's, a hold is open exactly while the
    intent's status is held, an invoice is paid twice only with a human's approval, and
    the chain verifies."""
    firm = FakeFirm(clock=Clock(tick=timedelta(milliseconds=1)))
    firm.organization.add_commitment("cap", SpendCap(limit_cents=CAP), ("east",), firm.clock())
    store, org, connectors = firm.store, firm.org, firm.connectors()
    intents: list[Intent] = []

    def pick(k: int, *statuses: Outcome) -> Intent | None:
        rows = {r.intent.id: r for r in store.intents(org)}
        found = [i for i in intents if rows[i.id].status in statuses and not rows[i.id].dispatched]
        return found[k % len(found)] if found else None

    for attempt, step in enumerate(steps, start=1):
        if step[0] == "decide":
            intent = _pay(firm, step[2], step[3], step[1])
            intents.append(intent)
            _decide(firm, intent)
        elif step[0] == "batch":
            batch = [_pay(firm, amount, "run-c") for amount in step[1]]
            intents.extend(batch)
            governance.decide_many(store, batch, firm.clock())
        elif step[0] in ("approve", "deny") and (target := pick(step[1], Outcome.HOLD)):
            verdict = ApprovalVerdict.APPROVE if step[0] == "approve" else ApprovalVerdict.DENY
            _review(firm, _sign(firm, target, verdict=verdict), attempt, target.run_id)
        elif step[0] == "dispatch" and (target := pick(step[1], Outcome.ALLOW, Outcome.APPROVED)):
            with store.unit(org, firm.clock()) as unit:
                latest = unit.latest(target.id)
            assert latest is not None
            governance.dispatch(store, connectors, org, latest, firm.clock())
        elif step[0] == "close" and (target := pick(step[1], Outcome.ALLOW, Outcome.HOLD)):
            governance.close(store, org, target.id, "run_failed", "r", firm.clock())
        elif step[0] == "recheck" and (target := pick(step[1], Outcome.HOLD)):
            governance_review.recheck(store, org, target.id, firm.clock())
        _check(firm)


def _check(firm: FakeFirm) -> None:
    store, org = firm.store, firm.org
    rows = store.intents(org)
    allowed = sum(r.spend_cents for r in rows if r.status is Outcome.ALLOW)
    assert allowed <= CAP, allowed
    open_writes = [
        r.op_key or "payments.pay:*" for r in rows if r.status.may_dispatch and not r.dispatched
    ]
    assert len(open_writes) == len(set(open_writes)), open_writes
    assert "payments.pay:*" not in open_writes or len(open_writes) == 1, open_writes
    by_id = {r.intent.id: r for r in rows}
    for key, holder in store.claims(org).items():
        row = by_id[holder]
        assert row.status in (Outcome.ALLOW, Outcome.HOLD, Outcome.APPROVED), key
        assert not row.dispatched, key
    held = {r.intent.id for r in rows if r.status is Outcome.HOLD}
    assert set(store.open_holds(org)) == held
    paid: dict[str, list[Outcome]] = {}
    for r in rows:
        if r.dispatched and r.op_key is not None:
            paid.setdefault(r.op_key, []).append(r.status)
    for key, statuses in paid.items():
        assert all(s is Outcome.APPROVED for s in statuses[1:]), (key, statuses)
    assert store.verify(org).ok
    assert [e.seq for e in store.entries(org)] == list(range(1, len(store.entries(org)) + 1))
    for entry in store.entries(org):
        if entry.decision == records.REVIEW_REFUSED:
            assert entry.stage == Stage.REVIEW


def test_one_proof_sent_at_once_by_many_is_spent_once(firm: FakeFirm) -> None:
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    request = _sign(firm, intent)
    results = race([lambda n=n: _review(firm, request, n) for n in range(1, 7)])
    rules = sorted(r[0].rule for r in results)
    assert rules == ["approved_by_authority"] + ["proof_spent"] * 5, rules
    assert firm.store.verify(firm.org).ok


def test_a_write_whose_allowing_entry_was_altered_poisons_the_broker(firm: FakeFirm) -> None:
    allowed = _decide(firm, _pay(firm, 10_000))
    assert allowed.audit_seq is not None
    firm.store.tamper(firm.org, allowed.audit_seq, rule="altered")
    with pytest.raises(FoundationBroken):
        governance.dispatch(firm.store, firm.connectors(), firm.org, allowed, firm.clock())
    assert _decide(firm, _pay(firm, 10_000, run_id="run-2")).rule == "broker_poisoned"
    assert not firm.store.verify(firm.org).ok


def test_spending_under_a_standing_hold_waits_for_a_human(firm: FakeFirm) -> None:
    firm.organization.place_standing_hold(("east",), "the cap expired", firm.clock())
    held = _decide(firm, _pay(firm, 10_000))
    assert (held.outcome, held.stage, held.rule) == (
        Outcome.HOLD,
        Stage.COMMITMENTS,
        "standing_hold",
    )
    email = Intent(
        id="an-email",
        org_id=firm.org,
        run_id=RUN,
        principal_id=firm.agents["ledger"],
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="j",
        payload={"to": "cfo@client.example", "subject": "s", "body": "b"},
    )
    assert _decide(firm, email).outcome is Outcome.ALLOW  # it moves no money


def test_an_agent_unstaffed_while_held_is_not_released(firm: FakeFirm) -> None:
    intent = _pay(firm, 200_000)
    _decide(firm, intent)
    (row,) = [s for s in firm.organization.staffing if s.principal_id == firm.agents["ledger"]]
    firm.organization.unstaff(row.id, firm.clock())
    refused, held = _review(firm, _sign(firm, intent), 1)
    assert (refused.accepted, refused.rule) == (False, "not_staffed")
    assert held is not None and held.outcome is Outcome.HOLD
