"""The ladder a human's approve or deny climbs before it counts.

Each rung refuses with its own rule, on the record: a malformed request, a decision the
API did not sign (no proof, an unknown key, a forged, future or stale proof: see
:mod:`domain.governance.approvals`), a proof already spent by an earlier review, an
intent that is not held, a request sent to another run, a hold already closed, a
decision signed for another hold than the one now open, an unknown or inactive or
non-human approver, self-approval, missing approval authority. An approval that passes
is then re-checked against the broker's decision *now* (:func:`reconfirm`): a human
answers only the reasons the hold showed them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from domain.audit.chain import AuditEntry
from domain.governance.approvals import UNPROVEN, ApprovalKeys, Decided, refusal
from domain.governance.broker import current_projects
from domain.governance.intents import (
    ApprovalRequest,
    ApprovalVerdict,
    Decision,
    Outcome,
    held_decision,
)
from domain.governance.values import HoldState, ReviewResult, StoredIntent
from domain.organization.contracts import Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from domain.words import projects_named

NOT_BY_HUMAN = frozenset({"collision"})
"""Hold rules no human may release: only the other intents' completing does."""


def refused(rule: str, reason: str) -> ReviewResult:
    """A refused review."""
    return ReviewResult(accepted=False, outcome=None, rule=rule, reason=reason)


def decided(request: ApprovalRequest, run_id: str) -> Decided:
    """What a proof of ``request`` sent to run ``run_id`` must cover."""
    return Decided(
        run_id=run_id,
        intent_id=request.intent_id,
        intent_digest=request.intent_digest,
        approver_id=request.approver_id,
        verdict=request.verdict.value,
        reason=request.reason,
        hold=request.hold,
    )


def spends_proof(result: ReviewResult) -> bool:
    """Whether the review that came to ``result`` read a genuine proof (it passed the proof
    rung of :func:`review`), and so spent it."""
    return result.rule not in UNPROVEN and result.rule not in {"malformed_request", "proof_spent"}


def review(
    request: ApprovalRequest,
    *,
    run_id: str,
    keys: ApprovalKeys,
    held: StoredIntent | None,
    malformed: str | None,
    approver: Principal | None,
    approver_staffing: tuple[Staffing, ...],
    now: datetime,
    spent: AuditEntry | None = None,
    project_names: Mapping[str, str] | None = None,
) -> ReviewResult:
    """Accept a human decision only when the API signed it (for this run, intent, digest,
    approver, verdict, reason and hold), once (``spent`` is the review that already read
    this proof, if one did), on the open hold it was signed for, from an active human
    approver on every project the intent reaches (``project_names``: what a refusal calls
    them)."""
    if malformed is not None:
        return refused("malformed_request", malformed)
    # Before anything else: what an unsigned request says (its approver, its intent) is
    # only a claim, and the rungs below would otherwise answer questions about it.
    unproven = refusal(keys, decided(request, run_id), request.proof, now)
    if unproven is not None:
        return refused(*unproven)
    if spent is not None:
        return refused(
            "proof_spent",
            f"this signed decision was already used (audit entry {spent.seq}): "
            "a decision answers its hold once; decide again",
        )
    if held is None or held.hold is None:
        return refused("not_held", "no such held intent")
    intent = held.intent
    if held.run_id != run_id:
        return refused("wrong_run", "the intent belongs to another run")
    if held.hold is not HoldState.OPEN:
        return refused("hold_closed", f"hold is {held.hold}")
    if request.intent_id != intent.id:
        return refused("wrong_intent", "the request names another intent")
    if request.intent_digest != intent.digest:
        return refused("digest_mismatch", "the request is bound to a different intent content")
    changed = hold_change(request, held.latest)
    if changed is not None:
        return changed
    if approver is None or approver.org_id != intent.org_id:
        return refused("unknown_approver", "the approver is not in this organization")
    if approver.kind is not PrincipalKind.HUMAN:
        return refused("approver_not_human", "only a human may decide a hold")
    if approver.status is not PrincipalStatus.ACTIVE:
        return refused("approver_inactive", f"{approver.handle} is {approver.status}")
    since = approver.status_since
    if request.proof is not None and since is not None and request.proof.signed_at < since:
        # decided before they were suspended and brought back: what they decided then
        # does not come back with them
        return refused(
            "approver_returned", f"{approver.handle} decided this before leaving: decide again"
        )
    if approver.id == intent.principal_id:
        return refused("self_approval", "a principal may not approve its own intent")
    lacking = authority_refusal(approver, approver_staffing, held.reach, now, project_names)
    if lacking is not None:
        return lacking
    if request.verdict is ApprovalVerdict.APPROVE:
        return ReviewResult(
            accepted=True,
            outcome=Outcome.APPROVED,
            rule="approved_by_authority",
            reason=request.reason or f"approved by {approver.handle}",
        )
    return ReviewResult(
        accepted=True,
        outcome=Outcome.DENIED,
        rule="denied_by_authority",
        reason=request.reason or f"denied by {approver.handle}",
    )


def hold_change(request: ApprovalRequest, latest: Decision) -> ReviewResult | None:
    """Refused unless ``request`` answers ``latest``, the hold now open: the same audit
    entry, rule and evidence (``hold_unbound`` for a request that names no hold)."""
    if request.hold is None:
        return refused(
            "hold_unbound",
            "the decision names no hold it answers: decide again through the API",
        )
    if latest.audit_seq is None or request.hold != held_decision(latest):
        return refused(
            "hold_changed",
            "it was held again after you looked: decide again on what it shows now "
            f"(your decision answered audit entry {request.hold.audit_seq}; the hold open now "
            f"is entry {latest.audit_seq})",
        )
    return None


def authority_refusal(
    approver: Principal,
    staffing: tuple[Staffing, ...],
    reach: tuple[str, ...],
    now: datetime,
    project_names: Mapping[str, str] | None = None,
) -> ReviewResult | None:
    """Refused (``no_approval_authority``) unless ``approver`` is staffed as approver, now,
    on every project of ``reach`` (a hold that reaches nothing no one may decide), said
    with the person's and the projects' names. The web console asks it before a person
    sends an approval, to say why it would be refused."""
    authority = current_projects(staffing, now, StaffRole.APPROVER, approver.id)
    missing = set(reach) - authority
    if not reach:
        return refused("no_approval_authority", "it names no project, so no one may approve it")
    if missing:
        who = approver.display_name or approver.handle
        where = projects_named(missing, project_names or {})
        return refused("no_approval_authority", f"{who} does not approve for {where}")
    return None


def reconfirm(held: Decision, now: Decision) -> ReviewResult | None:
    """Whether an approval of the hold ``held`` still stands, given ``now``, the broker's
    decision on the same intent at approval time. None when it stands.

    An approval answers the reasons the hold showed. It is refused when the intent
    would now be rejected (the agent was unstaffed, the budget is spent…), when it now
    needs a human for a reason the hold did not show (another spend took the cap), when
    it rests on evidence the hold did not show (the invoice was paid again meanwhile),
    and when it still waits for something no human may waive (a collision).
    """
    if now.outcome is Outcome.REJECT:
        return refused(now.rule, f"re-checked at approval, the broker now rejects it: {now.reason}")
    if now.outcome is not Outcome.HOLD:
        return None
    rules = set(now.rule.split("+"))
    waiting = rules & NOT_BY_HUMAN
    if waiting:
        return refused(
            "not_releasable_by_a_human",
            f"it still waits for something no person can release: {now.reason}",
        )
    new = rules - set(held.rule.split("+"))
    if new:
        return refused(
            "hold_reasons_changed", f"something new stops it since you looked: {now.reason}"
        )
    unseen = set(now.evidence) - set(held.evidence)
    if unseen:
        return refused(
            "hold_reasons_changed",
            f"more has happened since you looked that bears on it: {now.reason}",
        )
    return None
