"""The governance unit of work over SQL: one organization locked, its state read and
written in one transaction.

Every unit of an organization holds that organization's audit-head row lock (SQLite:
the database write lock), so the snapshot a decision reads cannot change under it:
spend caps cannot be overrun by two concurrent intents, operation keys cannot be
double-booked, and the chain cannot fork. This module reads and writes rows; what a
decision means (which key it claims, which hold it opens or closes) comes from the
domain as :class:`~domain.governance.values.Effects`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.audit_log import AuditError, append
from adapters.store.db import utc
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditEntryRow,
    AuditHeadRow,
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
from domain.audit import AuditDraft, AuditEntry, ChainKeys
from domain.errors import FoundationBroken, NotFound, StoreFailure
from domain.governance import records
from domain.governance.broker import operation_key, spend_of, wildcard_key
from domain.governance.tokens import token_problem
from domain.governance.values import (
    BrokerSnapshot,
    Effects,
    HoldState,
    InFlight,
    StoredIntent,
)
from domain.intents import Decision, DispatchResult, DispatchToken, Intent, Outcome
from domain.model import Principal, SpendCap, Staffing
from domain.tools import REGISTRY

SPENDING = (Outcome.ALLOW.value, Outcome.APPROVED.value)


def _release_claims(s: Session, org_id: str, intent_id: str) -> None:
    """Release the in-flight keys of an intent that is done, or will not write."""
    s.execute(
        delete(ClaimRow).where(col(ClaimRow.org_id) == org_id, col(ClaimRow.intent_id) == intent_id)
    )


def _op_key(intent: Intent) -> str | None:
    tool = REGISTRY.get(intent.tool)
    return None if tool is None else operation_key(tool, intent.payload)


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
    return append(s, org_id, records.dispatch_draft(result), now, keys)


class SqlGovernanceUnit:
    """:class:`~domain.ports.GovernanceUnit` over one locked transaction."""

    def __init__(
        self, session: Session, org_id: str, now: datetime, keys: ChainKeys, poisoned: str | None
    ) -> None:
        self._s = session
        self.org_id = org_id
        self._now = now
        self._keys = keys
        self._poisoned = poisoned

    def poisoned(self) -> str | None:
        return self._poisoned

    def latest(self, intent_id: str) -> Decision | None:
        return _latest_decision(self._s, intent_id)

    def stored(self, intent_id: str) -> StoredIntent | None:
        row = self._s.get(IntentRow, intent_id)
        if row is None or row.org_id != self.org_id:
            return None
        latest = _latest_decision(self._s, intent_id)
        if latest is None:
            return None
        hold = self._s.get(HoldRow, intent_id)
        return StoredIntent(
            intent=convert.intent(row),
            run_id=row.run_id,
            status=Outcome(row.status),
            dispatched=row.dispatched,
            hold=None if hold is None else HoldState(hold.state),
            latest=latest,
            reach=tuple(row.reach),
        )

    def principal(self, principal_id: str) -> tuple[Principal | None, tuple[Staffing, ...]]:
        return _principal_and_staffing(self._s, principal_id)

    def recorded(self, event_key: str) -> AuditEntry | None:
        row = self._s.execute(
            select(AuditEntryRow).where(
                col(AuditEntryRow.org_id) == self.org_id,
                col(AuditEntryRow.event_key) == event_key,
            )
        ).scalar_one_or_none()
        return None if row is None else convert.audit_entry(row)

    def append(self, draft: AuditDraft) -> AuditEntry:
        return append(self._s, self.org_id, draft, self._now, self._keys)

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        s, org, now = self._s, self.org_id, self._now
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
            for r in s.execute(
                select(CommitmentRow).where(col(CommitmentRow.org_id) == org)
            ).scalars()
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
        records_ = {
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
                s.execute(
                    select(col(ProjectRow.slug)).where(col(ProjectRow.org_id) == org)
                ).scalars()
            ),
            staffing=staffing,
            barriers=tuple(
                convert.barrier(r)
                for r in s.execute(
                    select(BarrierRow).where(col(BarrierRow.org_id) == org)
                ).scalars()
            ),
            commitments=commitments,
            records=records_,
            run_spent_cents=sum(r.spend_cents for r in spending if r.run_id == intent.run_id),
            committed_spend=committed,
            in_flight=self._in_flight(intent),
            completed=self._completed(intent),
        )

    def _in_flight(self, intent: Intent) -> tuple[InFlight, ...]:
        """Claims this intent collides with: on its key or its operation's wildcard; for
        an intent that names no resource, every claim of its operation."""
        tool = REGISTRY.get(intent.tool)
        if tool is None:
            return ()
        key, wildcard = _op_key(intent), wildcard_key(tool)
        where = (
            col(ClaimRow.key).in_([key, wildcard])
            if key is not None
            else col(ClaimRow.key).startswith(wildcard[:-1], autoescape=True)
        )
        rows = self._s.execute(
            select(col(ClaimRow.key), col(ClaimRow.intent_id), col(IntentRow.status))
            .join(IntentRow, col(IntentRow.id) == col(ClaimRow.intent_id))
            .where(col(ClaimRow.org_id) == self.org_id, where)
            .order_by(col(ClaimRow.claimed_at))
        )
        return tuple(
            InFlight(key=r.key, intent_id=r.intent_id, status=Outcome(r.status)) for r in rows
        )

    def _completed(self, intent: Intent) -> dict[str, tuple[str, ...]]:
        """For a write that may not be repeated: the intents that already did it."""
        tool = REGISTRY.get(intent.tool)
        key = _op_key(intent)
        if tool is None or tool.repeatable or key is None:
            return {}
        done = self._s.execute(
            select(col(IntentRow.id))
            .where(
                col(IntentRow.org_id) == self.org_id,
                col(IntentRow.op_key) == key,
                col(IntentRow.dispatched),
            )
            .order_by(col(IntentRow.created_at))
        ).scalars()
        ids = tuple(done)
        return {key: ids} if ids else {}

    def record(
        self, intent: Intent, decision: Decision, effects: Effects, draft: AuditDraft
    ) -> Decision:
        s, now = self._s, self._now
        row = s.get(IntentRow, intent.id)
        if row is None:
            tool = REGISTRY.get(intent.tool)
            row = IntentRow(
                id=intent.id,
                org_id=intent.org_id,
                run_id=intent.run_id,
                principal_id=intent.principal_id,
                tool=intent.tool,
                body=intent.model_dump(mode="json"),
                digest=intent.digest,
                status=effects.status,
                reach=list(decision.reach or intent.projects),
                spend_cents=0 if tool is None else spend_of(intent, tool),
                op_key=_op_key(intent),
                created_at=now,
            )
        row.status = effects.status
        s.add(row)
        if effects.release:
            _release_claims(s, self.org_id, intent.id)
        if effects.claim is not None and s.get(ClaimRow, (self.org_id, effects.claim)) is None:
            s.add(
                ClaimRow(org_id=self.org_id, key=effects.claim, intent_id=intent.id, claimed_at=now)
            )
        if effects.hold is not None:
            self._hold(intent.id, effects)
        entry = append(s, self.org_id, draft, now, self._keys)
        recorded = decision.model_copy(
            update={
                "audit_seq": entry.seq,
                "entry_hash": entry.entry_hash,
                "intent_digest": intent.digest,
            }
        )
        s.add(
            DecisionRow(
                org_id=self.org_id,
                intent_id=intent.id,
                outcome=recorded.outcome,
                stage=recorded.stage,
                rule=recorded.rule,
                reason=recorded.reason,
                release=list(recorded.release),
                reach=list(recorded.reach),
                evidence=list(recorded.evidence),
                mode=recorded.mode,
                enforced=recorded.enforced,
                intent_digest=intent.digest,
                audit_seq=entry.seq,
                entry_hash=entry.entry_hash,
                decided_at=now,
            )
        )
        return recorded

    def _hold(self, intent_id: str, effects: Effects) -> None:
        hold = self._s.get(HoldRow, intent_id)
        if effects.hold is HoldState.OPEN:
            if hold is None:
                hold = HoldRow(
                    intent_id=intent_id,
                    org_id=self.org_id,
                    state=HoldState.OPEN,
                    release=list(effects.release_conditions),
                    opened_at=self._now,
                )
            hold.release = list(effects.release_conditions)
            self._s.add(hold)
        elif hold is not None and hold.state == HoldState.OPEN:
            hold.state = str(effects.hold)
            hold.resolved_by = effects.resolved_by
            hold.resolved_at = self._now
            self._s.add(hold)

    def poison(self, draft: AuditDraft, reason: str) -> None:
        self._s.execute(
            update(AuditHeadRow)
            .where(col(AuditHeadRow.org_id) == self.org_id)
            .values(poisoned=reason[:2000])
        )
        self.append(draft)
        self._poisoned = reason

    def unpoison(self, draft: AuditDraft) -> None:
        self._s.execute(
            update(AuditHeadRow)
            .where(col(AuditHeadRow.org_id) == self.org_id)
            .values(poisoned=None)
        )
        self.append(draft)
        self._poisoned = None


class SqlGovernance:
    """:class:`~domain.ports.GovernanceStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

    @contextmanager
    def unit(self, org_id: str, now: datetime) -> Iterator[SqlGovernanceUnit]:
        """Lock ``org_id``; a database error becomes :class:`StoreFailure`, an unknown
        organization :class:`NotFound`."""
        try:
            with self._db.transaction() as s:
                head = s.execute(
                    select(col(AuditHeadRow.poisoned))
                    .where(col(AuditHeadRow.org_id) == org_id)
                    .with_for_update()
                ).first()
                if head is None:
                    raise NotFound(f"no organization {org_id}")
                yield SqlGovernanceUnit(s, org_id, now, self._keys, head.poisoned)
        except (DBAPIError, AuditError) as exc:
            raise StoreFailure(str(exc).splitlines()[0]) from exc

    def dispatch_token(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """The invariants that must hold before any connector write: the decision is in
        the chain, intact, signed and linked to the entry before it, about this intent and
        its content, an allow or an approval, and the intent's current state."""
        with self._db.read() as s:
            row = s.get(IntentRow, decision.intent_id)
            if row is None or row.org_id != org_id:
                raise FoundationBroken(f"intent {decision.intent_id} is not recorded")
            intent = convert.intent(row)
            if decision.audit_seq is None or decision.entry_hash is None:
                raise FoundationBroken("the decision has no audit entry")
            token = DispatchToken(
                org_id=org_id,
                intent_id=intent.id,
                audit_seq=decision.audit_seq,
                entry_hash=decision.entry_hash,
                intent_digest=intent.digest,
            )
            entry_row = s.get(AuditEntryRow, (org_id, decision.audit_seq))
            entry = None if entry_row is None else convert.audit_entry(entry_row)
            problem = token_problem(
                token, intent, entry, self._keys, Outcome(row.status), row.dispatched
            )
            if problem is not None:
                raise FoundationBroken(problem)
            assert entry is not None
            if entry.seq > 1:
                prev = s.get(AuditEntryRow, (org_id, entry.seq - 1))
                if prev is None or prev.entry_hash != entry.prev_hash:
                    raise FoundationBroken(
                        f"audit entry {entry.seq} is not linked to its predecessor"
                    )
            return intent, token
