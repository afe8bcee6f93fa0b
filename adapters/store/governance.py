"""The broker's transactions: snapshot, decide, persist and audit, atomically.

Every decision of an organization runs under that organization's audit-head row
lock (SQLite: the database write lock), so the snapshot a decision reads cannot
change under it: spend caps cannot be overrun by two concurrent intents, operation
keys cannot be double-booked, and the chain cannot fork.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.audit_log import append, lock_head
from adapters.store.db import utc
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditEntryRow,
    BarrierRow,
    CharterRow,
    ClaimRow,
    CommitmentRow,
    DecisionRow,
    HoldRow,
    IntentRow,
    MemoryNodeRow,
    PrincipalRow,
    ProjectRow,
    StaffingRow,
)
from domain.audit import AuditDraft, AuditEntry, ChainKeys, entry_problem
from domain.broker import BrokerSnapshot, ReviewResult, operation_key, reconfirm, spend_of
from domain.intents import (
    ApprovalRequest,
    Decision,
    DispatchResult,
    DispatchToken,
    Intent,
    Outcome,
    Stage,
)
from domain.model import Principal, SpendCap, Staffing
from domain.ports import ClaimRegistry
from domain.text import nul_at
from domain.tools import REGISTRY

Policy = Callable[[Intent, BrokerSnapshot, ClaimRegistry], Decision]
ReviewPolicy = Callable[..., ReviewResult]

SPENDING = (Outcome.ALLOW.value, Outcome.APPROVED.value)


def _refusal(rule: str, reason: str) -> ReviewResult:
    return ReviewResult(accepted=False, outcome=None, rule=rule, reason=reason)


class FoundationBroken(RuntimeError):
    """A dispatch invariant failed: the audit foundation cannot be trusted."""


class _Claims:
    """Claim registry bound to the decision's transaction."""

    def __init__(self, session: Session, org_id: str, now: datetime) -> None:
        self._s, self._org, self._now = session, org_id, now

    def claim(self, key: str, intent_id: str) -> str | None:
        row = self._s.get(ClaimRow, (self._org, key))
        if row is not None:
            return row.intent_id
        self._s.add(ClaimRow(org_id=self._org, key=key, intent_id=intent_id, claimed_at=self._now))
        self._s.flush()
        return None


def _release_claims(s: Session, org_id: str, intent_id: str) -> None:
    """Release the in-flight keys of an intent that is done, or will not write."""
    s.execute(
        delete(ClaimRow).where(col(ClaimRow.org_id) == org_id, col(ClaimRow.intent_id) == intent_id)
    )


def _principal_and_staffing(
    s: Session, principal_id: str
) -> tuple[Principal | None, tuple[Staffing, ...]]:
    row = s.get(PrincipalRow, principal_id)
    if row is None:
        return None, ()
    staffing = s.execute(
        select(StaffingRow).where(col(StaffingRow.principal_id) == principal_id)
    ).scalars()
    return convert.principal(row), tuple(convert.staffing(r) for r in staffing)


def _snapshot(s: Session, intent: Intent, now: datetime) -> BrokerSnapshot:
    org = intent.org_id
    principal, staffing = _principal_and_staffing(s, intent.principal_id)
    if principal is not None and principal.org_id != org:
        principal, staffing = None, ()
    d = (
        s.execute(
            select(AgentDefinitionRow)
            .where(col(AgentDefinitionRow.principal_id) == intent.principal_id)
            .order_by(col(AgentDefinitionRow.version).desc())
        )
        .scalars()
        .first()
    )
    c = (
        s.execute(
            select(CharterRow)
            .where(col(CharterRow.principal_id) == intent.principal_id)
            .order_by(col(CharterRow.version).desc())
        )
        .scalars()
        .first()
    )
    commitments = tuple(
        convert.commitment(r)
        for r in s.execute(select(CommitmentRow).where(col(CommitmentRow.org_id) == org)).scalars()
    )
    # Only intents that moved money matter to budgets and caps.
    spending = [
        r
        for r in s.execute(
            select(IntentRow).where(
                col(IntentRow.org_id) == org,
                col(IntentRow.status).in_(SPENDING),
                col(IntentRow.spend_cents) > 0,
            )
        ).scalars()
        if r.id != intent.id
    ]
    committed: dict[str, int] = {}
    for cm in commitments:
        if isinstance(cm.constraint, SpendCap) and cm.binds(now):
            committed[cm.id] = sum(
                r.spend_cents
                for r in spending
                if cm.covers(frozenset(r.reach))
                and cm.valid_from <= utc(r.created_at)
                and (cm.valid_until is None or utc(r.created_at) < cm.valid_until)
            )
    records = {
        r.ref: tuple(r.projects)
        for r in s.execute(
            select(MemoryNodeRow).where(
                col(MemoryNodeRow.org_id) == org,
                col(MemoryNodeRow.ref).in_(intent.references),
            )
        ).scalars()
    }
    return BrokerSnapshot(
        now=now,
        principal=principal,
        definition=None if d is None else convert.definition(d),
        charter=None if c is None else convert.charter(c),
        projects=frozenset(
            s.execute(select(col(ProjectRow.slug)).where(col(ProjectRow.org_id) == org)).scalars()
        ),
        staffing=staffing,
        barriers=tuple(
            convert.barrier(r)
            for r in s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == org)).scalars()
        ),
        commitments=commitments,
        records=records,
        run_spent_cents=sum(r.spend_cents for r in spending if r.run_id == intent.run_id),
        committed_spend=committed,
        in_flight=_claim_on(s, org, intent),
        completed=_done_on(s, org, intent),
    )


def _op_key(intent: Intent) -> str | None:
    tool = REGISTRY.get(intent.tool)
    return None if tool is None else operation_key(tool, intent.payload)


def _claim_on(s: Session, org_id: str, intent: Intent) -> dict[str, str]:
    """The claim on this intent's operation key, and the intent holding it."""
    key = _op_key(intent)
    row = None if key is None else s.get(ClaimRow, (org_id, key))
    return {} if row is None else {row.key: row.intent_id}


def _done_on(s: Session, org_id: str, intent: Intent) -> dict[str, tuple[str, ...]]:
    """For a write that may not be repeated: the intents that already did it."""
    tool = REGISTRY.get(intent.tool)
    key = _op_key(intent)
    if tool is None or tool.repeatable or key is None:
        return {}
    done = s.execute(
        select(col(IntentRow.id))
        .where(
            col(IntentRow.org_id) == org_id,
            col(IntentRow.op_key) == key,
            col(IntentRow.dispatched),
        )
        .order_by(col(IntentRow.created_at))
    ).scalars()
    ids = tuple(done)
    return {key: ids} if ids else {}


def _decision_payload(intent: Intent, decision: Decision) -> dict[str, Any]:
    return {
        "intent": intent.model_dump(mode="json"),
        "intent_digest": intent.digest,
        "reason": decision.reason,
        "release": list(decision.release),
        "reach": list(decision.reach),
        "evidence": list(decision.evidence),
    }


def _record_decision(
    s: Session,
    intent: Intent,
    decision: Decision,
    draft: AuditDraft,
    now: datetime,
    keys: ChainKeys,
) -> Decision:
    entry = append(s, intent.org_id, draft, now, keys)
    decision = decision.model_copy(
        update={
            "audit_seq": entry.seq,
            "entry_hash": entry.entry_hash,
            "intent_digest": intent.digest,
        }
    )
    s.add(
        DecisionRow(
            org_id=intent.org_id,
            intent_id=intent.id,
            outcome=decision.outcome,
            stage=decision.stage,
            rule=decision.rule,
            reason=decision.reason,
            release=list(decision.release),
            reach=list(decision.reach),
            evidence=list(decision.evidence),
            intent_digest=intent.digest,
            audit_seq=entry.seq,
            entry_hash=entry.entry_hash,
            decided_at=now,
        )
    )
    return decision


def _record_broker_decision(
    s: Session,
    intent: Intent,
    decision: Decision,
    event_key: str,
    actor: str,
    now: datetime,
    keys: ChainKeys,
) -> Decision:
    """Persist and audit a decision the broker's stages produced."""
    draft = AuditDraft(
        event_key=event_key,
        actor=actor,
        intent_id=intent.id,
        decision=decision.outcome,
        stage=decision.stage,
        rule=decision.rule,
        payload=_decision_payload(intent, decision),
    )
    return _record_decision(s, intent, decision, draft, now, keys)


def record_dispatch(
    s: Session, org_id: str, result: DispatchResult, now: datetime, keys: ChainKeys
) -> AuditEntry:
    """Record a connector's write inside the connector's own transaction, so that the
    write and its record commit together or not at all. The intent's operation key is
    released; a write that may not be repeated (an invoice is paid once) is found again by
    its intent's ``op_key``. The caller holds the organization's lock."""
    row = s.get(IntentRow, result.intent_id)
    if row is not None:
        row.dispatched = True
        s.add(row)
    _release_claims(s, org_id, result.intent_id)
    return append(
        s,
        org_id,
        AuditDraft(
            event_key=f"dispatch:{result.intent_id}",
            actor=f"connector:{result.system}",
            intent_id=result.intent_id,
            decision="dispatched",
            stage=Stage.DISPATCH,
            rule=f"{result.system}.{result.action}",
            payload=result.model_dump(mode="json"),
        ),
        now,
        keys,
    )


def _latest_decision(s: Session, intent_id: str) -> Decision | None:
    row = (
        s.execute(
            select(DecisionRow)
            .where(col(DecisionRow.intent_id) == intent_id)
            .order_by(col(DecisionRow.id).desc())
        )
        .scalars()
        .first()
    )
    return None if row is None else convert.decision(row)


class Governance:
    """The broker's side of the database."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

    def decide(self, intent: Intent, now: datetime, policy: Policy) -> Decision:
        """Decide ``intent`` once; a retry after a crash returns the recorded decision."""
        with self._db.transaction() as s:
            lock_head(s, intent.org_id)
            existing = _latest_decision(s, intent.id)
            if existing is not None:
                return existing
            decision = policy(intent, _snapshot(s, intent, now), _Claims(s, intent.org_id, now))
            tool = REGISTRY.get(intent.tool)
            s.add(
                IntentRow(
                    id=intent.id,
                    org_id=intent.org_id,
                    run_id=intent.run_id,
                    principal_id=intent.principal_id,
                    tool=intent.tool,
                    body=intent.model_dump(mode="json"),
                    digest=intent.digest,
                    status=decision.outcome,
                    reach=list(decision.reach or intent.projects),
                    spend_cents=0 if tool is None else spend_of(intent, tool),
                    op_key=_op_key(intent),
                    created_at=now,
                )
            )
            if decision.outcome is Outcome.HOLD:
                s.add(
                    HoldRow(
                        intent_id=intent.id,
                        org_id=intent.org_id,
                        state="open",
                        release=list(decision.release),
                        opened_at=now,
                    )
                )
            if decision.outcome is Outcome.REJECT:
                _release_claims(s, intent.org_id, intent.id)
            return _record_broker_decision(
                s, intent, decision, f"decision:{intent.id}", intent.principal_id, now, self._keys
            )

    def review(
        self,
        org_id: str,
        run_id: str,
        request: ApprovalRequest,
        attempt: int,
        now: datetime,
        policy: ReviewPolicy,
        recheck: Policy,
    ) -> tuple[ReviewResult, Decision | None]:
        """Re-check a human decision on a hold of ``run_id``; record it, accepted or refused.

        An approval also re-runs the broker's stages on the intent (``recheck``): it is
        refused when the intent would now be rejected, and the intent is held again,
        with its new reasons, when it needs a human for a reason the hold did not show.
        Returns the review and the intent's newest decision.
        """
        # A request sent straight to Temporal may carry a NUL, which no text column can
        # hold: it is refused, on the record, with the NULs shown escaped.
        malformed = nul_at(request.model_dump(mode="json"))
        if malformed is not None:
            request = ApprovalRequest.model_validate(
                {
                    k: v.replace("\x00", "\\u0000") if isinstance(v, str) else v
                    for k, v in request.model_dump(mode="json").items()
                }
            )
        with self._db.transaction() as s:
            lock_head(s, org_id)
            event_key = f"review:{run_id}:{request.intent_id}:{attempt}"
            done = s.execute(
                select(AuditEntryRow).where(
                    col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.event_key) == event_key
                )
            ).scalar_one_or_none()
            if done is not None:  # a retried review: answer as recorded
                latest = _latest_decision(s, request.intent_id)
                accepted = done.decision != "review_refused"
                return ReviewResult(
                    accepted=accepted,
                    outcome=Outcome(done.decision) if accepted else None,
                    rule=done.rule,
                    reason=str(done.payload.get("reason", "")),
                ), latest
            row = s.get(IntentRow, request.intent_id)
            hold = s.get(HoldRow, request.intent_id)
            held = _latest_decision(s, request.intent_id)
            if malformed is not None:
                result = _refusal("malformed_request", malformed)
            elif row is None or row.org_id != org_id or hold is None or held is None:
                result = _refusal("not_held", "no such held intent")
            elif row.run_id != run_id:
                result = _refusal("wrong_run", "the intent belongs to another run")
            elif hold.state != "open":
                result = _refusal("hold_closed", f"hold is {hold.state}")
            else:
                intent = convert.intent(row)
                approver, staffing = _principal_and_staffing(s, request.approver_id)
                result = policy(
                    request,
                    intent=intent,
                    reach=tuple(row.reach),
                    approver=approver,
                    approver_staffing=staffing,
                    now=now,
                )
                if result.outcome is Outcome.APPROVED:
                    redecided = recheck(intent, _snapshot(s, intent, now), _Claims(s, org_id, now))
                    refusal = reconfirm(held, redecided)
                    if refusal is not None:
                        result = refusal
                        if redecided.outcome is Outcome.HOLD:
                            held = self._rehold(s, intent, hold, redecided, attempt, now)
            payload = {
                "approver_id": request.approver_id,
                "verdict": request.verdict,
                "intent_digest": request.intent_digest,
                "reason": result.reason,
                "request_reason": request.reason,
            }
            if not result.accepted or row is None or hold is None:
                append(
                    s,
                    org_id,
                    AuditDraft(
                        event_key=event_key,
                        actor=request.approver_id,
                        intent_id=request.intent_id,
                        decision="review_refused",
                        stage=Stage.REVIEW,
                        rule=result.rule,
                        payload=payload,
                    ),
                    now,
                    self._keys,
                )
                return result, held
            assert result.outcome is not None
            intent = convert.intent(row)
            decision = Decision(
                intent_id=intent.id,
                outcome=result.outcome,
                stage=Stage.REVIEW,
                rule=result.rule,
                reason=result.reason,
                reach=tuple(row.reach),
                intent_digest=intent.digest,
                decided_at=now,
            )
            row.status = result.outcome
            hold.state = result.outcome
            hold.resolved_by = request.approver_id
            hold.resolved_at = now
            s.add(row)
            s.add(hold)
            if result.outcome is Outcome.DENIED:
                _release_claims(s, org_id, intent.id)
            draft = AuditDraft(
                event_key=event_key,
                actor=request.approver_id,
                intent_id=intent.id,
                decision=result.outcome,
                stage=Stage.REVIEW,
                rule=result.rule,
                payload={**payload, "intent_digest": intent.digest},
            )
            return result, _record_decision(s, intent, decision, draft, now, self._keys)

    def _rehold(
        self,
        s: Session,
        intent: Intent,
        hold: HoldRow,
        redecided: Decision,
        attempt: int,
        now: datetime,
    ) -> Decision:
        """Hold the intent again for the reasons found at approval time."""
        hold.release = list(redecided.release)
        s.add(hold)
        return _record_broker_decision(
            s, intent, redecided, f"rehold:{intent.id}:{attempt}", "broker", now, self._keys
        )

    def expire(
        self,
        org_id: str,
        intent_id: str,
        now: datetime,
        rule: str = "hold_expired",
        reason: str = "no human decided before the hold expired",
    ) -> Decision:
        """Close an intent that will not be dispatched: an undecided hold, or an allowed
        intent whose run ended before its write. Its operation key is released."""
        with self._db.transaction() as s:
            lock_head(s, org_id)
            row = s.get(IntentRow, intent_id)
            if row is None or row.org_id != org_id:
                raise LookupError(f"no intent {intent_id}")
            hold = s.get(HoldRow, intent_id)
            latest = _latest_decision(s, intent_id)
            assert latest is not None
            hold_open = hold is not None and hold.state == "open"
            # An allowed or approved intent whose write did not happen is open too.
            still_open = hold_open or (row.status in SPENDING and not row.dispatched)
            if not still_open:
                return latest
            intent = convert.intent(row)
            decision = Decision(
                intent_id=intent_id,
                outcome=Outcome.EXPIRED,
                stage=Stage.REVIEW,
                rule=rule,
                reason=reason,
                reach=tuple(row.reach),
                decided_at=now,
            )
            row.status = Outcome.EXPIRED
            s.add(row)
            if hold is not None and hold_open:
                hold.state = "expired"
                hold.resolved_at = now
                s.add(hold)
            _release_claims(s, org_id, intent_id)
            draft = AuditDraft(
                event_key=f"expire:{intent_id}",
                actor="system:run",
                intent_id=intent_id,
                decision=Outcome.EXPIRED,
                stage=Stage.REVIEW,
                rule=rule,
                payload={"intent_digest": intent.digest, "reason": reason},
            )
            return _record_decision(s, intent, decision, draft, now, self._keys)

    def record_run_rejection(
        self,
        org_id: str,
        run_id: str,
        agent_id: str,
        stage: str,
        rule: str,
        payload: dict[str, Any],
        now: datetime,
    ) -> AuditEntry:
        """A run was refused before any intent (resolve failed, the parser refused the reply)."""
        with self._db.transaction() as s:
            return append(
                s,
                org_id,
                AuditDraft(
                    event_key=f"{stage}:{run_id}",
                    actor=agent_id,
                    decision=Outcome.REJECT,
                    stage=stage,
                    rule=rule,
                    payload={"run_id": run_id, **payload},
                ),
                now,
                self._keys,
            )

    def dispatch_token(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """Enforced mode: check the invariants that must hold before any connector write.

        The decision must be in the chain, intact and linked to the entry before it,
        name this intent and its digest, and be the intent's latest decision.
        """
        with self._db.read() as s:
            row = s.get(IntentRow, decision.intent_id)
            if row is None or row.org_id != org_id:
                raise FoundationBroken(f"intent {decision.intent_id} is not recorded")
            intent = convert.intent(row)
            if decision.audit_seq is None or decision.entry_hash is None:
                raise FoundationBroken("the decision has no audit entry")
            entry_row = s.get(AuditEntryRow, (org_id, decision.audit_seq))
            if entry_row is None:
                raise FoundationBroken(f"audit entry {decision.audit_seq} is missing")
            entry = convert.audit_entry(entry_row)
            if entry.entry_hash != decision.entry_hash:
                raise FoundationBroken(f"audit entry {entry.seq} is not the decision's entry")
            problem = entry_problem(entry, self._keys)
            if problem is not None:
                raise FoundationBroken(f"audit entry {entry.seq}: {problem}")
            if entry.seq > 1:
                prev = s.get(AuditEntryRow, (org_id, entry.seq - 1))
                if prev is None or prev.entry_hash != entry.prev_hash:
                    raise FoundationBroken(
                        f"audit entry {entry.seq} is not linked to its predecessor"
                    )
            if entry.intent_id != intent.id or entry.payload.get("intent_digest") != intent.digest:
                raise FoundationBroken("the audited decision names another intent")
            if not Outcome(entry.decision).may_dispatch:
                raise FoundationBroken(f"the audited decision is {entry.decision}")
            if row.status not in SPENDING:
                raise FoundationBroken(f"the intent is now {row.status}")
            token = DispatchToken(
                org_id=org_id,
                intent_id=intent.id,
                audit_seq=entry.seq,
                entry_hash=entry.entry_hash,
                intent_digest=intent.digest,
            )
            return intent, token

    def record_dispatch_failure(
        self, org_id: str, intent_id: str, problem: str, now: datetime
    ) -> AuditEntry:
        """Record that a dispatch was refused (broken foundation or refused token)."""
        with self._db.transaction() as s:
            lock_head(s, org_id)
            return append(
                s,
                org_id,
                AuditDraft(
                    event_key=f"dispatch-refused:{intent_id}",
                    actor="broker",
                    intent_id=intent_id,
                    decision="dispatch_refused",
                    stage=Stage.DISPATCH,
                    rule="foundation_broken",
                    payload={"problem": problem},
                ),
                now,
                self._keys,
            )
