"""The organization's directory: orgs, principals, agents, projects, staffing,
barriers and commitments."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.errors import Conflict, NotFound
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditHeadRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    StaffingRow,
)
from domain.audit import GENESIS_HASH
from domain.model import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Organization,
    Principal,
    PrincipalKind,
    Project,
    ReviewState,
    Staffing,
)


def new_id() -> str:
    """A fresh random identifier."""
    return str(uuid.uuid4())


def _add_agent_rows(
    s: Session, agent: Principal, definition: AgentDefinition, charter: Charter, now: datetime
) -> None:
    s.add(PrincipalRow(**agent.model_dump(mode="json"), created_at=now))
    s.flush()
    s.add(AgentDefinitionRow(**definition.model_dump(), created_at=now))
    s.add(CharterRow(**charter.model_dump(mode="json"), created_at=now))


class Directory:
    """Reads and writes the organization's standing records."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # organizations and principals -------------------------------------------------------
    def create_org(
        self,
        name: str,
        founder: Principal,
        agents: list[tuple[Principal, AgentDefinition, Charter]],
        now: datetime,
    ) -> Organization:
        """Create an organization, its founder, its agents and an empty audit chain,
        all in one transaction: a failure leaves nothing behind."""
        try:
            with self._db.transaction() as s:
                s.add(OrgRow(id=founder.org_id, name=name, founder_id=founder.id, created_at=now))
                s.add(PrincipalRow(**founder.model_dump(mode="json"), created_at=now))
                s.add(AuditHeadRow(org_id=founder.org_id, seq=0, entry_hash=GENESIS_HASH))
                for agent, definition, charter in agents:
                    _add_agent_rows(s, agent, definition, charter, now)
        except IntegrityError as exc:
            raise Conflict(f"could not create the organization: {exc.orig}") from exc
        return Organization(id=founder.org_id, name=name, founder_id=founder.id)

    def org(self, org_id: str) -> Organization:
        with self._db.transaction() as s:
            row = s.get(OrgRow, org_id)
            if row is None:
                raise NotFound(f"no organization {org_id}")
            return convert.org(row)

    def add_principal(self, principal: Principal, now: datetime) -> Principal:
        """Add a human or agent principal; handles are unique in an organization."""
        try:
            with self._db.transaction() as s:
                s.add(PrincipalRow(**principal.model_dump(mode="json"), created_at=now))
        except IntegrityError as exc:
            raise Conflict(f"handle {principal.handle!r} is taken") from exc
        return principal

    def add_agent(
        self, agent: Principal, definition: AgentDefinition, charter: Charter, now: datetime
    ) -> Principal:
        """Add an agent with its definition and charter in one transaction."""
        try:
            with self._db.transaction() as s:
                _add_agent_rows(s, agent, definition, charter, now)
        except IntegrityError as exc:
            raise Conflict(f"handle {agent.handle!r} is taken") from exc
        return agent

    def principal(self, org_id: str, principal_id: str) -> Principal:
        with self._db.transaction() as s:
            row = s.get(PrincipalRow, principal_id)
            if row is None or row.org_id != org_id:
                raise NotFound(f"no principal {principal_id} in this organization")
            return convert.principal(row)

    def find_principal(self, principal_id: str) -> Principal | None:
        """A principal by id, in whatever organization."""
        with self._db.transaction() as s:
            row = s.get(PrincipalRow, principal_id)
            return None if row is None else convert.principal(row)

    def principals(self, org_id: str) -> list[Principal]:
        with self._db.transaction() as s:
            rows = s.execute(
                select(PrincipalRow)
                .where(col(PrincipalRow.org_id) == org_id)
                .order_by(
                    col(PrincipalRow.kind),
                    col(PrincipalRow.handle),
                )
            ).scalars()
            return [convert.principal(r) for r in rows]

    def agent_profile(self, principal_id: str) -> tuple[AgentDefinition | None, Charter | None]:
        """The newest definition and charter of an agent."""
        with self._db.transaction() as s:
            d = (
                s.execute(
                    select(AgentDefinitionRow)
                    .where(col(AgentDefinitionRow.principal_id) == principal_id)
                    .order_by(col(AgentDefinitionRow.version).desc())
                )
                .scalars()
                .first()
            )
            c = (
                s.execute(
                    select(CharterRow)
                    .where(col(CharterRow.principal_id) == principal_id)
                    .order_by(col(CharterRow.version).desc())
                )
                .scalars()
                .first()
            )
            return (
                None if d is None else convert.definition(d),
                None if c is None else convert.charter(c),
            )

    # projects, staffing, barriers ----------------------------------------------------------
    def add_project(self, project: Project, now: datetime) -> Project:
        try:
            with self._db.transaction() as s:
                s.add(ProjectRow(**project.model_dump(), created_at=now))
        except IntegrityError as exc:
            raise Conflict(f"project {project.slug!r} exists") from exc
        return project

    def projects(self, org_id: str) -> list[Project]:
        with self._db.transaction() as s:
            rows = s.execute(
                select(ProjectRow)
                .where(col(ProjectRow.org_id) == org_id)
                .order_by(col(ProjectRow.slug))
            ).scalars()
            return [convert.project(r) for r in rows]

    def staff(self, org_id: str, staffing: Staffing) -> Staffing:
        """Record a staffing; the principal and project must be of this organization."""
        with self._db.transaction() as s:
            who = s.get(PrincipalRow, staffing.principal_id)
            if who is None or who.org_id != org_id:
                raise NotFound(f"no principal {staffing.principal_id} in this organization")
            if s.get(ProjectRow, (org_id, staffing.project)) is None:
                raise NotFound(f"no project {staffing.project!r}")
            s.add(StaffingRow(org_id=org_id, **staffing.model_dump()))
        return staffing

    def end_staffing(self, org_id: str, staffing_id: str, at: datetime) -> Staffing:
        """End a staffing at ``at`` (history is kept; authority ends)."""
        with self._db.transaction() as s:
            row = s.get(StaffingRow, staffing_id)
            if row is None or row.org_id != org_id:
                raise NotFound(f"no staffing {staffing_id}")
            current = convert.staffing(row)
            if current.valid_until is None or current.valid_until > at:
                row.valid_until = at
                s.add(row)
            return convert.staffing(row)

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]:
        with self._db.transaction() as s:
            query = select(StaffingRow).where(col(StaffingRow.org_id) == org_id)
            if principal_id is not None:
                query = query.where(col(StaffingRow.principal_id) == principal_id)
            return [convert.staffing(r) for r in s.execute(query).scalars()]

    def add_barrier(self, barrier: Barrier, now: datetime) -> Barrier:
        with self._db.transaction() as s:
            known = set(
                s.execute(
                    select(col(ProjectRow.slug)).where(col(ProjectRow.org_id) == barrier.org_id)
                ).scalars()
            )
            missing = {p for g in barrier.groups for p in g} - known
            if missing:
                raise NotFound(f"no project {', '.join(sorted(missing))}")
            s.add(
                BarrierRow(
                    id=barrier.id,
                    org_id=barrier.org_id,
                    name=barrier.name,
                    groups=[list(g) for g in barrier.groups],
                    created_at=now,
                )
            )
        return barrier

    def barriers(self, org_id: str) -> list[Barrier]:
        with self._db.transaction() as s:
            rows = s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == org_id)).scalars()
            return [convert.barrier(r) for r in rows]

    # commitments ----------------------------------------------------------------------------
    def add_commitment(self, commitment: Commitment, now: datetime) -> Commitment:
        data = commitment.model_dump(mode="python")
        data["constraint"] = commitment.constraint.model_dump(mode="json")
        data["provenance"] = commitment.provenance.model_dump(mode="json")
        data["projects"] = list(commitment.projects)
        with self._db.transaction() as s:
            s.add(CommitmentRow(**data, created_at=now))
        return commitment

    def confirm_commitment(
        self, org_id: str, commitment_id: str, by: str, at: datetime
    ) -> Commitment:
        """A human confirms an extracted commitment; only then does it bind."""
        with self._db.transaction() as s:
            row = s.get(CommitmentRow, commitment_id)
            if row is None or row.org_id != org_id:
                raise NotFound(f"no commitment {commitment_id}")
            if row.state != ReviewState.EXTRACTED:
                raise Conflict(f"commitment is {row.state}, not extracted")
            row.state = ReviewState.CONFIRMED
            row.confirmed_by = by
            row.confirmed_at = at
            s.add(row)
            s.flush()
            return convert.commitment(row)

    def commitments(self, org_id: str) -> list[Commitment]:
        with self._db.transaction() as s:
            rows = s.execute(
                select(CommitmentRow).where(col(CommitmentRow.org_id) == org_id)
            ).scalars()
            return [convert.commitment(r) for r in rows]

    def is_human(self, org_id: str, principal_id: str) -> bool:
        """True for an active human principal of the organization."""
        try:
            p = self.principal(org_id, principal_id)
        except NotFound:
            return False
        return p.kind is PrincipalKind.HUMAN and p.status == "active"
