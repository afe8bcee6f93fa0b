"""The heartbeat's store: what its checks read of an organization, and its own record
(the one table a heartbeat writes itself)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import select, update
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.audit import append
from adapters.store.db import utc
from adapters.store.session import Database
from adapters.store.tables import (
    ClaimRow,
    CommitmentRow,
    DecisionRow,
    FindingRow,
    HeartbeatRunRow,
    HoldRow,
    IntentRow,
    OrgRow,
    PrincipalRow,
    RunRow,
    StaffingRow,
    StandingHoldRow,
)
from domain.audit.chain import AuditDraft, ChainKeys
from domain.errors import Conflict, NotFound
from domain.governance.intents import Outcome
from domain.governance.values import HoldState
from domain.heartbeat.checks import (
    FINDINGS_FILE,
    HOLDS_PLACE,
    PROPOSE_AGAIN_AFTER,
    CommitmentFacts,
    FiledFinding,
    HeartbeatRun,
    OpenIntent,
    OrgSnapshot,
)
from domain.organization.contracts import StandingHold
from domain.organization.kinds import PrincipalKind, PrincipalStatus

RowT = TypeVar("RowT", FindingRow, StandingHoldRow)

DIAGNOSTIC = "diagnostic"
"""The agent kind of the organization's diagnostic agent (Sentinel)."""


def _filed_finding(r: FindingRow) -> FiledFinding:
    return FiledFinding(
        id=r.intent_id,
        org_id=r.org_id,
        principal_id=r.principal_id,
        kind=r.kind,
        subject=r.subject,
        cites=r.cites,
        projects=tuple(r.projects),
        filed_at=utc(r.created_at),
        severity=r.severity,
        summary=r.summary,
        evidence=tuple(r.evidence),
        resolved_by=r.resolved_by,
        resolved_at=None if r.resolved_at is None else utc(r.resolved_at),
        resolution=r.resolution or "",
    )


def _filed(s: Session, org_id: str) -> tuple[FiledFinding, ...]:
    """The organization's filed findings, oldest first."""
    return tuple(
        _filed_finding(r)
        for r in s.execute(
            select(FindingRow)
            .where(col(FindingRow.org_id) == org_id)
            .order_by(col(FindingRow.created_at), col(FindingRow.intent_id))
        ).scalars()
    )


def _standing(s: Session, org_id: str) -> tuple[StandingHold, ...]:
    """The organization's standing holds, released or not, oldest first."""
    return tuple(
        convert.standing_hold(r)
        for r in s.execute(
            select(StandingHoldRow)
            .where(col(StandingHoldRow.org_id) == org_id)
            .order_by(col(StandingHoldRow.created_at), col(StandingHoldRow.intent_id))
        ).scalars()
    )


class SqlHeartbeat:
    """:class:`~domain.heartbeat.ports.HeartbeatStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys | None = None) -> None:
        self._db = db
        self._keys = keys
        """Sign the chain entry of a resolution; a store without them only reads."""

    def standing_holds(self, org_id: str) -> list[StandingHold]:
        with self._db.read() as s:
            return list(_standing(s, org_id))

    def standing_hold(self, hold_id: str) -> StandingHold | None:
        with self._db.read() as s:
            row = s.get(StandingHoldRow, hold_id)
            return None if row is None else convert.standing_hold(row)

    def release(
        self, hold_id: str, actor_id: str, reason: str, now: datetime, audit: AuditDraft
    ) -> StandingHold:
        # Under the organization's lock, as the broker's decisions are: a decision sees
        # the hold open or released, never half of it.
        row = self._once(
            StandingHoldRow,
            hold_id,
            col(StandingHoldRow.released_at),
            {"released_by": actor_id, "released_at": now, "release_reason": reason},
            now,
            audit,
            what="standing hold",
            done="released",
        )
        return convert.standing_hold(row)

    def finding(self, finding_id: str) -> FiledFinding | None:
        with self._db.read() as s:
            row = s.get(FindingRow, finding_id)
            return None if row is None else _filed_finding(row)

    def resolve(
        self, finding_id: str, actor_id: str, reason: str, now: datetime, audit: AuditDraft
    ) -> FiledFinding:
        row = self._once(
            FindingRow,
            finding_id,
            col(FindingRow.resolved_at),
            {"resolved_by": actor_id, "resolved_at": now, "resolution": reason},
            now,
            audit,
            what="finding",
            done="resolved",
        )
        return _filed_finding(row)

    def _once(
        self,
        row_type: type[RowT],
        key: str,
        unset: Any,
        values: dict[str, Any],
        now: datetime,
        audit: AuditDraft,
        *,
        what: str,
        done: str,
    ) -> RowT:
        """Set ``values`` on the row ``key`` of ``row_type`` once (while ``unset`` is
        null), with ``audit`` on its organization's chain in the same transaction. The
        entry goes first: it takes the organization's lock, so such changes of one
        organization are ordered; the update is conditional all the same, and a second
        one is a Conflict that rolls its entry back with it."""
        if self._keys is None:
            raise RuntimeError("this heartbeat store was opened without the chain's keys")
        with self._db.transaction() as s:
            row = s.get(row_type, key)
            if row is None:
                raise NotFound(f"no {what} {key}")
            append(s, row.org_id, audit, now, self._keys)
            changed = s.execute(
                update(row_type)
                .where(col(row_type.intent_id) == key, unset.is_(None))
                .values(**values)
            )
            if changed.rowcount != 1:  # type: ignore[attr-defined]
                raise Conflict(f"{what} {key} is {done} already")
            s.expire_all()
            fresh = s.get(row_type, key)
            assert fresh is not None
            return fresh

    def orgs(self) -> list[str]:
        with self._db.read() as s:
            return list(s.execute(select(col(OrgRow.id)).order_by(col(OrgRow.id))).scalars())

    def snapshot(self, org_id: str, now: datetime) -> OrgSnapshot:
        with self._db.read() as s:
            sentinel_id, projects = self._sentinel(s, org_id, now)
            return OrgSnapshot(
                org_id=org_id,
                commitments=tuple(
                    CommitmentFacts(commitment=convert.commitment(r), recorded_at=utc(r.created_at))
                    for r in s.execute(
                        select(CommitmentRow)
                        .where(col(CommitmentRow.org_id) == org_id)
                        .order_by(col(CommitmentRow.created_at), col(CommitmentRow.id))
                    ).scalars()
                ),
                findings=_filed(s, org_id),
                open_intents=self._open_intents(s, org_id),
                sentinel_id=sentinel_id,
                sentinel_projects=projects,
                recently_proposed=self._proposed(s, org_id, sentinel_id, now, FINDINGS_FILE),
                recently_proposed_holds=self._proposed(s, org_id, sentinel_id, now, HOLDS_PLACE),
                standing_holds=_standing(s, org_id),
            )

    def findings(self, org_id: str) -> list[FiledFinding]:
        with self._db.read() as s:
            return list(_filed(s, org_id))

    def _sentinel(
        self, s: Session, org_id: str, now: datetime
    ) -> tuple[str | None, tuple[str, ...]]:
        row = s.execute(
            select(PrincipalRow)
            .where(
                col(PrincipalRow.org_id) == org_id,
                col(PrincipalRow.kind) == PrincipalKind.AGENT.value,
                col(PrincipalRow.agent_kind) == DIAGNOSTIC,
                col(PrincipalRow.status) == PrincipalStatus.ACTIVE.value,
            )
            .order_by(col(PrincipalRow.handle))
            .limit(1)
        ).scalar_one_or_none()
        if row is None:
            return None, ()
        staffing = [
            convert.staffing(r)
            for r in s.execute(
                select(StaffingRow).where(col(StaffingRow.principal_id) == row.id)
            ).scalars()
        ]
        return row.id, tuple(sorted({st.project for st in staffing if st.active_at(now)}))

    def _proposed(
        self, s: Session, org_id: str, sentinel_id: str | None, now: datetime, tool: str
    ) -> tuple[str, ...]:
        """Subjects the diagnostic agent proposed lately with ``tool``, whatever became of
        them."""
        if sentinel_id is None:
            return ()
        bodies = s.execute(
            select(col(IntentRow.body)).where(
                col(IntentRow.org_id) == org_id,
                col(IntentRow.principal_id) == sentinel_id,
                col(IntentRow.tool) == tool,
                col(IntentRow.created_at) >= now - PROPOSE_AGAIN_AFTER,
            )
        ).scalars()
        return tuple(sorted({str(b["payload"]["subject"]) for b in bodies}))

    def _open_intents(self, s: Session, org_id: str) -> tuple[OpenIntent, ...]:
        """Every intent with an open hold or an operation key, with its run's workflow."""
        held = set(
            s.execute(
                select(col(HoldRow.intent_id)).where(
                    col(HoldRow.org_id) == org_id, col(HoldRow.state) == HoldState.OPEN.value
                )
            ).scalars()
        )
        keys: dict[str, list[str]] = {}
        for claim in s.execute(select(ClaimRow).where(col(ClaimRow.org_id) == org_id)).scalars():
            keys.setdefault(claim.intent_id, []).append(claim.key)
        ids = sorted(held | keys.keys())
        if not ids:
            return ()
        intents = {
            r.id: r
            for r in s.execute(select(IntentRow).where(col(IntentRow.id).in_(ids))).scalars()
        }
        rules: dict[str, tuple[int, str]] = {}
        for d in s.execute(
            select(col(DecisionRow.id), col(DecisionRow.intent_id), col(DecisionRow.rule)).where(
                col(DecisionRow.intent_id).in_(ids)
            )
        ):
            if d.intent_id not in rules or rules[d.intent_id][0] < (d.id or 0):
                rules[d.intent_id] = (d.id or 0, d.rule)
        run_ids = {r.run_id for r in intents.values()}
        workflows: dict[str, str] = {
            r.id: r.workflow_id
            for r in s.execute(
                select(col(RunRow.id), col(RunRow.workflow_id)).where(
                    col(RunRow.id).in_(sorted(run_ids))
                )
            )
        }
        return tuple(
            OpenIntent(
                intent_id=i.id,
                run_id=i.run_id,
                principal_id=i.principal_id,
                tool=i.tool,
                status=Outcome(i.status),
                hold_open=i.id in held,
                rule=rules.get(i.id, (0, ""))[1],
                keys=tuple(sorted(keys.get(i.id, ()))),
                reach=tuple(i.reach),
                since=utc(i.created_at),
                workflow_id=workflows.get(i.run_id),
            )
            for i in (intents[x] for x in ids if x in intents)
        )

    def record(self, run: HeartbeatRun) -> None:
        body = run.model_dump(mode="json")
        with self._db.transaction() as s:
            row = s.get(HeartbeatRunRow, run.id)
            if row is None:
                s.add(
                    HeartbeatRunRow(
                        id=run.id,
                        org_id=run.org_id,
                        workflow_id=run.workflow_id,
                        started_at=run.started_at,
                        ended_at=run.ended_at,
                        body=body,
                    )
                )
            else:
                row.ended_at = run.ended_at
                row.body = body
                s.add(row)

    def runs(self, org_id: str, limit: int = 20) -> list[HeartbeatRun]:
        with self._db.read() as s:
            rows = s.execute(
                select(HeartbeatRunRow)
                .where(col(HeartbeatRunRow.org_id) == org_id)
                .order_by(col(HeartbeatRunRow.started_at).desc(), col(HeartbeatRunRow.id))
                .limit(limit)
            ).scalars()
            return [HeartbeatRun.model_validate(r.body) for r in rows]
