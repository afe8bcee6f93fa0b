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

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.audit_log import AuditError, ChainWriter, LockedHead, lock
from adapters.store.db import utc
from adapters.store.org_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import (
    AuditHeadRow,
    ClaimRow,
    DecisionRow,
    HoldRow,
    IntentRow,
    MemoryNodeRow,
    PrincipalRow,
    StaffingRow,
)
from domain.audit import AuditDraft, AuditEntry, ChainKeys
from domain.errors import FoundationBroken, NotFound, StoreFailure
from domain.governance import records
from domain.governance.broker import operation_key, spend_of, wildcard_key
from domain.governance.tokens import token_for
from domain.governance.values import (
    BrokerSnapshot,
    Effects,
    HoldState,
    InFlight,
    StoredIntent,
    in_flight_by_key,
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
    s: Session, chain: ChainWriter, result: DispatchResult, now: datetime
) -> AuditEntry:
    """Record a connector's write inside the connector's own transaction (which holds the
    organization's lock), so that the write and its record commit together or not at
    all. The intent's operation key is released; a write that may not be repeated (an
    invoice is paid once) is found again by its intent's ``op_key``."""
    s.execute(
        update(IntentRow).where(col(IntentRow.id) == result.intent_id).values(dispatched=True)
    )
    _release_claims(s, chain.org_id, result.intent_id)
    return chain.append(records.dispatch_draft(result), now)


class SqlGovernanceUnit:
    """:class:`~domain.ports.GovernanceUnit` over one locked transaction."""

    def __init__(
        self,
        session: Session,
        org_id: str,
        now: datetime,
        locked: LockedHead,
        chain: ChainWriter,
        cache: OrgCache,
    ) -> None:
        self._s = session
        self.org_id = org_id
        self._now = now
        self._poisoned = locked.poisoned
        self._config_seq = locked.config_seq
        self._chain = chain
        self._cache = cache
        self._new: set[str] = set()
        """Intents known to have no row yet (their latest decision was looked up: none)."""

    def poisoned(self) -> str | None:
        return self._poisoned

    def _policy(self) -> OrgPolicy:
        return self._cache.policy(self._s, self.org_id, self._config_seq)

    def latest(self, intent_id: str) -> Decision | None:
        latest = _latest_decision(self._s, intent_id)
        if latest is None:
            self._new.add(intent_id)
        return latest

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
        return self._chain.recorded(event_key)

    def append(self, draft: AuditDraft) -> AuditEntry:
        return self._chain.append(draft, self._now)

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        policy = self._policy()
        tool = REGISTRY.get(intent.tool)
        spends = tool is not None and spend_of(intent, tool) > 0
        records = self._records(intent)
        run_spent, committed = self._spend(intent, policy, records) if spends else (0, {})
        return BrokerSnapshot(
            now=self._now,
            principal=policy.principals.get(intent.principal_id),
            definition=policy.definitions.get(intent.principal_id),
            charter=policy.charters.get(intent.principal_id),
            projects=policy.projects,
            staffing=policy.staffing.get(intent.principal_id, ()),
            barriers=policy.barriers,
            commitments=policy.commitments,
            index=policy.index,
            records=records,
            run_spent_cents=run_spent,
            committed_spend=committed,
            in_flight=self._in_flight(intent),
            completed=self._completed(intent),
            tools=REGISTRY,
        )

    def _records(self, intent: Intent) -> dict[str, tuple[str, ...]]:
        if not intent.references:
            return {}
        rows = self._s.execute(
            select(col(MemoryNodeRow.ref), col(MemoryNodeRow.projects)).where(
                col(MemoryNodeRow.org_id) == self.org_id,
                col(MemoryNodeRow.ref).in_(intent.references),
            )
        )
        return {r.ref: tuple(r.projects) for r in rows}

    def _spend(
        self, intent: Intent, policy: OrgPolicy, records: dict[str, tuple[str, ...]]
    ) -> tuple[int, dict[str, int]]:
        """What this intent's run has spent, and what each binding spend cap that may
        cover it (any of its projects or its records' projects) has committed: read only
        for an intent that moves money."""
        now = self._now
        reach = {*intent.projects, *(p for projects in records.values() for p in projects)}
        spending = [
            r
            for r in self._s.execute(
                select(
                    col(IntentRow.id),
                    col(IntentRow.run_id),
                    col(IntentRow.reach),
                    col(IntentRow.spend_cents),
                    col(IntentRow.created_at),
                ).where(
                    col(IntentRow.org_id) == self.org_id,
                    col(IntentRow.status).in_(SPENDING),
                    col(IntentRow.spend_cents) > 0,
                )
            )
            if r.id != intent.id
        ]
        committed: dict[str, int] = {}
        for cm in policy.index.caps(reach):
            if isinstance(cm.constraint, SpendCap) and cm.binds(now):
                committed[cm.id] = sum(
                    r.spend_cents
                    for r in spending
                    if cm.covers(frozenset(r.reach))
                    and cm.valid_from <= utc(r.created_at)
                    and (cm.valid_until is None or utc(r.created_at) < cm.valid_until)
                )
        run_spent = sum(r.spend_cents for r in spending if r.run_id == intent.run_id)
        return run_spent, committed

    def _in_flight(self, intent: Intent) -> dict[str, tuple[InFlight, ...]]:
        """Claims this intent collides with: on its key or its operation's wildcard; for
        an intent that names no resource, every claim of its operation."""
        tool = REGISTRY.get(intent.tool)
        if tool is None:
            return {}
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
        return in_flight_by_key(
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
        s, now, org = self._s, self._now, self.org_id
        new = intent.id in self._new
        if new:
            tool = REGISTRY.get(intent.tool)
            s.execute(
                insert(IntentRow).values(
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
                    dispatched=False,
                    op_key=_op_key(intent),
                    created_at=now,
                )
            )
            self._new.discard(intent.id)
        else:
            s.execute(
                update(IntentRow)
                .where(col(IntentRow.id) == intent.id)
                .values(status=effects.status)
            )
        if effects.release:
            _release_claims(s, org, intent.id)
        if effects.claim is not None and (new or s.get(ClaimRow, (org, effects.claim)) is None):
            s.execute(
                insert(ClaimRow).values(
                    org_id=org, key=effects.claim, intent_id=intent.id, claimed_at=now
                )
            )
        if effects.hold is not None:
            self._hold(intent.id, effects, new)
        entry = self._chain.append(draft, now, fresh=new)
        recorded = decision.model_copy(
            update={
                "audit_seq": entry.seq,
                "entry_hash": entry.entry_hash,
                "intent_digest": intent.digest,
            }
        )
        s.execute(
            insert(DecisionRow).values(
                org_id=org,
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

    def _hold(self, intent_id: str, effects: Effects, new: bool) -> None:
        hold = None if new else self._s.get(HoldRow, intent_id)
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

    def __init__(self, db: Database, keys: ChainKeys, cache: OrgCache | None = None) -> None:
        self._db = db
        self._keys = keys
        self._cache = cache or OrgCache()

    @contextmanager
    def unit(self, org_id: str, now: datetime) -> Iterator[SqlGovernanceUnit]:
        """Lock ``org_id``; a database error becomes :class:`StoreFailure`, an unknown
        organization :class:`NotFound`."""
        try:
            with self._db.transaction() as s:
                try:
                    locked = lock(s, org_id)
                except AuditError as exc:
                    raise NotFound(f"no organization {org_id}") from exc
                chain = ChainWriter(s, org_id, self._keys, locked)
                yield SqlGovernanceUnit(s, org_id, now, locked, chain, self._cache)
                chain.flush()
        except DBAPIError as exc:
            raise StoreFailure(str(exc).splitlines()[0]) from exc

    def token_for(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """The intent a decision is about and the token naming that decision (checked by
        the connector, in the write's own transaction)."""
        with self._db.read() as s:
            row = s.get(IntentRow, decision.intent_id)
            if row is None or row.org_id != org_id:
                raise FoundationBroken(f"intent {decision.intent_id} is not recorded")
            intent = convert.intent(row)
        return intent, token_for(intent, decision)
