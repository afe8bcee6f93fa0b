"""An organization's configuration, read and written in one transaction under its lock.

Configuration rules (who may be staffed where, which barrier may be raised, which
memory record may exist) compare what is stored with what is asked. Checked in one
transaction and written in another, two concurrent requests could each pass and
together break the rule. So every configuration use case runs inside
:meth:`OrgConfiguration.open`: it takes the organization's lock (the same lock that
serialises its broker decisions and audit appends), reads, lets the domain decide, and
writes, all before it commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col

from adapters.store import convert
from adapters.store.audit_log import AuditError, lock_head
from adapters.store.errors import Conflict, NotFound
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    MemoryNodeRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    StaffingRow,
)
from domain.model import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Organization,
    Principal,
    Project,
    ReviewState,
    Staffing,
)


class OrgConfiguration:
    """One organization's standing records inside one locked transaction."""

    def __init__(self, session: Session, org: Organization) -> None:
        self._s = session
        self.org = org

    @classmethod
    @contextmanager
    def open(cls, db: Database, org_id: str) -> Iterator[OrgConfiguration]:
        """Lock ``org_id`` and yield its configuration; commit on success.

        An unknown organization is :class:`NotFound`; a duplicate key is :class:`Conflict`.
        """
        try:
            with db.transaction() as s:
                try:
                    lock_head(s, org_id)
                except AuditError as exc:
                    raise NotFound(f"no organization {org_id}") from exc
                row = s.get(OrgRow, org_id)
                if row is None:
                    raise NotFound(f"no organization {org_id}")
                yield cls(s, convert.org(row))
        except IntegrityError as exc:
            raise Conflict(f"the change conflicts with what is stored: {exc.orig}") from exc

    def _add(self, row: SQLModel, conflict: str) -> None:
        """Insert ``row`` now, so that a duplicate is reported as ``conflict``."""
        try:
            with self._s.begin_nested():
                self._s.add(row)
                self._s.flush()
        except IntegrityError as exc:
            raise Conflict(conflict) from exc

    # principals --------------------------------------------------------------------------
    def find(self, principal_id: str) -> Principal | None:
        """A principal of this organization, or None."""
        row = self._s.get(PrincipalRow, principal_id)
        return None if row is None or row.org_id != self.org.id else convert.principal(row)

    def principal(self, principal_id: str) -> Principal:
        """A principal of this organization; :class:`NotFound` otherwise."""
        found = self.find(principal_id)
        if found is None:
            raise NotFound(f"no principal {principal_id} in this organization")
        return found

    def principals(self) -> list[Principal]:
        """Every principal of this organization."""
        rows = self._s.execute(
            select(PrincipalRow).where(col(PrincipalRow.org_id) == self.org.id)
        ).scalars()
        return [convert.principal(r) for r in rows]

    def handles(self) -> set[str]:
        """Every handle taken in this organization."""
        return set(
            self._s.execute(
                select(col(PrincipalRow.handle)).where(col(PrincipalRow.org_id) == self.org.id)
            ).scalars()
        )

    def add_principal(self, principal: Principal, now: datetime) -> Principal:
        """Add a human or agent principal; handles are unique in an organization."""
        self._add(
            PrincipalRow(**principal.model_dump(mode="json"), created_at=now),
            f"handle {principal.handle!r} is taken",
        )
        return principal

    def add_agent(
        self, agent: Principal, definition: AgentDefinition, charter: Charter, now: datetime
    ) -> Principal:
        """Add an agent with its definition and charter."""
        self.add_principal(agent, now)
        self._s.add(AgentDefinitionRow(**definition.model_dump(), created_at=now))
        self._s.add(CharterRow(**charter.model_dump(mode="json"), created_at=now))
        return agent

    # projects, staffing, barriers, memory records ---------------------------------------
    def project_slugs(self) -> set[str]:
        return set(
            self._s.execute(
                select(col(ProjectRow.slug)).where(col(ProjectRow.org_id) == self.org.id)
            ).scalars()
        )

    def add_project(self, project: Project, now: datetime) -> Project:
        self._add(
            ProjectRow(**project.model_dump(), created_at=now), f"project {project.slug!r} exists"
        )
        return project

    def staffing(self, principal_id: str | None = None) -> list[Staffing]:
        query = select(StaffingRow).where(col(StaffingRow.org_id) == self.org.id)
        if principal_id is not None:
            query = query.where(col(StaffingRow.principal_id) == principal_id)
        return [convert.staffing(r) for r in self._s.execute(query).scalars()]

    def add_staffing(self, staffing: Staffing) -> Staffing:
        self._s.add(StaffingRow(org_id=self.org.id, **staffing.model_dump()))
        return staffing

    def end_staffing(self, staffing_id: str, at: datetime) -> Staffing:
        """End a staffing at ``at`` (history is kept; authority ends)."""
        row = self._s.get(StaffingRow, staffing_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no staffing {staffing_id}")
        current = convert.staffing(row)
        if current.valid_until is None or current.valid_until > at:
            row.valid_until = at
            self._s.add(row)
        return convert.staffing(row)

    def barriers(self) -> list[Barrier]:
        rows = self._s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == self.org.id))
        return [convert.barrier(r) for r in rows.scalars()]

    def add_barrier(self, barrier: Barrier, now: datetime) -> Barrier:
        self._s.add(
            BarrierRow(
                id=barrier.id,
                org_id=self.org.id,
                name=barrier.name,
                groups=[list(g) for g in barrier.groups],
                created_at=now,
            )
        )
        return barrier

    def records(self) -> dict[str, tuple[str, ...]]:
        """Every memory record's projects, by reference."""
        rows = self._s.execute(
            select(col(MemoryNodeRow.ref), col(MemoryNodeRow.projects)).where(
                col(MemoryNodeRow.org_id) == self.org.id
            )
        )
        return {r.ref: tuple(r.projects) for r in rows}

    def add_record(
        self, ref: str, projects: tuple[str, ...], text: str, author_id: str, now: datetime
    ) -> None:
        """Store a memory record; a reference is stored once."""
        self._add(
            MemoryNodeRow(
                org_id=self.org.id,
                ref=ref,
                projects=list(projects),
                text=text,
                author_id=author_id,
                created_at=now,
            ),
            f"memory record {ref!r} exists",
        )

    # commitments ----------------------------------------------------------------------------
    def add_commitment(self, commitment: Commitment, now: datetime) -> Commitment:
        data = commitment.model_dump(mode="python")
        data["constraint"] = commitment.constraint.model_dump(mode="json")
        data["provenance"] = commitment.provenance.model_dump(mode="json")
        data["projects"] = list(commitment.projects)
        self._s.add(CommitmentRow(**data, created_at=now))
        return commitment

    def confirm_commitment(self, commitment_id: str, by: str, at: datetime) -> Commitment:
        """A human confirms an extracted commitment; only then does it bind."""
        row = self._s.get(CommitmentRow, commitment_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no commitment {commitment_id}")
        if row.state != ReviewState.EXTRACTED:
            raise Conflict(f"commitment is {row.state}, not extracted")
        row.state = ReviewState.CONFIRMED
        row.confirmed_by = by
        row.confirmed_at = at
        self._s.add(row)
        self._s.flush()
        return convert.commitment(row)
