"""The heartbeat's checks: pure functions of an organization's snapshot and ``now``.

The heartbeat mutates nothing itself. Each finding becomes proposals of the diagnostic
agent (Sentinel), built here deterministically (no model), which go through the broker
like any other intent: :func:`proposals`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from domain.governance.intents import Outcome, ProposedAction
from domain.organization.contracts import (
    Commitment,
    Delivery,
    Frozen,
    SpendCap,
    StandingHold,
    UtcInstant,
)
from domain.organization.kinds import ReviewState

PENDING_LIMIT = timedelta(days=7)
"""An extracted commitment unconfirmed for longer than this needs a human's look."""
PROPOSE_AGAIN_AFTER = timedelta(days=1)
"""A finding Sentinel proposed to file that was not filed (the broker refused it, say:
Sentinel is not staffed where it lies) is proposed again only after this, not at every
heartbeat: the refusal is on the record once a day, not once an hour."""
ENDED = frozenset({"completed", "failed", "canceled", "terminated", "timed_out", "not_found"})
"""Workflow statuses of a run that will run none of its own cleanup any more
(``not_found``: the workflow is gone from Temporal, past its retention)."""
FINDINGS_FILE = "findings.file"
KEYS_CLOSE = "keys.close"
HOLDS_PLACE = "holds.place"
ORPHAN_RULE = "orphaned_by_ended_run"
"""The rule an orphaned intent is closed under, by Sentinel's brokered ``keys.close``."""
HEARTBEAT_RUN_PREFIX = "heartbeat-"
"""The run id of Sentinel's intents in a heartbeat: ``heartbeat-<HeartbeatRun id>``."""


def heartbeat_run_id(intent_run_id: str) -> str | None:
    """The HeartbeatRun an intent was proposed in, or None for an intent of another run."""
    if not intent_run_id.startswith(HEARTBEAT_RUN_PREFIX):
        return None
    return intent_run_id[len(HEARTBEAT_RUN_PREFIX) :]


class CheckKind(StrEnum):
    """What a heartbeat check looks for; a finding's kind."""

    COMMITMENT_EXPIRED = "commitment_expired"
    DELIVERY_OVERDUE = "delivery_overdue"
    CONFIRMATION_PENDING = "confirmation_pending"
    FINDINGS_DISAGREE = "findings_disagree"
    WAITING_ON_HUMAN = "waiting_on_human"
    ORPHANED = "orphaned_by_ended_run"


class Severity(StrEnum):
    """How soon a human should look."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class CommitmentFacts(Frozen):
    """A commitment and when it was recorded (the age of a pending confirmation)."""

    commitment: Commitment
    recorded_at: UtcInstant


class FiledFinding(Frozen):
    """A finding a principal filed (through the broker), as stored."""

    id: str
    """The filing intent's id."""
    org_id: str
    principal_id: str
    kind: str
    subject: str
    cites: str | None = None
    """The commitment it cites, if any."""
    projects: tuple[str, ...] = ()
    filed_at: UtcInstant
    severity: str = ""
    summary: str = ""
    """What the check that found it said."""
    evidence: tuple[str, ...] = ()
    """Ids of the records it rests on (commitments, intents, findings)."""
    resolved_by: str | None = None
    resolved_at: UtcInstant | None = None
    resolution: str = ""
    """Why a human resolved it (once: a second resolution is a conflict)."""


class OpenIntent(Frozen):
    """An intent that still holds something open: a hold, or an operation key."""

    intent_id: str
    run_id: str
    principal_id: str
    tool: str
    status: Outcome
    hold_open: bool
    """True while its hold is open (waiting on a human or on a collision)."""
    rule: str
    """The rule of its newest decision (``collision`` waits on other intents, not people)."""
    keys: tuple[str, ...] = ()
    """Operation keys it holds."""
    reach: tuple[str, ...] = ()
    since: UtcInstant
    """When it was first decided."""
    workflow_id: str | None = None
    """The workflow of its run; None when the run is not a recorded agent run."""
    workflow_status: str | None = None
    """As Temporal says (``running``, ``terminated``…); None when not asked."""


class OrgSnapshot(Frozen):
    """What the checks read of one organization, gathered at one moment."""

    org_id: str
    commitments: tuple[CommitmentFacts, ...] = ()
    findings: tuple[FiledFinding, ...] = ()
    open_intents: tuple[OpenIntent, ...] = ()
    sentinel_id: str | None = None
    """The organization's active diagnostic agent; None: nobody to file findings."""
    sentinel_projects: tuple[str, ...] = ()
    """Projects the diagnostic agent is staffed on now."""
    recently_proposed: tuple[str, ...] = ()
    """Subjects the diagnostic agent proposed to file within :data:`PROPOSE_AGAIN_AFTER`,
    whatever the broker made of them."""
    recently_proposed_holds: tuple[str, ...] = ()
    """Subjects it proposed a standing hold for within :data:`PROPOSE_AGAIN_AFTER`."""
    standing_holds: tuple[StandingHold, ...] = ()
    """Every standing hold placed in the organization, released or not: one per subject
    (a released one stays released: a human decided)."""


class Finding(Frozen):
    """Something a check found: what, about which records, how urgent, and why."""

    kind: CheckKind
    subject: str
    """A stable key of what was found (``commitment_expired:<id>``): the same situation
    found again by a later heartbeat has the same subject, and is filed once."""
    severity: Severity
    summary: str
    evidence: tuple[str, ...] = ()
    """Ids of the records it rests on (commitments, intents, findings)."""
    projects: tuple[str, ...] = ()
    cites: str | None = None
    """The commitment it is about, if any."""
    close_intent: str | None = None
    """For an orphaned hold or key: the intent to close."""
    hold_spending: bool = False
    """Whether spending on its projects should wait for a human until one looks (an
    expired spend cap binds nothing: spending there is uncapped)."""


class CheckResult(Frozen):
    """One check of one heartbeat: how many findings, how long it took."""

    name: CheckKind
    count: int = Field(ge=0)
    duration_ms: float = Field(ge=0)


def _is_confirmed(c: Commitment) -> bool:
    """Confirmed and not yet kept: a commitment the heartbeat watches."""
    return c.state is ReviewState.CONFIRMED and c.fulfilled_at is None


def expired_commitments(snap: OrgSnapshot, now: datetime) -> list[Finding]:
    """Confirmed commitments whose validity window has ended: they bind nothing any more,
    and someone should renew or retire them."""
    return [
        Finding(
            kind=CheckKind.COMMITMENT_EXPIRED,
            subject=f"{CheckKind.COMMITMENT_EXPIRED}:{c.id}",
            severity=Severity.WARNING,
            summary=f"commitment '{c.title}' expired at {c.valid_until.isoformat()}",
            evidence=(c.id,),
            projects=c.projects,
            cites=c.id,
            hold_spending=isinstance(c.constraint, SpendCap),
        )
        for c in (f.commitment for f in snap.commitments)
        if _is_confirmed(c) and c.valid_until is not None and c.valid_until <= now
    ]


def overdue_deliveries(snap: OrgSnapshot, now: datetime) -> list[Finding]:
    """Confirmed delivery obligations whose due date has passed."""
    found = []
    for c in (f.commitment for f in snap.commitments):
        if _is_confirmed(c) and isinstance(c.constraint, Delivery) and c.constraint.due <= now:
            found.append(
                Finding(
                    kind=CheckKind.DELIVERY_OVERDUE,
                    subject=f"{CheckKind.DELIVERY_OVERDUE}:{c.id}",
                    severity=Severity.CRITICAL,
                    summary=f"'{c.constraint.deliverable}' was due "
                    f"{c.constraint.due.isoformat()} ({c.title})",
                    evidence=(c.id,),
                    projects=c.projects,
                    cites=c.id,
                )
            )
    return found


def pending_confirmations(
    snap: OrgSnapshot, now: datetime, limit: timedelta = PENDING_LIMIT
) -> list[Finding]:
    """Extracted commitments waiting for a human's confirmation longer than ``limit``."""
    return [
        Finding(
            kind=CheckKind.CONFIRMATION_PENDING,
            subject=f"{CheckKind.CONFIRMATION_PENDING}:{f.commitment.id}",
            severity=Severity.WARNING,
            summary=f"commitment '{f.commitment.title}' has waited for confirmation since "
            f"{f.recorded_at.isoformat()}",
            evidence=(f.commitment.id,),
            projects=f.commitment.projects,
            cites=f.commitment.id,
        )
        for f in snap.commitments
        if f.commitment.state is ReviewState.EXTRACTED and now - f.recorded_at > limit
    ]


def disagreeing_findings(snap: OrgSnapshot, now: datetime) -> list[Finding]:
    """Findings filed by different principals that cite one commitment: they may say
    different things about it, and a human should reconcile them."""
    by_commitment: dict[str, list[FiledFinding]] = {}
    for f in snap.findings:
        if f.cites is not None and f.resolved_at is None:
            by_commitment.setdefault(f.cites, []).append(f)
    found = []
    for commitment_id, filed in sorted(by_commitment.items()):
        if len({f.principal_id for f in filed}) < 2:
            continue
        projects = tuple(sorted({p for f in filed for p in f.projects}))
        found.append(
            Finding(
                kind=CheckKind.FINDINGS_DISAGREE,
                subject=f"{CheckKind.FINDINGS_DISAGREE}:{commitment_id}",
                severity=Severity.WARNING,
                summary=f"{len(filed)} findings by "
                f"{len({f.principal_id for f in filed})} principals cite commitment "
                f"{commitment_id}",
                evidence=tuple(sorted(f.id for f in filed)),
                projects=projects,
                cites=commitment_id,
            )
        )
    return found


def _ended(o: OpenIntent) -> bool:
    return o.workflow_status is not None and o.workflow_status in ENDED


def waiting_on_humans(snap: OrgSnapshot, now: datetime) -> list[Finding]:
    """Holds of live runs that wait for a person (not for a collision to clear)."""
    return [
        Finding(
            kind=CheckKind.WAITING_ON_HUMAN,
            subject=f"{CheckKind.WAITING_ON_HUMAN}:{o.intent_id}",
            severity=Severity.CRITICAL if now - o.since > PENDING_LIMIT else Severity.INFO,
            summary=f"{o.tool} intent {o.intent_id} has waited on a human since "
            f"{o.since.isoformat()} ({o.rule})",
            evidence=(o.intent_id,),
            projects=o.reach,
        )
        for o in snap.open_intents
        if o.hold_open and not _ended(o) and "collision" not in o.rule.split("+")
    ]


def orphans(snap: OrgSnapshot, now: datetime) -> list[Finding]:
    """Holds and operation keys left open by runs that ended without closing them (a
    workflow terminated from the Temporal UI runs none of its own cleanup)."""
    found = []
    for o in snap.open_intents:
        if not _ended(o):
            continue
        what = "hold" if o.hold_open else "operation key"
        keys = f" ({', '.join(o.keys)})" if o.keys else ""
        found.append(
            Finding(
                kind=CheckKind.ORPHANED,
                subject=f"{CheckKind.ORPHANED}:{o.intent_id}",
                severity=Severity.CRITICAL,
                summary=f"the {what}{keys} of intent {o.intent_id} is open, but its run "
                f"{o.workflow_id} is {o.workflow_status}",
                evidence=(o.intent_id,),
                projects=o.reach,
                close_intent=o.intent_id,
            )
        )
    return found


Check = Callable[[OrgSnapshot, datetime], list[Finding]]

CHECKS: tuple[tuple[CheckKind, Check], ...] = (
    (CheckKind.COMMITMENT_EXPIRED, expired_commitments),
    (CheckKind.DELIVERY_OVERDUE, overdue_deliveries),
    (CheckKind.CONFIRMATION_PENDING, pending_confirmations),
    (CheckKind.FINDINGS_DISAGREE, disagreeing_findings),
    (CheckKind.WAITING_ON_HUMAN, waiting_on_humans),
    (CheckKind.ORPHANED, orphans),
)
"""Every check, in the order a heartbeat runs them."""


def run_checks(
    snap: OrgSnapshot,
    now: datetime,
    timer: Callable[[], float],
    checks: Sequence[tuple[CheckKind, Check]] = CHECKS,
) -> tuple[list[Finding], list[CheckResult]]:
    """Every check over ``snap`` at ``now``: the findings, and per check its count and
    duration as ``timer`` (seconds, monotonic) measures it."""
    findings: list[Finding] = []
    results: list[CheckResult] = []
    for name, check in checks:
        started = timer()
        found = check(snap, now)
        elapsed = max(timer() - started, 0.0) * 1000
        findings.extend(found)
        results.append(CheckResult(name=name, count=len(found), duration_ms=elapsed))
    return findings, results


def proposals(finding: Finding, snap: OrgSnapshot) -> list[ProposedAction]:
    """What Sentinel proposes for ``finding``: file it (unless a finding with its subject
    is on file already, or was proposed lately); for an expired spend cap, a standing hold
    on spending there (once per subject); for an orphaned hold or key, close it. Built
    without a model; the broker decides each like any other agent's proposal. A finding
    that names no project is filed on the projects Sentinel is staffed on."""
    filed = {f.subject for f in snap.findings} | set(snap.recently_proposed)
    projects = finding.projects or snap.sentinel_projects
    why = f"heartbeat check {finding.kind} found: {finding.summary}"
    actions = []
    if finding.subject not in filed:
        actions.append(
            ProposedAction(
                tool=FINDINGS_FILE,
                projects=projects,
                payload={
                    "kind": str(finding.kind),
                    "subject": finding.subject,
                    "severity": str(finding.severity),
                    "summary": finding.summary,
                    "evidence": ",".join(finding.evidence),
                    "cites": finding.cites or "",
                },
                cost_cents=0,
                justification=why,
            )
        )
    held = {h.subject for h in snap.standing_holds} | set(snap.recently_proposed_holds)
    if finding.hold_spending and finding.subject not in held:
        actions.append(
            ProposedAction(
                tool=HOLDS_PLACE,
                projects=projects,
                payload={
                    "subject": finding.subject,
                    "cites": finding.cites or "",
                    "reason": finding.summary,
                },
                cost_cents=0,
                justification=f"{why}; spending there is uncapped until a human looks",
            )
        )
    if finding.close_intent is not None:
        actions.append(
            ProposedAction(
                tool=KEYS_CLOSE,
                projects=projects,
                payload={"intent_id": finding.close_intent, "reason": finding.summary},
                cost_cents=0,
                justification=why,
            )
        )
    return actions


class ProposalOutcome(Frozen):
    """One of Sentinel's proposals for a finding, and what the broker made of it."""

    subject: str
    tool: str
    intent_id: str
    outcome: Outcome
    rule: str
    reason: str = ""
    dispatched: bool = False


class HeartbeatRun(Frozen):
    """One heartbeat over one organization, as recorded: its checks, findings and what
    became of Sentinel's proposals."""

    id: str
    org_id: str
    workflow_id: str
    started_at: UtcInstant
    ended_at: UtcInstant | None = None
    checks: tuple[CheckResult, ...] = ()
    findings: tuple[Finding, ...] = ()
    proposals: tuple[ProposalOutcome, ...] = ()
    gather_ms: float = 0.0
    """How long gathering the snapshot took (database and Temporal reads)."""
    error: str | None = None


def as_read_by(run: HeartbeatRun, readable: frozenset[str] | None) -> HeartbeatRun:
    """``run`` as a reader of ``readable`` projects (None: every project) may see it: the
    findings on projects they may read, Sentinel's proposals for those findings only,
    and each check's count of them (a count of everything would tell them what was found
    where they may not look)."""
    if readable is None:
        return run
    findings = tuple(f for f in run.findings if set(f.projects) <= readable)
    subjects = {f.subject for f in findings}
    checks = tuple(
        c.model_copy(update={"count": sum(1 for f in findings if f.kind == c.name)})
        for c in run.checks
    )
    proposals = tuple(p for p in run.proposals if p.subject in subjects)
    return run.model_copy(update={"findings": findings, "checks": checks, "proposals": proposals})


class HeartbeatInput(Frozen):
    """Start a heartbeat: over one organization, or (None) over every one."""

    org_id: str | None = None


class OrgList(Frozen):
    """The organizations a heartbeat visits."""

    org_ids: tuple[str, ...] = ()


class InspectRequest(Frozen):
    """Gather one organization's snapshot and run the checks, as of ``now`` (the
    workflow's time, so that a test's skipped clock is the checks' clock)."""

    org_id: str
    run_id: str
    workflow_id: str
    now: UtcInstant


class Inspection(Frozen):
    """The run as recorded with its findings, and of the snapshot the checks read what
    Sentinel's proposals need (its identity and projects, the subjects on file)."""

    snapshot: OrgSnapshot
    run: HeartbeatRun


class HeartbeatReport(Frozen):
    """A heartbeat's result: one run per organization visited."""

    runs: tuple[HeartbeatRun, ...] = ()
