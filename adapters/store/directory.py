"""The organization's directory: orgs, principals, agents, projects, staffing,
barriers and commitments."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlmodel import col

from adapters.store import convert
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    StaffingRow,
)
from domain.errors import NotFound
from domain.model import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Organization,
    Principal,
    Project,
    Staffing,
)


def new_id() -> str:
    """A fresh random identifier."""
    return str(uuid.uuid4())


class Directory:
    """Reads an organization's standing records (:class:`~domain.ports.Directory`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # organizations and principals -------------------------------------------------------
    def org(self, org_id: str) -> Organization:
        with self._db.read() as s:
            row = s.get(OrgRow, org_id)
            if row is None:
                raise NotFound(f"no organization {org_id}")
            return convert.org(row)

    def principal(self, org_id: str, principal_id: str) -> Principal:
        with self._db.read() as s:
            row = s.get(PrincipalRow, principal_id)
            if row is None or row.org_id != org_id:
                raise NotFound(f"no principal {principal_id} in this organization")
            return convert.principal(row)

    def find_principal(self, principal_id: str) -> Principal | None:
        """A principal by id, in whatever organization."""
        with self._db.read() as s:
            row = s.get(PrincipalRow, principal_id)
            return None if row is None else convert.principal(row)

    def principals(self, org_id: str) -> list[Principal]:
        with self._db.read() as s:
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
        with self._db.read() as s:
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

    # projects, staffing, barriers, commitments (reads; writes go through
    # adapters.store.configuration, under the organization's lock) ------------------------
    def projects(self, org_id: str) -> list[Project]:
        with self._db.read() as s:
            rows = s.execute(
                select(ProjectRow)
                .where(col(ProjectRow.org_id) == org_id)
                .order_by(col(ProjectRow.slug))
            ).scalars()
            return [convert.project(r) for r in rows]

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]:
        with self._db.read() as s:
            query = select(StaffingRow).where(col(StaffingRow.org_id) == org_id)
            if principal_id is not None:
                query = query.where(col(StaffingRow.principal_id) == principal_id)
            return [convert.staffing(r) for r in s.execute(query).scalars()]

    def barriers(self, org_id: str) -> list[Barrier]:
        with self._db.read() as s:
            rows = s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == org_id)).scalars()
            return [convert.barrier(r) for r in rows]

    def commitments(self, org_id: str) -> list[Commitment]:
        with self._db.read() as s:
            rows = s.execute(
                select(CommitmentRow).where(col(CommitmentRow.org_id) == org_id)
            ).scalars()
            return [convert.commitment(r) for r in rows]
