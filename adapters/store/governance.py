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

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from adapters.store import convert
from adapters.store.audit import ChainWriter, LockedHead, lock
from adapters.store.db import utc
from adapters.store.organization_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import (
    AuditEntryRow,
    AuditHeadRow,
    ClaimRow,
    DecisionRow,
    HoldRow,
    IntentRow,
    PrincipalRow,
    StaffingRow,
    StandingHoldRow,
    table_of,
)
from domain.audit.chain import AuditDraft, AuditEntry, ChainKeys
from domain.audit.ports import AuditError
from domain.errors import FoundationBroken, StoreFailure, UnknownOrganization
from domain.governance import records
from domain.governance.addresses import domain_of, within
from domain.governance.broker import known_reach, operation_key, spend_of, wildcard_key
from domain.governance.destinations import Source, read_sources, recipients_of
from domain.governance.intents import Decision, DispatchResult, DispatchToken, Intent, Outcome
from domain.governance.outbound import governs
from domain.governance.spend import Spending, counted, paid_to, payee_of
from domain.governance.tokens import token_for
from domain.governance.usage import usage_key
from domain.governance.values import (
    BrokerSnapshot,
    Effects,
    HoldState,
    InFlight,
    StoredIntent,
    in_flight_by_key,
)
from domain.memory.adapter import MemoryAdapter
from domain.organization.contracts import Principal, Staffing, StandingHold, ToolSpec
from domain.tools import REGISTRY

log = logging.getLogger("verletica.governance")

SPENDING = (Outcome.ALLOW.value, Outcome.APPROVED.value)

# Statements are built once, with bound parameters, and run on the unit's connection:
# building a statement and passing it through the ORM cost ten times what SQLite takes
# to answer it, and a decision runs a dozen of them.
_intents, _decisions = table_of(IntentRow), table_of(DecisionRow)
_claims, _holds = table_of(ClaimRow), table_of(HoldRow)
_heads = table_of(AuditHeadRow)
_principals, _staffing = table_of(PrincipalRow), table_of(StaffingRow)

_LATEST = (
    select(*_decisions.c)
    .where(_decisions.c.intent_id == bindparam("intent_id"))
    .order_by(_decisions.c.id.desc())
    .limit(1)
)
_INTENT = select(*_intents.c).where(_intents.c.id == bindparam("intent_id"))
_HOLD = select(*_holds.c).where(_holds.c.intent_id == bindparam("intent_id"))
_PRINCIPAL = select(*_principals.c).where(_principals.c.id == bindparam("principal_id"))
_STAFFING = select(*_staffing.c).where(_staffing.c.principal_id == bindparam("principal_id"))
# What a spending intent spent, where and when never changes once it is recorded; only
# whether it still counts (its status) does. So a decision reads the ids that count and
# reads the facts only of ids this process has not seen (no reach decoded per row).
_SPENDING_IDS = select(_intents.c.id).where(
    _intents.c.org_id == bindparam("org_id"),
    _intents.c.status.in_(SPENDING),
    _intents.c.spend_cents > 0,
)
_SENDING_TOOLS = tuple(name for name, t in REGISTRY.items() if t.recipient_param is not None)
_RUN_SENDS = select(_intents.c.id).where(
    _intents.c.run_id == bindparam("run_id"),
    _intents.c.org_id == bindparam("org_id"),
    _intents.c.tool.in_(_SENDING_TOOLS),
    _intents.c.status.in_((*SPENDING, Outcome.HOLD.value)),
)
"""The run's messages let through or held: whom the run writes to (their ids; what each
writes to is read once per process, a payload never changes)."""
_SEND_BODIES = select(_intents.c.id, _intents.c.tool, _intents.c.body).where(
    _intents.c.id.in_(bindparam("ids", expanding=True))
)
_LET_THROUGH = (
    select(func.max(_decisions.c.decided_at))
    .where(_decisions.c.intent_id == _intents.c.id, _decisions.c.outcome.in_(SPENDING))
    .scalar_subquery()
)
"""When a spending intent was let through: its allow, or the approval of its hold."""
_SPENDING_FACTS = select(
    _intents.c.id,
    _intents.c.run_id,
    _intents.c.reach,
    _intents.c.spend_cents,
    _intents.c.created_at,
    _intents.c.tool,
    _intents.c.body,
    _LET_THROUGH.label("paid_at"),
).where(_intents.c.id.in_(bindparam("ids", expanding=True)))
_standing = table_of(StandingHoldRow)
_OPEN_STANDING_HOLDS = (
    select(*_standing.c)
    .where(_standing.c.org_id == bindparam("org_id"), _standing.c.released_at.is_(None))
    .order_by(_standing.c.created_at, _standing.c.intent_id)
)
_entries = table_of(AuditEntryRow)
_CHARGE = select(_entries.c.payload).where(
    _entries.c.org_id == bindparam("org_id"),
    # the run's reasoning call, and every other call charged to it ("key:call"): a range
    # on the (org, key) index, where ';' is the character after ':'
    or_(
        _entries.c.event_key == bindparam("event_key"),
        and_(_entries.c.event_key >= bindparam("first"), _entries.c.event_key < bindparam("past")),
    ),
)
_FACTS_KEPT = 500_000
"""Spending facts a process keeps (about 100 MB at most); past that it starts over."""
_IN_FLIGHT = (
    select(_claims.c.key, _claims.c.intent_id, _intents.c.status)
    .join(_intents, _intents.c.id == _claims.c.intent_id)
    .order_by(_claims.c.claimed_at)
)
_IN_FLIGHT_ON_KEYS = _IN_FLIGHT.where(
    _claims.c.org_id == bindparam("org_id"),
    _claims.c.key.in_([bindparam("key"), bindparam("wildcard")]),
)
_IN_FLIGHT_ON_PREFIX = _IN_FLIGHT.where(
    _claims.c.org_id == bindparam("org_id"), _claims.c.key.like(bindparam("pattern"), escape="/")
)
_COMPLETED = (
    select(_intents.c.id)
    .where(
        _intents.c.org_id == bindparam("org_id"),
        _intents.c.op_key == bindparam("op_key"),
        _intents.c.dispatched,
    )
    .order_by(_intents.c.created_at)
)
_CLAIM_HOLDER = select(_claims.c.intent_id).where(
    _claims.c.org_id == bindparam("org_id"), _claims.c.key == bindparam("key")
)
_INSERT_INTENT, _INSERT_DECISION = insert(_intents), insert(_decisions)
_INSERT_CLAIM, _INSERT_HOLD = insert(_claims), insert(_holds)
_SET_STATUS = (
    update(_intents)
    .where(_intents.c.id == bindparam("b_intent_id"))
    .values(status=bindparam("b_status"))
)
_SET_DISPATCHED = (
    update(_intents).where(_intents.c.id == bindparam("b_intent_id")).values(dispatched=True)
)
_RELEASE = delete(_claims).where(
    _claims.c.org_id == bindparam("org_id"), _claims.c.intent_id == bindparam("intent_id")
)
_SET_HOLD_RELEASE = (
    update(_holds)
    .where(_holds.c.intent_id == bindparam("b_intent_id"))
    .values(release=bindparam("b_release"))
)
_RESOLVE_HOLD = (
    update(_holds)
    .where(_holds.c.intent_id == bindparam("b_intent_id"), _holds.c.state == HoldState.OPEN.value)
    .values(
        state=bindparam("b_state"),
        resolved_by=bindparam("b_resolved_by"),
        resolved_at=bindparam("b_resolved_at"),
    )
)
_SET_POISONED = (
    update(_heads)
    .where(_heads.c.org_id == bindparam("b_org_id"))
    .values(poisoned=bindparam("b_poisoned"))
)


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern (escape character ``/``) matching strings that start with ``prefix``."""
    return prefix.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"


def _release_claims(c: Connection, org_id: str, intent_id: str) -> None:
    """Release the in-flight keys of an intent that is done, or will not write."""
    c.execute(_RELEASE, {"org_id": org_id, "intent_id": intent_id})


def _op_key(intent: Intent) -> str | None:
    tool = REGISTRY.get(intent.tool)
    return None if tool is None else operation_key(tool, intent.payload)


def record_dispatch(
    s: Session, chain: ChainWriter, result: DispatchResult, now: datetime
) -> AuditEntry:
    """Record a connector's write inside the connector's own transaction (which holds the
    organization's lock), so that the write and its record commit together or not at
    all. The intent's operation key is released; a write that may not be repeated (an
    invoice is paid once) is found again by its intent's ``op_key``."""
    c = s.connection()
    c.execute(_SET_DISPATCHED, {"b_intent_id": result.intent_id})
    _release_claims(c, chain.org_id, result.intent_id)
    return chain.append(records.dispatch_draft(result), now)


def _open_hold(intent_id: str, org_id: str, release: list[str], now: datetime) -> dict[str, Any]:
    return {
        "intent_id": intent_id,
        "org_id": org_id,
        "state": HoldState.OPEN.value,
        "release": release,
        "opened_at": now,
        "resolved_by": None,
        "resolved_at": None,
    }


@dataclass
class _Pending:
    """Rows of intents decided for the first time in this unit, not yet written.

    A batch of decisions (group commit) writes them a statement per table, not a
    statement per row; meanwhile the unit answers its reads from here too: an intent's
    decision, the operation keys claimed, the spend allowed. Anything else the unit does
    writes them first.
    """

    intents: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    holds: list[dict[str, Any]] = field(default_factory=list)
    claim_rows: list[dict[str, Any]] = field(default_factory=list)
    claims: dict[str, list[InFlight]] = field(default_factory=dict)
    """Keys claimed, by key."""
    spending: list[Spending] = field(default_factory=list)
    decided: dict[str, Decision] = field(default_factory=dict)

    def add_intent(
        self, intent: Intent, decision: Decision, effects: Effects, org_id: str, now: datetime
    ) -> None:
        tool = REGISTRY.get(intent.tool)
        spend = 0 if tool is None else spend_of(intent, tool)
        reach = list(decision.reach or intent.projects)
        self.intents.append(
            {
                "id": intent.id,
                "org_id": intent.org_id,
                "run_id": intent.run_id,
                "principal_id": intent.principal_id,
                "tool": intent.tool,
                "body": intent.model_dump(mode="json"),
                "digest": intent.digest,
                "status": effects.status.value,
                "reach": reach,
                "spend_cents": spend,
                "dispatched": False,
                "op_key": _op_key(intent),
                "created_at": now,
            }
        )
        if effects.claim is not None:
            self.claim_rows.append(
                {"org_id": org_id, "key": effects.claim, "intent_id": intent.id, "claimed_at": now}
            )
            self.claims.setdefault(effects.claim, []).append(
                InFlight(key=effects.claim, intent_id=intent.id, status=effects.status)
            )
        if effects.hold is HoldState.OPEN:
            self.holds.append(_open_hold(intent.id, org_id, list(effects.release_conditions), now))
        if effects.status.value in SPENDING and spend > 0:
            self.spending.append(
                Spending(
                    intent.id,
                    intent.run_id,
                    frozenset(reach),
                    spend,
                    utc(now),
                    payee_of(tool, intent.payload),
                    utc(now),
                )
            )
        self.decided[intent.id] = decision

    def write(self, c: Connection) -> None:
        """Write every pending row, and forget them."""
        for statement, rows in (
            (_INSERT_INTENT, self.intents),
            (_INSERT_CLAIM, self.claim_rows),
            (_INSERT_HOLD, self.holds),
            (_INSERT_DECISION, self.decisions),
        ):
            if rows:
                c.execute(statement, rows)
                rows.clear()
        self.claims.clear()
        self.spending.clear()
        self.decided.clear()


class SqlGovernanceUnit:
    """:class:`~domain.governance.ports.GovernanceUnit` over one locked transaction."""

    def __init__(
        self,
        session: Session,
        org_id: str,
        now: datetime,
        locked: LockedHead,
        chain: ChainWriter,
        cache: OrgCache,
        memory: MemoryAdapter,
    ) -> None:
        self._s = session
        self._c = session.connection()
        self._memory = memory.joined(self._c)
        """The memory stores, in this unit's transaction: an intent's records resolve
        through the same store the memory gate reads."""
        self.org_id = org_id
        self._now = now
        self._poisoned = locked.poisoned
        self._config_seq = locked.config_seq
        self._chain = chain
        self._cache = cache
        self._new: set[str] = set()
        """Intents known to have no row yet (their latest decision was looked up: none)."""
        self._rows = _Pending()

    def poisoned(self) -> str | None:
        return self._poisoned

    def flush(self) -> None:
        """Write the rows of the new intents decided so far, a statement per table."""
        self._rows.write(self._c)
        self._chain.write_pending()

    def _policy(self) -> OrgPolicy:
        return self._cache.policy(self._s, self.org_id, self._config_seq)

    def _latest(self, intent_id: str) -> Decision | None:
        row = self._c.execute(_LATEST, {"intent_id": intent_id}).first()
        return None if row is None else convert.decision(row)

    def latest(self, intent_id: str) -> Decision | None:
        latest = self._rows.decided.get(intent_id) or self._latest(intent_id)
        if latest is None:
            self._new.add(intent_id)
        return latest

    def stored(self, intent_id: str) -> StoredIntent | None:
        self.flush()
        row = self._c.execute(_INTENT, {"intent_id": intent_id}).first()
        if row is None or row.org_id != self.org_id:
            return None
        latest = self._latest(intent_id)
        if latest is None:
            return None
        hold = self._c.execute(_HOLD, {"intent_id": intent_id}).first()
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
        policy = self._policy()
        known = policy.principals.get(principal_id)
        if known is not None:
            return known, policy.staffing.get(principal_id, ())
        row = self._c.execute(_PRINCIPAL, {"principal_id": principal_id}).first()
        if row is None:
            return None, ()
        staffing = self._c.execute(_STAFFING, {"principal_id": principal_id})
        return convert.principal(row), tuple(convert.staffing(r) for r in staffing)

    def project_names(self) -> Mapping[str, str]:
        return self._policy().project_names

    def recorded(self, event_key: str) -> AuditEntry | None:
        self.flush()
        return self._chain.recorded(event_key)

    def append(self, draft: AuditDraft) -> AuditEntry:
        self.flush()
        return self._chain.append(draft, self._now)

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        policy = self._policy()
        tool = REGISTRY.get(intent.tool)
        spends = tool is not None and spend_of(intent, tool) > 0
        records = self._records(intent)
        run_spent, committed, (paid, payments) = (
            self._spend(intent, tool, policy, records) if spends and tool else (0, {}, (0, ()))
        )
        run_spent += self._model_spend(intent.run_id)
        pinned = policy.pinned(intent.principal_id, intent.pin)
        egress = governs(tool)
        return BrokerSnapshot(
            now=self._now,
            principal=policy.principals.get(intent.principal_id),
            definition=pinned[1],
            charter=pinned[0],
            projects=policy.projects,
            project_names=policy.project_names,
            staffing=policy.staffing.get(intent.principal_id, ()),
            requester=policy.principals.get(intent.requested_by or ""),
            requester_staffing=policy.staffing.get(intent.requested_by or "", ()),
            barriers=policy.barriers,
            commitments=policy.commitments,
            index=policy.index,
            records=records,
            run_spent_cents=run_spent,
            committed_spend=committed,
            paid_to_payee=paid,
            payee_payments=payments,
            standing_holds=self._standing_holds() if spends else (),
            in_flight=self._in_flight(intent),
            completed=self._completed(intent),
            counterparties=policy.counterparties(self._now) if egress else None,
            sources=self._sources(intent) if egress else (),
            run_recipients=self._run_recipients(intent, policy) if egress else frozenset(),
            tools=REGISTRY,
        )

    def _run_recipients(self, intent: Intent, policy: OrgPolicy) -> frozenset[str]:
        """Whom the run's other messages (let through or held) write to; read only for a
        message to someone outside the firm (only those make a mailing)."""
        tool = REGISTRY.get(intent.tool)
        mine = recipients_of(tool, intent.payload)
        inside = all(
            a in policy.colleagues or within(domain_of(a), policy.own_domains) for a in mine
        )
        if mine and inside:  # (a field that does not parse is no one inside)
            return frozenset()
        known = self._cache.recipients  # shared by threads: only get and set
        ids = [
            i
            for i in self._c.execute(
                _RUN_SENDS, {"run_id": intent.run_id, "org_id": self.org_id}
            ).scalars()
            if i != intent.id
        ]
        found = {i: known[i] for i in ids if i in known}
        missing = [i for i in ids if i not in found]
        if len(known) + len(missing) > _FACTS_KEPT:
            known.clear()
        for start in range(0, len(missing), 500):
            rows = self._c.execute(_SEND_BODIES, {"ids": missing[start : start + 500]})
            for r in rows:
                found[r.id] = known[r.id] = recipients_of(
                    REGISTRY.get(r.tool), r.body.get("payload") or {}
                )
        pending = (
            recipients_of(REGISTRY.get(i["tool"]), i["body"].get("payload") or {})
            for i in self._rows.intents
            if i["run_id"] == intent.run_id
            and i["id"] != intent.id
            and i["status"] in (*SPENDING, Outcome.HOLD.value)
        )
        return frozenset().union(*found.values(), *pending)

    def _sources(self, intent: Intent) -> tuple[Source, ...]:
        """The records the intent's run read, as its holds name them."""
        if not intent.read_refs:
            return ()
        return read_sources(self._memory.retrieve(self.org_id, list(intent.read_refs)))

    def _records(self, intent: Intent) -> dict[str, tuple[str, ...]]:
        """The projects of the records the intent cites and its run read."""
        refs = list(dict.fromkeys((*intent.references, *intent.read_refs)))
        if not refs:
            return {}
        return {node.ref: node.projects for node in self._memory.retrieve(self.org_id, refs)}

    def _spend(
        self,
        intent: Intent,
        tool: ToolSpec,
        policy: OrgPolicy,
        records: dict[str, tuple[str, ...]],
    ) -> tuple[int, dict[str, int], tuple[int, tuple[str, ...]]]:
        """What this intent's run has spent, what each binding spend cap that may cover it
        (any of its projects or its records' projects) has committed, and what its payee
        was paid lately: read only for an intent that moves money."""
        reach = known_reach(intent, records)
        spending = [
            r for r in [*self._stored_spending(), *self._rows.spending] if r.id != intent.id
        ]
        run_spent, committed = counted(policy.index.caps(reach), spending, intent.run_id, self._now)
        return run_spent, committed, paid_to(spending, payee_of(tool, intent.payload), self._now)

    def _stored_spending(self) -> list[Spending]:
        """The org's stored intents that count against budgets and caps."""
        facts = self._cache.facts  # shared by threads: only get, set and clear it
        known: list[Spending] = []
        missing: list[str] = []
        for intent_id in self._c.execute(_SPENDING_IDS, {"org_id": self.org_id}).scalars():
            fact = facts.get(intent_id)
            if fact is None:
                missing.append(intent_id)
            else:
                known.append(fact)
        if len(facts) + len(missing) > _FACTS_KEPT:
            facts.clear()
        for start in range(0, len(missing), 500):
            rows = self._c.execute(_SPENDING_FACTS, {"ids": missing[start : start + 500]})
            for r in rows:
                fact = convert.spending(r, r.paid_at)
                facts[r.id] = fact
                known.append(fact)
        return known

    def _model_spend(self, run_id: str) -> int:
        """What the run's model calls cost, as charged on the chain (its reasoning call,
        and a deliberation's persona rounds). The charges are written before the run
        proposes anything and never change, so a process reads them once per run (a run
        charged nothing is remembered as 0)."""
        charges = self._cache.charges  # shared by threads: only get, set and clear it
        known = charges.get(run_id)
        if known is not None:
            return known
        key = usage_key(run_id)
        rows = self._c.execute(
            _CHARGE,
            {"org_id": self.org_id, "event_key": key, "first": f"{key}:", "past": f"{key};"},
        ).all()
        charged = sum(cents for row in rows if isinstance(cents := row.payload.get("cents"), int))
        if len(charges) >= _FACTS_KEPT:
            charges.clear()
        charges[run_id] = charged
        return charged

    def _standing_holds(self) -> tuple[StandingHold, ...]:
        """The organization's open standing holds: read for an intent that moves money
        (few rows; written by their connector, so not part of the cached configuration)."""
        rows = self._c.execute(_OPEN_STANDING_HOLDS, {"org_id": self.org_id})
        return tuple(convert.standing_hold(r) for r in rows)

    def _in_flight(self, intent: Intent) -> dict[str, tuple[InFlight, ...]]:
        """Claims this intent collides with: on its key or its operation's wildcard; for
        an intent that names no resource, every claim of its operation."""
        tool = REGISTRY.get(intent.tool)
        if tool is None:
            return {}
        key, wildcard = _op_key(intent), wildcard_key(tool)
        if key is not None:
            rows = self._c.execute(
                _IN_FLIGHT_ON_KEYS, {"org_id": self.org_id, "key": key, "wildcard": wildcard}
            )
        else:
            rows = self._c.execute(
                _IN_FLIGHT_ON_PREFIX,
                {"org_id": self.org_id, "pattern": _like_prefix(wildcard[:-1])},
            )
        claims = [
            InFlight(key=r.key, intent_id=r.intent_id, status=Outcome(r.status)) for r in rows
        ]
        pending = self._rows.claims
        if key is not None:
            claims += [*pending.get(key, ()), *pending.get(wildcard, ())]
        else:
            prefix = wildcard[:-1]
            claims += [c for k, group in pending.items() if k.startswith(prefix) for c in group]
        return in_flight_by_key(claims)

    def _completed(self, intent: Intent) -> dict[str, tuple[str, ...]]:
        """For a write that may not be repeated: the intents that already did it."""
        tool = REGISTRY.get(intent.tool)
        key = _op_key(intent)
        if tool is None or tool.repeatable or key is None:
            return {}
        done = self._c.execute(_COMPLETED, {"org_id": self.org_id, "op_key": key}).scalars()
        ids = tuple(done)
        return {key: ids} if ids else {}

    def record(
        self, intent: Intent, decision: Decision, effects: Effects, draft: AuditDraft
    ) -> Decision:
        now, org = self._now, self.org_id
        new = intent.id in self._new
        if not new:  # a decision on a recorded intent: what is pending goes first
            self.flush()
            self._update(intent.id, effects)
        entry = self._chain.append(draft, now, fresh=new)
        recorded = decision.model_copy(
            update={
                "audit_seq": entry.seq,
                "entry_hash": entry.entry_hash,
                "intent_digest": intent.digest,
            }
        )
        if new:
            self._new.discard(intent.id)
            self._rows.add_intent(intent, recorded, effects, org, now)
        self._rows.decisions.append(
            {
                "org_id": org,
                "intent_id": intent.id,
                "outcome": recorded.outcome.value,
                "stage": recorded.stage.value,
                "rule": recorded.rule,
                "reason": recorded.reason,
                "release": list(recorded.release),
                "reach": list(recorded.reach),
                "evidence": list(recorded.evidence),
                "reasons": [list(cause) for cause in recorded.reasons],
                "mode": recorded.mode.value,
                "enforced": None if recorded.enforced is None else recorded.enforced.value,
                "intent_digest": intent.digest,
                "audit_seq": entry.seq,
                "entry_hash": entry.entry_hash,
                "decided_at": now,
            }
        )
        if not new:
            self.flush()
        return recorded

    def _update(self, intent_id: str, effects: Effects) -> None:
        """Apply ``effects`` to a recorded intent: its status, its keys, its hold."""
        c, org, now = self._c, self.org_id, self._now
        c.execute(_SET_STATUS, {"b_intent_id": intent_id, "b_status": effects.status.value})
        if effects.release:
            _release_claims(c, org, intent_id)
        if (
            effects.claim is not None
            and c.execute(_CLAIM_HOLDER, {"org_id": org, "key": effects.claim}).first() is None
        ):
            c.execute(
                _INSERT_CLAIM,
                {"org_id": org, "key": effects.claim, "intent_id": intent_id, "claimed_at": now},
            )
        if effects.hold is HoldState.OPEN:
            release = list(effects.release_conditions)
            if c.execute(_HOLD, {"intent_id": intent_id}).first() is not None:
                c.execute(_SET_HOLD_RELEASE, {"b_intent_id": intent_id, "b_release": release})
            else:
                c.execute(_INSERT_HOLD, _open_hold(intent_id, org, release, now))
        elif effects.hold is not None:  # resolves an open hold, if the intent has one
            c.execute(
                _RESOLVE_HOLD,
                {
                    "b_intent_id": intent_id,
                    "b_state": str(effects.hold),
                    "b_resolved_by": effects.resolved_by,
                    "b_resolved_at": now,
                },
            )

    def _set_poisoned(self, reason: str | None) -> None:
        self.flush()
        self._c.execute(_SET_POISONED, {"b_org_id": self.org_id, "b_poisoned": reason})

    def poison(self, draft: AuditDraft, reason: str) -> None:
        self._set_poisoned(reason[:2000])
        self._poisoned = reason
        self._chain.poisoned = reason  # a poisoned chain is not checkpointed
        try:
            with self._c.begin_nested():  # a failed append leaves the flag standing
                self.append(draft)
                self._chain.write_pending()
        except (AuditError, DBAPIError) as e:  # too broken to extend: stopped, unrecorded
            self._chain.discard()  # nor is its head moved past an entry that is not there
            log.critical("organization %s: its poisoning is not on the chain: %s", self.org_id, e)

    def unpoison(self, draft: AuditDraft) -> None:
        self._set_poisoned(None)
        self.append(draft)
        self._poisoned = None
        self._chain.poisoned = None


class SqlGovernance:
    """:class:`~domain.governance.ports.GovernanceStore` over SQLite or PostgreSQL."""

    def __init__(
        self, db: Database, keys: ChainKeys, memory: MemoryAdapter, cache: OrgCache | None = None
    ) -> None:
        self._db = db
        self._keys = keys
        self._memory = memory
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
                    raise UnknownOrganization(f"no organization {org_id}") from exc
                chain = ChainWriter(s, org_id, self._keys, locked)
                unit = SqlGovernanceUnit(s, org_id, now, locked, chain, self._cache, self._memory)
                yield unit
                unit.flush()
                chain.flush()
        except DBAPIError as exc:
            raise StoreFailure(str(exc).splitlines()[0]) from exc

    def joined(
        self, session: Session, org_id: str, now: datetime, locked: LockedHead, chain: ChainWriter
    ) -> SqlGovernanceUnit:
        """A unit inside a transaction the caller already holds, with the organization's
        lock and chain writer (a connector whose write is itself a governance change)."""
        return SqlGovernanceUnit(session, org_id, now, locked, chain, self._cache, self._memory)

    def token_for(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """The intent a decision is about and the token naming that decision (checked by
        the connector, in the write's own transaction)."""
        with self._db.read() as s:
            row = s.get(IntentRow, decision.intent_id)
            if row is None or row.org_id != org_id:
                raise FoundationBroken(f"intent {decision.intent_id} is not recorded")
            intent = convert.intent(row)
        return intent, token_for(intent, decision)
