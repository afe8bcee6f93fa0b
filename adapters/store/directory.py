"""The organization's directory: orgs, principals, agents, projects, staffing,
barriers and commitments."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.audit_log import append
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
from domain.audit import ChainKeys, genesis
from domain.crosscheck import Configured, config_draft, config_record
from domain.errors import Conflict, NotFound
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


def _add_agent_rows(
    s: Session, agent: Principal, definition: AgentDefinition, charter: Charter, now: datetime
) -> None:
    s.add(PrincipalRow(**agent.model_dump(mode="json"), created_at=now))
    s.flush()
    s.add(AgentDefinitionRow(**definition.model_dump(), created_at=now))
    s.add(CharterRow(**charter.model_dump(mode="json"), created_at=now))


class Directory:
    """Creates organizations and reads their standing records."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

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
        org = Organization(id=founder.org_id, name=name, founder_id=founder.id)
        configured: list[Configured] = [org, founder]
        try:
            with self._db.transaction() as s:
                s.add(OrgRow(id=org.id, name=name, founder_id=founder.id, created_at=now))
                s.add(PrincipalRow(**founder.model_dump(mode="json"), created_at=now))
                s.add(AuditHeadRow(org_id=org.id, **genesis(org.id, self._keys).model_dump()))
                for agent, definition, charter in agents:
                    _add_agent_rows(s, agent, definition, charter, now)
                    configured += [agent, definition, charter]
                s.flush()
                for item in configured:
                    draft = config_draft(config_record(item), founder.id, "onboarded")
                    append(s, org.id, draft, now, self._keys)
        except IntegrityError as exc:
            raise Conflict(f"could not create the organization: {exc.orig}") from exc
        return org

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
