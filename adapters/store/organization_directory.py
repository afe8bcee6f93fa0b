"""The organization's directory: orgs, principals, agents, projects, staffing,
barriers and commitments."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlmodel import col

from adapters.store import convert
from adapters.store.organization_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import (
    IdentityRow,
    PrincipalRow,
    ProjectRow,
    table_of,
)
from domain.errors import NotFound
from domain.organization.contracts import (
    Barrier,
    Commitment,
    Destination,
    Identity,
    Organization,
    Principal,
    Project,
    Staffing,
)
from domain.organization.kinds import IdentityKind
from domain.runs.ports import AgentProfile


def new_id() -> str:
    """A fresh random identifier."""
    return str(uuid.uuid4())


_PRINCIPAL_COLUMNS = tuple(table_of(PrincipalRow).columns)


class Directory:
    """Reads an organization's standing records
    (:class:`~domain.organization.ports.Directory`), from this process's copy of its
    configuration whenever that copy is current."""

    def __init__(self, db: Database, cache: OrgCache | None = None) -> None:
        self._db = db
        self._cache = cache or OrgCache()

    def _policy(self, org_id: str) -> OrgPolicy:
        with self._db.read() as s:
            policy = self._cache.current(s, org_id)
        if policy is None:
            raise NotFound(f"no organization {org_id}")
        return policy

    # organizations and principals -------------------------------------------------------
    def org(self, org_id: str) -> Organization:
        policy = self._policy(org_id)
        if policy.org is None:
            raise NotFound(f"no organization {org_id}")
        return policy.org

    def standing(
        self, org_id: str, principal_id: str
    ) -> tuple[Organization, Principal, tuple[Staffing, ...]] | None:
        with self._db.read() as s:
            # The principal's own row first, as find_principal reads it: someone of
            # another organization (or no one) learns nothing of this one, not even how
            # long its configuration takes to read.
            row = s.execute(
                select(*_PRINCIPAL_COLUMNS).where(col(PrincipalRow.id) == principal_id)
            ).first()
            if row is None or row.org_id != org_id:
                return None
            policy = self._cache.current(s, org_id)
        if policy is None or policy.org is None:
            return None
        return policy.org, convert.principal(row), policy.staffing.get(principal_id, ())

    def principal(self, org_id: str, principal_id: str) -> Principal:
        found = self._policy(org_id).principals.get(principal_id)
        if found is None:
            raise NotFound(f"no principal {principal_id} in this organization")
        return found

    def identity(self, kind: IdentityKind, external_id: str) -> Identity | None:
        """Whose an outside identity is, in whatever organization."""
        with self._db.read() as s:
            row = s.get(IdentityRow, (kind.value, external_id))
            return None if row is None else convert.identity(row)

    def identities(self, org_id: str) -> list[Identity]:
        with self._db.read() as s:
            rows = s.execute(select(IdentityRow).where(col(IdentityRow.org_id) == org_id))
            return [convert.identity(r) for r in rows.scalars()]

    def find_principal(self, principal_id: str) -> Principal | None:
        """A principal by id, in whatever organization."""
        with self._db.read() as s:
            row = s.get(PrincipalRow, principal_id)
            return None if row is None else convert.principal(row)

    def principals(self, org_id: str) -> list[Principal]:
        return sorted(self._policy(org_id).principals.values(), key=lambda p: (p.kind, p.handle))

    def agent(self, org_id: str, principal_id: str) -> AgentProfile | None:
        """An agent of ``org_id`` with its versions, its rollout and its staffing;
        None when the organization has no such principal."""
        try:
            policy = self._policy(org_id)
        except NotFound:
            return None
        principal = policy.principals.get(principal_id)
        if principal is None:
            return None
        return AgentProfile(
            principal=principal,
            definition=policy.definitions.get(principal_id),
            charter=policy.charters.get(principal_id),
            staffing=policy.staffing.get(principal_id, ()),
            versions=tuple(policy.charter_versions.get(principal_id, {}).values()),
            definitions=tuple(policy.definition_versions.get(principal_id, {}).values()),
            rollout=policy.rollouts.get(principal_id),
        )

    # projects, staffing, barriers, commitments (reads; writes go through
    # adapters.store.organization, under the organization's lock) ------------------------
    def projects(self, org_id: str) -> list[Project]:
        with self._db.read() as s:
            rows = s.execute(
                select(ProjectRow)
                .where(col(ProjectRow.org_id) == org_id)
                .order_by(col(ProjectRow.slug))
            ).scalars()
            return [convert.project(r) for r in rows]

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]:
        by_principal = self._policy(org_id).staffing
        if principal_id is not None:
            return list(by_principal.get(principal_id, ()))
        return [row for rows in by_principal.values() for row in rows]

    def barriers(self, org_id: str) -> list[Barrier]:
        return list(self._policy(org_id).barriers)

    def commitments(self, org_id: str) -> list[Commitment]:
        return list(self._policy(org_id).commitments)

    def destinations(self, org_id: str) -> list[Destination]:
        return [d for ds in self._policy(org_id).destinations.values() for d in ds]
