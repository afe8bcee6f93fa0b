"""The broker's re-check of a human approve/deny on a held intent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit.chain import AuditEntry
from domain.governance.approvals import ApprovalKey, ApprovalKeys, ApprovalProof, sign
from domain.governance.intents import (
    ApprovalRequest,
    ApprovalVerdict,
    Decision,
    Intent,
    Outcome,
    Stage,
    held_decision,
)
from domain.governance.review import decided, reconfirm, review, spends_proof
from domain.governance.values import HoldState, ReviewResult, StoredIntent
from domain.organization.contracts import Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole

NOW = datetime(2025, 6, 2, 9, 30, tzinfo=UTC)
KEYS = ApprovalKeys(current=ApprovalKey(bytes(range(32))))
ORG = "org-hv"
REACH = ("east", "west")

AGENT = Principal(
    id="p-ledger", org_id=ORG, kind=PrincipalKind.AGENT, handle="ledger", display_name="Ledger"
)
ADA = Principal(id="p-ada", org_id=ORG, kind=PrincipalKind.HUMAN, handle="ada", display_name="Ada")

INTENT = Intent(
    id="i-1",
    org_id=ORG,
    run_id="run-1",
    principal_id=AGENT.id,
    tool="payments.pay",
    projects=REACH,
    payload={
        "payee": "acme",
        "invoice": "inv-7",
        "amount_cents": 250_000,
        "currency": "USD",
        "memo": "retainer",
    },
    cost_cents=250_000,
    justification="due this week",
)

_ids = count(1)


def row(
    project: str,
    role: StaffRole = StaffRole.APPROVER,
    *,
    who: Principal = ADA,
    valid_from: datetime = NOW - timedelta(days=30),
    valid_until: datetime | None = None,
) -> Staffing:
    return Staffing(
        id=f"s-{next(_ids)}",
        principal_id=who.id,
        project=project,
        role=role,
        valid_from=valid_from,
        valid_until=valid_until,
    )


def approver_on(*projects: str, who: Principal = ADA) -> tuple[Staffing, ...]:
    return tuple(row(p, who=who) for p in projects)


def request(
    verdict: ApprovalVerdict = ApprovalVerdict.APPROVE,
    *,
    intent: Intent = INTENT,
    approver: Principal = ADA,
    digest: str | None = None,
    intent_id: str | None = None,
    reason: str = "",
) -> ApprovalRequest:
    return ApprovalRequest(
        intent_id=intent_id or intent.id,
        approver_id=approver.id,
        verdict=verdict,
        intent_digest=digest if digest is not None else intent.digest,
        reason=reason,
        hold=held_decision(HOLD),
    )


HOLD = Decision(
    intent_id=INTENT.id,
    outcome=Outcome.HOLD,
    stage=Stage.APPROVAL,
    rule="money_over_threshold",
    reason="over",
    reach=REACH,
    audit_seq=12,
    entry_hash="e" * 64,
)
"""The hold the requests answer, as recorded."""


def held(
    intent: Intent = INTENT,
    reach: tuple[str, ...] = REACH,
    hold: HoldState | None = HoldState.OPEN,
    run_id: str = "run-1",
    latest: Decision = HOLD,
) -> StoredIntent:
    decision = latest.model_copy(update={"intent_id": intent.id, "reach": reach})
    return StoredIntent(
        intent=intent,
        run_id=run_id,
        status=Outcome.HOLD,
        dispatched=False,
        hold=hold,
        latest=decision,
        reach=reach,
    )


def run(
    req: ApprovalRequest,
    *,
    approver: Principal | None = ADA,
    staffing: tuple[Staffing, ...] | None = None,
    intent: Intent = INTENT,
    reach: tuple[str, ...] = REACH,
    stored: StoredIntent | None = None,
    run_id: str = "run-1",
    malformed: str | None = None,
    signed: bool = True,
    spent: AuditEntry | None = None,
) -> ReviewResult:
    """Review ``req`` as run ``run_id`` receives it; unless told otherwise, with the proof
    the API would sign for that run (so that the rungs after the proof are reached)."""
    if signed and req.proof is None:
        req = req.model_copy(update={"proof": sign(KEYS, decided(req, run_id), NOW)})
    return review(
        req,
        run_id=run_id,
        keys=KEYS,
        held=stored if stored is not None else held(intent, reach),
        malformed=malformed,
        approver=approver,
        approver_staffing=approver_on(*REACH) if staffing is None else staffing,
        now=NOW,
        spent=spent,
    )


def refused(result: ReviewResult, rule: str) -> ReviewResult:
    assert (result.accepted, result.outcome, result.rule) == (False, None, rule), result
    return result


# --- accepted ----------------------------------------------------------------------------


def test_an_approver_on_every_project_of_reach_approves() -> None:
    result = run(request(ApprovalVerdict.APPROVE))
    assert result == ReviewResult(
        accepted=True, outcome=Outcome.APPROVED, rule="approved_by_authority", reason=result.reason
    )
    assert "ada" in result.reason


def test_an_approver_on_every_project_of_reach_denies() -> None:
    result = run(request(ApprovalVerdict.DENY))
    assert (result.accepted, result.outcome, result.rule) == (
        True,
        Outcome.DENIED,
        "denied_by_authority",
    )


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_the_approvers_reason_is_kept(verdict: ApprovalVerdict) -> None:
    result = run(request(verdict, reason="checked against the MSA"))
    assert result.accepted
    assert result.reason == "checked against the MSA"


def test_extra_and_stale_rows_do_not_hurt_a_current_approver() -> None:
    staffing = (
        row("east", valid_until=NOW - timedelta(days=1)),
        row("east"),
        row("west", StaffRole.MEMBER),
        row("west", valid_from=NOW),
        row("north"),
    )
    assert run(request(), staffing=staffing).outcome is Outcome.APPROVED


def test_an_approver_staffing_ending_later_is_current() -> None:
    staffing = tuple(row(p, valid_until=NOW + timedelta(seconds=1)) for p in REACH)
    assert run(request(), staffing=staffing).accepted


# --- refused -----------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_a_digest_of_other_content_is_refused(verdict: ApprovalVerdict) -> None:
    other = INTENT.model_copy(
        update={"cost_cents": 1, "payload": {**INTENT.payload, "amount_cents": 1}}
    )
    refused(run(request(verdict, digest=other.digest)), "digest_mismatch")
    refused(run(request(verdict, digest="")), "digest_mismatch")
    refused(run(request(verdict, digest=INTENT.digest.upper())), "digest_mismatch")


def test_a_request_approved_before_the_intent_changed_is_refused() -> None:
    req = request()
    changed = INTENT.model_copy(update={"payload": {**INTENT.payload, "payee": "mallory"}})
    refused(run(req, intent=changed), "digest_mismatch")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_a_request_for_another_intent_is_refused(verdict: ApprovalVerdict) -> None:
    refused(run(request(verdict, intent_id="i-2")), "wrong_intent")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_an_approver_from_another_org_is_refused(verdict: ApprovalVerdict) -> None:
    stranger = ADA.model_copy(update={"id": "p-eve", "org_id": "org-other"})
    result = run(
        request(verdict, approver=stranger),
        approver=stranger,
        staffing=approver_on(*REACH, who=stranger),
    )
    refused(result, "unknown_approver")


def test_an_unknown_approver_is_refused() -> None:
    refused(run(request(), approver=None), "unknown_approver")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_an_agent_approver_is_refused(verdict: ApprovalVerdict) -> None:
    bot = AGENT.model_copy(update={"id": "p-orion", "handle": "orion"})
    result = run(
        request(verdict, approver=bot), approver=bot, staffing=approver_on(*REACH, who=bot)
    )
    refused(result, "approver_not_human")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_a_suspended_human_is_refused(verdict: ApprovalVerdict) -> None:
    suspended = ADA.model_copy(update={"status": PrincipalStatus.SUSPENDED})
    refused(run(request(verdict), approver=suspended), "approver_inactive")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_self_approval_is_refused(verdict: ApprovalVerdict) -> None:
    own = INTENT.model_copy(update={"principal_id": ADA.id})
    refused(run(request(verdict, intent=own), intent=own), "self_approval")


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
def test_member_staffing_is_not_approval_authority(verdict: ApprovalVerdict) -> None:
    staffing = tuple(row(p, StaffRole.MEMBER) for p in REACH)
    refused(run(request(verdict), staffing=staffing), "no_approval_authority")


@pytest.mark.parametrize(
    "window",
    [
        pytest.param((NOW - timedelta(days=30), NOW - timedelta(seconds=1)), id="expired"),
        pytest.param((NOW - timedelta(days=30), NOW), id="ends-now"),
        pytest.param((NOW + timedelta(seconds=1), None), id="not-yet"),
    ],
)
def test_approver_staffing_outside_its_window_is_refused(
    window: tuple[datetime, datetime | None],
) -> None:
    valid_from, valid_until = window
    staffing = (
        row("east"),
        row("west", valid_from=valid_from, valid_until=valid_until),
    )
    result = run(request(), staffing=staffing)
    refused(result, "no_approval_authority")
    assert "west" in result.reason


@pytest.mark.parametrize("verdict", list(ApprovalVerdict))
@pytest.mark.parametrize("only", REACH)
def test_an_approver_on_one_of_two_projects_is_refused(verdict: ApprovalVerdict, only: str) -> None:
    result = run(request(verdict), staffing=approver_on(only))
    refused(result, "no_approval_authority")
    missing = next(p for p in REACH if p != only)
    assert missing in result.reason


def test_no_staffing_at_all_is_refused() -> None:
    refused(run(request(), staffing=()), "no_approval_authority")


def test_an_empty_reach_is_refused() -> None:
    refused(run(request(), reach=()), "no_approval_authority")


# --- property ------------------------------------------------------------------------------

PROJECTS = ("east", "west", "north")

windows = st.sampled_from(
    [
        (NOW - timedelta(days=9), None, True),
        (NOW - timedelta(days=9), NOW + timedelta(days=1), True),
        (NOW, None, True),
        (NOW - timedelta(days=9), NOW, False),
        (NOW - timedelta(days=9), NOW - timedelta(days=1), False),
        (NOW + timedelta(microseconds=1), None, False),
    ]
)
rows = st.tuples(st.sampled_from(PROJECTS), st.sampled_from(list(StaffRole)), windows)


@settings(max_examples=200, deadline=None)
@given(
    reach=st.sets(st.sampled_from(PROJECTS), min_size=1).map(lambda s: tuple(sorted(s))),
    staffing=st.lists(rows, max_size=6),
    verdict=st.sampled_from(list(ApprovalVerdict)),
)
def test_accepted_iff_a_current_approver_on_every_project_of_reach(
    reach: tuple[str, ...],
    staffing: list[tuple[str, StaffRole, tuple[datetime, datetime | None, bool]]],
    verdict: ApprovalVerdict,
) -> None:
    rows_ = tuple(
        row(project, role, valid_from=start, valid_until=end)
        for project, role, (start, end, _) in staffing
    )
    authority = {
        project
        for project, role, (_, _, current) in staffing
        if current and role is StaffRole.APPROVER
    }
    result = run(request(verdict), staffing=rows_, reach=reach)
    if set(reach) <= authority:
        expected = Outcome.APPROVED if verdict is ApprovalVerdict.APPROVE else Outcome.DENIED
        assert (result.accepted, result.outcome) == (True, expected)
    else:
        refused(result, "no_approval_authority")


# --- the ladder's first rungs ------------------------------------------------------------


def test_a_malformed_request_is_refused_first() -> None:
    refused(run(request(), malformed="approver_id contains a NUL"), "malformed_request")


def test_a_decision_without_the_apis_proof_is_refused_before_anything_else() -> None:
    """Sent straight to Temporal it names an approver, but proves nothing: refused even
    for an approver who could decide, and before the hold is looked at."""
    refused(run(request(), signed=False), "missing_proof")
    refused(run(request(), signed=False, stored=held(hold=None)), "missing_proof")
    refused(run(request(), signed=False, malformed="a NUL"), "malformed_request")


def test_a_proof_for_another_run_approver_or_verdict_is_forged() -> None:
    for_run_2 = sign(KEYS, decided(request(), "run-2"), NOW)
    refused(run(request().model_copy(update={"proof": for_run_2})), "forged_proof")
    ben = Principal(
        id="p-ben", org_id=ORG, kind=PrincipalKind.HUMAN, handle="ben", display_name="Ben"
    )
    ada_proof = sign(KEYS, decided(request(), "run-1"), NOW)
    as_ben = request(approver=ben).model_copy(update={"proof": ada_proof})
    refused(run(as_ben, approver=ben, staffing=approver_on(*REACH, who=ben)), "forged_proof")
    as_deny = request(ApprovalVerdict.DENY).model_copy(update={"proof": ada_proof})
    refused(run(as_deny), "forged_proof")


def test_a_proof_signed_with_an_unknown_key_is_refused() -> None:
    other = ApprovalKeys(current=ApprovalKey(b"\x01" * 32))
    proof = sign(other, decided(request(), "run-1"), NOW)
    refused(run(request().model_copy(update={"proof": proof})), "unknown_proof_key")
    bogus = ApprovalProof(key_id=KEYS.current.key_id, signed_at=NOW, signature="0" * 64)
    refused(run(request().model_copy(update={"proof": bogus})), "forged_proof")


def test_an_intent_never_held_is_not_held() -> None:
    refused(run(request(), stored=held(hold=None)), "not_held")


def test_a_request_sent_to_another_run_is_refused() -> None:
    refused(run(request(), run_id="run-2"), "wrong_run")


@pytest.mark.parametrize("state", [s for s in HoldState if s is not HoldState.OPEN])
def test_a_closed_hold_cannot_be_decided(state: HoldState) -> None:
    refused(run(request(), stored=held(hold=state)), "hold_closed")


def _hold(rule: str, evidence: tuple[str, ...] = ()) -> Decision:
    return Decision(
        intent_id=INTENT.id,
        outcome=Outcome.HOLD,
        stage=Stage.COLLISIONS,
        rule=rule,
        reason=rule,
        evidence=evidence,
    )


def test_no_human_may_approve_past_a_collision() -> None:
    """A collision waits for the other intents to complete: approving it would let two
    writes to one resource happen at once."""
    result = reconfirm(_hold("collision", ("i-a",)), _hold("collision", ("i-a",)))
    assert result is not None and result.rule == "not_releasable_by_a_human"


def test_an_approval_stands_on_the_evidence_it_was_shown() -> None:
    assert reconfirm(_hold("already_done", ("i-a",)), _hold("already_done", ("i-a",))) is None
    grown = reconfirm(_hold("already_done", ("i-a",)), _hold("already_done", ("i-a", "i-b")))
    assert (
        grown is not None
        and grown.rule == "hold_reasons_changed"
        and "since you looked" in grown.reason
    )


def test_a_changed_copy_of_an_intent_has_its_own_digest() -> None:
    """The digest is computed once per intent; a copy with changes must not inherit it."""
    original = INTENT.digest
    changed = INTENT.model_copy(update={"payload": {**INTENT.payload, "payee": "mallory"}})
    assert changed.digest != original
    assert INTENT.model_copy().digest == original
    assert Intent.model_validate(changed.model_dump()).digest == changed.digest


# --- a decision answers one hold, once ----------------------------------------------------


def _spent_entry(seq: int = 40) -> AuditEntry:
    return AuditEntry(
        org_id=ORG,
        seq=seq,
        at=NOW.isoformat(),
        event_key="proof:" + "0" * 32,
        actor=ADA.id,
        intent_id=INTENT.id,
        decision="review_refused",
        stage="review",
        rule="hold_reasons_changed",
        payload={},
        prev_hash="0" * 64,
        entry_hash="1" * 64,
    )


def test_a_proof_already_read_by_a_review_is_spent() -> None:
    """A genuine proof, copied from the run's history and sent again, is refused whatever
    it says, for an approver who could decide, before the hold is looked at."""
    result = refused(run(request(), spent=_spent_entry()), "proof_spent")
    assert "entry 40" in result.reason
    refused(run(request(), spent=_spent_entry(), stored=held(hold=None)), "proof_spent")
    # an unsigned copy proves nothing first: it is refused as such, and spends nothing
    refused(run(request(), signed=False, spent=_spent_entry()), "missing_proof")


@pytest.mark.parametrize(
    "later",
    [
        {"audit_seq": 13, "entry_hash": "f" * 64},  # a re-hold: another entry
        {"audit_seq": 13, "entry_hash": "f" * 64, "rule": "money_over_threshold+spend_cap"},
        {"evidence": ("i-0",)},  # the same entry number, other evidence: not what was shown
        {"entry_hash": "f" * 64},
    ],
)
def test_a_decision_signed_for_another_hold_is_refused(later: dict[str, object]) -> None:
    """The hold it answers is part of what it proves: once the hold open is another (a
    re-hold for the cap), the decision is refused, and says which hold it answered."""
    now_open = held(latest=HOLD.model_copy(update=later))
    result = refused(run(request(), stored=now_open), "hold_changed")
    assert "entry 12" in result.reason
    refused(run(request(ApprovalVerdict.DENY), stored=now_open), "hold_changed")


def test_a_decision_that_names_no_hold_is_refused() -> None:
    unbound = request().model_copy(update={"hold": None})
    refused(run(unbound), "hold_unbound")


@given(
    seq=st.integers(min_value=0, max_value=10**6),
    rule=st.sampled_from(["money_over_threshold", "spend_cap", "already_done", "x+y"]),
    evidence=st.lists(st.sampled_from(["i-0", "i-1", "i-2"]), max_size=3, unique=True),
)
@settings(max_examples=60)
def test_accepted_only_for_the_very_hold_it_answers(
    seq: int, rule: str, evidence: list[str]
) -> None:
    latest = HOLD.model_copy(update={"audit_seq": seq, "rule": rule, "evidence": tuple(evidence)})
    result = run(request(), stored=held(latest=latest))
    same = latest == HOLD
    assert result.accepted is same
    if not same:
        assert result.rule == "hold_changed"


def test_a_review_spends_the_proof_it_read_and_no_other() -> None:
    """Whatever it decides, a review that verified the proof spent it; one refused for its
    proof (or for a spent one) read no proof of its own."""
    assert spends_proof(run(request()))
    assert spends_proof(run(request(), stored=held(hold=None)))  # not_held: it was read
    assert spends_proof(run(request(), staffing=()))  # no authority: read all the same
    assert not spends_proof(run(request(), signed=False))
    assert not spends_proof(run(request(), malformed="a NUL"))
    assert not spends_proof(run(request(), spent=_spent_entry()))
    forged = request().model_copy(
        update={
            "proof": ApprovalProof(key_id=KEYS.current.key_id, signed_at=NOW, signature="0" * 64)
        }
    )
    assert not spends_proof(run(forged))
