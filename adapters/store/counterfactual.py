"""The governance record read back for a counterfactual, in one read-only transaction.

Nothing here locks the organization, claims a key, writes a row or appends an entry: on
PostgreSQL the transaction is declared ``READ ONLY``, so a write would fail; on SQLite
it takes no write lock. The broker's snapshot is rebuilt as of one recorded decision
from the decisions table: an intent's status then is its newest decision before that
one (by audit sequence), its write had happened if its ``dispatched`` entry comes
earlier in the chain.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select

from adapters.store import convert
from adapters.store.db import utc
from adapters.store.organization_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import AuditEntryRow, DecisionRow, HoldRow, IntentRow
from domain.counterfactual.replay import OtherIntent, SnapshotBasis
from domain.errors import NotFound
from domain.governance import records as chain_records
from domain.governance.broker import known_reach, operation_key, wildcard_key
from domain.governance.destinations import read_sources, recipients_of
from domain.governance.intents import Decision, Intent, Outcome
from domain.governance.spend import counted, paid_to, payee_of
from domain.governance.values import (
    BrokerSnapshot,
    HoldState,
    InFlight,
    StoredIntent,
    in_flight_by_key,
)
from domain.memory.adapter import MemoryAdapter
from domain.tools import REGISTRY

_SPENDING = frozenset({Outcome.ALLOW, Outcome.APPROVED})
_CLAIMING = frozenset({Outcome.ALLOW, Outcome.APPROVED, Outcome.HOLD})


class SqlReplayUnit:
    """:class:`~domain.counterfactual.ports.ReplayUnit` over one read-only transaction."""

    def __init__(
        self, session: Session, org_id: str, policy: OrgPolicy, memory: MemoryAdapter
    ) -> None:
        self._s = session
        self.org_id = org_id
        self._policy = policy
        self._memory = memory.joined(session.connection())

    def _row(self, intent_id: str) -> IntentRow | None:
        row = self._s.get(IntentRow, intent_id)
        return None if row is None or row.org_id != self.org_id else row

    def decisions(self, intent_id: str) -> tuple[Decision, ...]:
        rows = self._s.exec(
            select(DecisionRow)
            .where(col(DecisionRow.intent_id) == intent_id, col(DecisionRow.org_id) == self.org_id)
            .order_by(col(DecisionRow.id))
        )
        return tuple(convert.decision(r) for r in rows)

    def stored(self, intent_id: str) -> StoredIntent | None:
        row = self._row(intent_id)
        decisions = () if row is None else self.decisions(intent_id)
        if row is None or not decisions:
            return None
        hold = self._s.get(HoldRow, intent_id)
        return StoredIntent(
            intent=convert.intent(row),
            run_id=row.run_id,
            status=Outcome(row.status),
            dispatched=row.dispatched,
            hold=None if hold is None else HoldState(hold.state),
            latest=decisions[-1],
            reach=tuple(row.reach),
        )

    def others(self, intent_ids: Sequence[str]) -> dict[str, OtherIntent]:
        found: dict[str, OtherIntent] = {}
        for intent_id in intent_ids:
            row = self._row(intent_id)
            if row is not None:
                found[intent_id] = OtherIntent(
                    intent_id=row.id,
                    status=Outcome(row.status),
                    dispatched=row.dispatched,
                    reach=tuple(row.reach),
                    payload=dict(convert.intent(row).payload),
                )
        return found

    def _as_of(
        self, seq: int
    ) -> tuple[dict[str, tuple[Outcome, str]], set[str], dict[str, datetime]]:
        """Each intent's (outcome, rule) as of just before entry ``seq``, the intents
        whose write had happened by then, and when each spending one was let through."""
        status: dict[str, tuple[Outcome, str]] = {}
        let_through: dict[str, datetime] = {}
        for intent_id, outcome, rule, decided_at in self._s.exec(
            select(
                DecisionRow.intent_id, DecisionRow.outcome, DecisionRow.rule, DecisionRow.decided_at
            )
            .where(col(DecisionRow.org_id) == self.org_id, col(DecisionRow.audit_seq) < seq)
            .order_by(col(DecisionRow.audit_seq))
        ):
            status[intent_id] = (Outcome(outcome), rule)
            if Outcome(outcome) in _SPENDING:
                let_through[intent_id] = utc(decided_at)
        written = {
            i
            for i in self._s.exec(
                select(AuditEntryRow.intent_id).where(
                    col(AuditEntryRow.org_id) == self.org_id,
                    col(AuditEntryRow.decision) == chain_records.DISPATCHED,
                    col(AuditEntryRow.seq) < seq,
                )
            )
            if i is not None
        }
        return status, written, let_through

    def snapshot_at(
        self, intent: Intent, decision: Decision
    ) -> tuple[BrokerSnapshot, SnapshotBasis]:
        policy, now = self._policy, decision.decided_at
        assert now is not None and decision.audit_seq is not None
        seq = decision.audit_seq
        basis = SnapshotBasis.AS_DECIDED if policy.config_seq < seq else SnapshotBasis.NOW
        refs = list(dict.fromkeys((*intent.references, *intent.read_refs)))
        found = self._memory.retrieve(self.org_id, refs)
        records = {node.ref: node.projects for node in found}
        status, written, let_through = self._as_of(seq)
        rows: list[Any] = list(
            self._s.exec(
                select(IntentRow).where(
                    col(IntentRow.org_id) == self.org_id, col(IntentRow.id) != intent.id
                )
            )
        )
        rows = [r for r in rows if r.id in status]  # decided before this decision
        reach = known_reach(intent, records)
        spending = [
            convert.spending(r, let_through.get(r.id))
            for r in rows
            if status[r.id][0] in _SPENDING and r.spend_cents > 0
        ]
        run_spent, committed = counted(policy.index.caps(reach), spending, intent.run_id, now)
        paid, payments = paid_to(spending, payee_of(REGISTRY.get(intent.tool), intent.payload), now)
        in_flight, completed = self._writes(intent, rows, status, written)
        pinned = policy.pinned(intent.principal_id, intent.pin)
        snapshot = BrokerSnapshot(
            now=now,
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
            in_flight=in_flight,
            completed=completed,
            # Destinations keep their history: as established when it was decided.
            counterparties=policy.counterparties(now),
            sources=read_sources(n for n in found if n.ref in set(intent.read_refs)),
            # whom the run's other messages wrote to (let through or held) then
            run_recipients=frozenset(
                address
                for r in rows
                if r.run_id == intent.run_id
                and status[r.id][0] in (Outcome.ALLOW, Outcome.APPROVED, Outcome.HOLD)
                for address in recipients_of(
                    REGISTRY.get(r.tool), (r.body or {}).get("payload") or {}
                )
            ),
            tools=REGISTRY,
        )
        return snapshot, basis

    @staticmethod
    def _writes(
        intent: Intent,
        rows: list[Any],
        status: dict[str, tuple[Outcome, str]],
        written: set[str],
    ) -> tuple[dict[str, tuple[InFlight, ...]], dict[str, tuple[str, ...]]]:
        """The keys other intents held then, and the writes already done on this key.

        An intent held a key while allowed, approved or held, its write not yet done;
        except one held for a collision, which waits without a key."""
        tool = REGISTRY.get(intent.tool)
        if tool is None:
            return {}, {}
        key, wildcard = operation_key(tool, intent.payload), wildcard_key(tool)
        claims: list[InFlight] = []
        done: list[str] = []
        for r in sorted(rows, key=lambda r: utc(r.created_at)):
            if r.tool != intent.tool:
                continue
            if key is not None and r.op_key not in (key, None):
                continue
            outcome, rule = status[r.id]
            if r.id in written:
                if key is not None and r.op_key == key and not tool.repeatable:
                    done.append(r.id)
                continue
            if outcome in _CLAIMING and "collision" not in rule.split("+"):
                claims.append(InFlight(key=r.op_key or wildcard, intent_id=r.id, status=outcome))
        completed = {key: tuple(done)} if key is not None and done else {}
        return in_flight_by_key(claims), completed


class SqlReplay:
    """:class:`~domain.counterfactual.ports.ReplayStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, memory: MemoryAdapter, cache: OrgCache | None = None) -> None:
        self._db = db
        self._memory = memory
        self._cache = cache or OrgCache()

    @contextmanager
    def read(self, org_id: str) -> Iterator[SqlReplayUnit]:
        with self._db.read() as s:
            if s.get_bind().dialect.name == "postgresql":
                s.execute(text("SET TRANSACTION READ ONLY"))
            policy = self._cache.current(s, org_id)
            if policy is None:
                raise NotFound(f"no organization {org_id}")
            yield SqlReplayUnit(s, org_id, policy, self._memory)
