"""An approval re-runs the broker: it cannot overrun a cap or a budget, or release
the intent of an agent that was unstaffed meanwhile (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid

from adapters.connectors.payments import PaymentsLedger
from adapters.store.store import Store
from domain.governance.intents import ApprovalRequest, ApprovalVerdict, Intent, Outcome
from domain.governance.ports import ConnectorWrite
from domain.organization.contracts import SpendCap
from domain.tools import REGISTRY
from tests.support import APPROVAL_KEYS, Firm, payment_intent, race, signed, utc_now
from usecases import commitments, governance, governance_review, organization

RUN = "run-1"


def _pay(firm: Firm, amount: int, run_id: str = RUN) -> Intent:
    return payment_intent(firm.org, firm.agents["ledger"], amount, run_id=run_id)


def _approve(
    store: Store,
    firm: Firm,
    intent: Intent,
    attempt: int,
    run_id: str = RUN,
    who: str | None = None,
):  # type: ignore[no-untyped-def]
    request = signed(
        intent, who or firm.founder, run_id=run_id, now=utc_now(), store=store.governance
    )
    return _review(store, firm, request, attempt, run_id)


def test_two_threshold_holds_cannot_together_overrun_a_cap(store: Store, firm: Firm) -> None:
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "cap", SpendCap(limit_cents=500_000), "letter", projects=("east",)
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    first, second = _pay(firm, 400_000, "run-a"), _pay(firm, 400_000, "run-b")
    for intent in (first, second):
        held = governance.decide(store.governance, intent, utc_now())
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
        assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.HOLD
    assert _approve(store, firm, first, 1)[0].accepted
    refused, _ = _approve(store, firm, second, 2)
    assert not refused.accepted and refused.rule == "budget_exceeded"


def test_an_agent_unstaffed_while_held_is_not_released(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 200_000)
    assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.HOLD
    (row,) = [s for s in store.directory.staffing(firm.org, firm.agents["ledger"])]
    organization.unstaff(firm.svc, firm.org, firm.founder, row.id)
    refused, held = _approve(store, firm, intent, 1)
    assert not refused.accepted and refused.rule == "not_staffed"
    assert held is not None and held.outcome is Outcome.HOLD


def test_a_review_names_its_run(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    refused, _ = _approve(store, firm, intent, 1, run_id="another-run")
    assert not refused.accepted and refused.rule == "wrong_run"


def test_a_retried_refusal_is_answered_as_recorded(store: Store, firm: Firm) -> None:
    base = store.audit.verify(firm.org).entries
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    # a retry is the same activity input: the same request, with the same proof
    request = signed(intent, firm.associate, run_id=RUN, now=utc_now(), store=store.governance)
    first, _ = _review(store, firm, request, 1, RUN)
    retried, latest = _review(store, firm, request, 1, RUN)
    assert not first.accepted and not retried.accepted
    assert retried.rule == first.rule == "no_approval_authority"
    assert latest is not None and latest.outcome is Outcome.HOLD
    assert store.audit.verify(firm.org).entries == base + 2


def test_a_closed_run_releases_its_keys(store: Store, firm: Firm) -> None:
    intent = _pay(firm, 50_000)
    assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.ALLOW
    closed = governance.close(
        store.governance, firm.org, intent.id, "run_failed", "worker gave up", utc_now()
    )
    assert closed.outcome is Outcome.EXPIRED and closed.rule == "run_failed"
    same_invoice = intent.model_copy(update={"id": str(uuid.uuid4())})
    assert governance.decide(store.governance, same_invoice, utc_now()).outcome is Outcome.ALLOW


def _pay_invoice(store: Store, firm: Firm, invoice: str) -> tuple[Intent, object]:
    intent = _pay(firm, 10_000, run_id=f"run-{uuid.uuid4().hex[:6]}")
    intent = intent.model_copy(update={"payload": {**intent.payload, "invoice": invoice}})
    return intent, governance.decide(store.governance, intent, utc_now())


def _write(store: Store, firm: Firm, intent: Intent, decision: object) -> None:
    _, token = store.governance.token_for(firm.org, decision)  # type: ignore[arg-type]
    PaymentsLedger(store.db, utc_now, store.keys).write(
        ConnectorWrite(intent=intent, tool=REGISTRY[intent.tool], token=token)
    )


def test_an_approver_is_never_shown_stale_evidence_of_a_repeat_payment(
    store: Store, firm: Firm
) -> None:
    """A was paid. B, a second payment of the same invoice, is held naming A, and holds
    the invoice's key while a human decides. C, a third, waits on B (a collision no human
    may waive). Once B is approved and paid, C is decided again by itself and held
    naming A and B: its approver sees every earlier write."""
    a, decided = _pay_invoice(store, firm, "INV-7")
    _write(store, firm, a, decided)
    b, held_b = _pay_invoice(store, firm, "INV-7")
    c, held_c = _pay_invoice(store, firm, "INV-7")
    assert (held_b.outcome, held_b.rule, held_b.evidence) == (  # type: ignore[attr-defined]
        Outcome.HOLD,
        "already_done",
        (a.id,),
    )
    assert (held_c.outcome, held_c.rule, held_c.evidence) == (  # type: ignore[attr-defined]
        Outcome.HOLD,
        "collision",
        (b.id,),
    )
    refused, _ = _approve(store, firm, c, 1, run_id=c.run_id)
    assert not refused.accepted  # waiting on B is not a human's to waive

    approved_b, decision_b = _approve(store, firm, b, 1, run_id=b.run_id)
    assert approved_b.accepted
    _write(store, firm, b, decision_b)

    renewed = governance_review.recheck(store.governance, firm.org, c.id, utc_now())
    assert (renewed.outcome, renewed.rule) == (Outcome.HOLD, "already_done")
    assert set(renewed.evidence) == {a.id, b.id}
    approved_c, _ = _approve(store, firm, c, 2, run_id=c.run_id)
    assert approved_c.accepted  # on the evidence it now shows
    assert store.audit.verify(firm.org).ok


def test_approving_a_hold_whose_collision_has_ended_claims_the_key(
    store: Store, firm: Firm
) -> None:
    """Found by the interleaving property test: B waited on A for the same invoice; A was
    closed; a human then approved B, which held no key yet, so a third payment C was
    allowed beside it. The approval now claims B's key, and C waits on B."""
    a, allowed = _pay_invoice(store, firm, "INV-9")
    assert allowed.outcome is Outcome.ALLOW  # type: ignore[attr-defined]
    b, held = _pay_invoice(store, firm, "INV-9")
    assert (held.outcome, held.rule) == (Outcome.HOLD, "collision")  # type: ignore[attr-defined]
    governance.close(store.governance, firm.org, a.id, "run_failed", "gave up", utc_now())
    approved, _ = _approve(store, firm, b, 1, run_id=b.run_id)
    assert approved.accepted
    c, third = _pay_invoice(store, firm, "INV-9")
    assert (third.outcome, third.rule, third.evidence) == (  # type: ignore[attr-defined]
        Outcome.HOLD,
        "collision",
        (b.id,),
    )
    assert store.audit.verify(firm.org).ok


def test_a_request_with_a_nul_is_refused_on_the_record(store: Store, firm: Firm) -> None:
    """An approval sent straight to Temporal may hold a NUL, which PostgreSQL text cannot:
    it is refused as malformed and recorded with the NUL shown escaped."""
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    request = ApprovalRequest(
        intent_id=intent.id,
        approver_id=firm.founder + "\x00",
        verdict=ApprovalVerdict.APPROVE,
        intent_digest=intent.digest,
    )
    outcome = governance_review.review_hold(
        store.governance, firm.org, RUN, request, 1, utc_now(), keys=APPROVAL_KEYS
    )
    result, latest = outcome.review, outcome.decision
    assert not result.accepted and result.rule == "malformed_request"
    assert latest is not None and latest.outcome is Outcome.HOLD
    (entry,) = [e for e in store.audit.entries(firm.org) if e.rule == "malformed_request"]
    assert entry.actor.endswith("\\u0000")
    assert store.audit.verify(firm.org).ok


def test_an_unsigned_or_forged_decision_is_refused_on_the_record(store: Store, firm: Firm) -> None:
    """A decision sent straight to Temporal proves nothing: refused before its approver
    is even looked at, recorded, and the hold stays open for a real decision."""
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    bound = store.governance
    unsigned = signed(intent, firm.founder, now=utc_now(), store=bound).model_copy(
        update={"proof": None}
    )
    for_another_run = signed(intent, firm.founder, run_id="run-other", now=utc_now(), store=bound)
    for attempt, request in enumerate((unsigned, for_another_run), start=1):
        outcome = governance_review.review_hold(
            store.governance, firm.org, RUN, request, attempt, utc_now(), keys=APPROVAL_KEYS
        )
        assert not outcome.review.accepted
        assert outcome.decision is not None and outcome.decision.outcome is Outcome.HOLD
    rules = [e.rule for e in store.audit.entries(firm.org) if e.decision == "review_refused"]
    assert rules == ["missing_proof", "forged_proof"]
    result, latest = _approve(store, firm, intent, 3)
    assert result.accepted and latest is not None and latest.outcome is Outcome.APPROVED
    entry = store.audit.entries(firm.org)[-1]
    assert entry.payload["proof_key_id"] == APPROVAL_KEYS.current.key_id
    assert "signature" not in str(entry.payload)
    assert store.audit.verify(firm.org).ok


def test_an_undecodable_signal_is_recorded_once_per_attempt(store: Store, firm: Firm) -> None:
    problem = "approve: not an ApprovalSignal (value: Input should be an object): b'3'\x00"
    for _ in range(2):  # a retried review appends nothing more
        outcome = governance_review.review_hold(
            store.governance,
            firm.org,
            RUN,
            None,
            7,
            utc_now(),
            keys=APPROVAL_KEYS,
            undecodable=problem,
        )
        assert (outcome.review.accepted, outcome.review.rule) == (False, "undecodable_signal")
    (entry,) = [e for e in store.audit.entries(firm.org) if e.rule == "undecodable_signal"]
    assert (entry.actor, entry.intent_id, entry.decision) == ("unknown", None, "review_refused")
    assert entry.payload["run_id"] == RUN and entry.payload["problem"].endswith("\\u0000")
    assert store.audit.verify(firm.org).ok


def _review(store: Store, firm: Firm, request: ApprovalRequest, attempt: int, run_id: str):  # type: ignore[no-untyped-def]
    outcome = governance_review.review_hold(
        store.governance, firm.org, run_id, request, attempt, utc_now(), keys=APPROVAL_KEYS
    )
    return outcome.review, outcome.decision


def test_a_genuine_approval_replayed_onto_a_re_hold_is_refused(store: Store, firm: Firm) -> None:
    """Issue 19.1, as it was reproduced: a confirmed 300,000-cent cap; a 250,000-cent
    payment held for the threshold; a 90,000-cent payment allowed meanwhile. Ada's
    approval of the first is refused and the payment held again for the cap; her signed
    approval, copied from the run's history and sent again, must not pay it (it would
    spend 340,000 against the cap, on a reason she never saw)."""
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "cap", SpendCap(limit_cents=300_000), "letter", projects=("east",)
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    big, small = _pay(firm, 250_000, "run-big"), _pay(firm, 90_000, "run-small")
    first_hold = governance.decide(store.governance, big, utc_now())
    assert first_hold.outcome is Outcome.HOLD and first_hold.rule == "money_over_threshold"
    ada = signed(big, firm.founder, run_id="run-big", now=utc_now(), store=store.governance)
    # a second decision signed for the same first hold, never sent until later
    unsent = signed(big, firm.founder, run_id="run-big", now=utc_now(), store=store.governance)
    assert governance.decide(store.governance, small, utc_now()).outcome is Outcome.ALLOW

    refused, rehold = _review(store, firm, ada, 1, "run-big")
    assert not refused.accepted and refused.rule == "hold_reasons_changed"
    assert rehold is not None and "spend_cap" in rehold.rule

    for attempt in (2, 3):  # the replay, and a replay of the replay
        replayed, latest = _review(store, firm, ada, attempt, "run-big")
        assert (replayed.accepted, replayed.rule) == (False, "proof_spent")
        assert latest is not None and latest.outcome is Outcome.HOLD
    stale, latest = _review(store, firm, unsent, 4, "run-big")
    assert (stale.accepted, stale.rule) == (False, "hold_changed")
    assert latest is not None and latest.outcome is Outcome.HOLD
    assert latest.audit_seq == rehold.audit_seq  # nothing moved the hold

    entries = store.audit.entries(firm.org)
    assert [
        e.rule for e in entries if e.intent_id == big.id and e.decision == "review_refused"
    ] == [
        "hold_reasons_changed",
        "proof_spent",
        "proof_spent",
        "hold_changed",
    ]
    assert not [e for e in entries if e.intent_id == big.id and e.decision == "approved"]
    # shown the cap, Ada may still knowingly approve the hold that is open now, once
    knowing = signed(big, firm.founder, run_id="run-big", now=utc_now(), store=store.governance)
    approved, decision = _review(store, firm, knowing, 5, "run-big")
    assert approved.accepted and decision is not None and decision.outcome is Outcome.APPROVED
    again, _ = _review(store, firm, knowing, 6, "run-big")
    assert (again.accepted, again.rule) == (False, "proof_spent")
    assert store.audit.verify(firm.org).ok


def test_a_retried_review_of_a_genuine_proof_is_answered_as_recorded(
    store: Store, firm: Firm
) -> None:
    """The activity retried after a crash asks with the same attempt: it is the same
    review, not a replay, and appends nothing."""
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    request = signed(intent, firm.founder, now=utc_now(), store=store.governance)
    first, decision = _review(store, firm, request, 1, RUN)
    entries = store.audit.verify(firm.org).entries
    retried, again = _review(store, firm, request, 1, RUN)
    assert first.accepted and retried.accepted and retried.rule == first.rule
    assert decision is not None and again is not None and again.audit_seq == decision.audit_seq
    assert store.audit.verify(firm.org).entries == entries


def test_one_proof_sent_at_once_by_many_is_spent_once(store: Store, firm: Firm) -> None:
    """Six reviews of one genuine approval racing (as many replays as one can send at
    once): exactly one is accepted, the others are refused as spent."""
    intent = _pay(firm, 200_000)
    governance.decide(store.governance, intent, utc_now())
    request = signed(intent, firm.founder, now=utc_now(), store=store.governance)
    results = race([lambda n=n: _review(store, firm, request, n, RUN) for n in range(1, 7)])
    rules = sorted(r[0].rule for r in results)
    assert rules == ["approved_by_authority"] + ["proof_spent"] * 5, rules
    approved = [e for e in store.audit.entries(firm.org) if e.decision == "approved"]
    assert len(approved) == 1
