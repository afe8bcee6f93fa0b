"""Ports of the organization: its directory and its configuration store."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from domain.audit.chain import AuditDraft
from domain.fleet.registry import Rollout
from domain.memory.adapter import Embedding
from domain.memory.release import Span, StoredNode
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Identity,
    Organization,
    Principal,
    Project,
    Staffing,
)
from domain.organization.kinds import IdentityKind, PrincipalStatus
from domain.runs.ports import AgentProfile


class Directory(Protocol):
    """Reads of an organization's standing records."""

    def org(self, org_id: str) -> Organization:
        """The organization; :class:`~domain.errors.NotFound` when there is none."""
        ...

    def find_principal(self, principal_id: str) -> Principal | None: ...

    def standing(
        self, org_id: str, principal_id: str
    ) -> tuple[Organization, Principal, tuple[Staffing, ...]] | None:
        """The organization, its principal ``principal_id`` and that principal's
        staffing rows, as of one read; None when ``principal_id`` is not a principal of
        ``org_id`` (whose configuration is then not read at all)."""
        ...

    def agent(self, org_id: str, principal_id: str) -> AgentProfile | None:
        """An agent with its versions, rollout and staffing (None: no such principal)."""
        ...

    def identity(self, kind: IdentityKind, external_id: str) -> Identity | None:
        """Whose an outside identity is (None: nobody's)."""
        ...

    def identities(self, org_id: str) -> list[Identity]:
        """Every outside identity linked to a principal of ``org_id``."""
        ...

    def principal(self, org_id: str, principal_id: str) -> Principal:
        """A principal of ``org_id``; :class:`~domain.errors.NotFound` otherwise."""
        ...

    def principals(self, org_id: str) -> list[Principal]: ...

    def projects(self, org_id: str) -> list[Project]: ...

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]: ...

    def barriers(self, org_id: str) -> list[Barrier]: ...

    def commitments(self, org_id: str) -> list[Commitment]: ...

    def destinations(self, org_id: str) -> list[Destination]:
        """Every destination ever established (current or retired)."""
        ...


class OrgChange(Protocol):
    """One change to an organization's configuration: read and write under its lock, in
    one transaction; every write appends its ``configuration`` audit entry."""

    now: datetime
    """The moment of the change, read once the lock is held."""

    def principal(self, principal_id: str) -> Principal:
        """A principal of this organization; :class:`~domain.errors.NotFound` otherwise."""
        ...

    def principals(self) -> list[Principal]: ...

    def handles(self) -> set[str]: ...

    def project_slugs(self) -> set[str]: ...

    def staffing(self, principal_id: str | None = None) -> list[Staffing]: ...

    def barriers(self) -> list[Barrier]: ...

    def records(self) -> dict[str, tuple[str, ...]]:
        """Every memory record's projects, by reference."""
        ...

    def add_principal(self, principal: Principal) -> Principal: ...

    def set_status(self, principal_id: str, status: PrincipalStatus, reason: str) -> Principal:
        """Move a principal to ``status`` now, for ``reason`` (its audit entry says why)."""
        ...

    def agent_versions(
        self, principal_id: str
    ) -> tuple[dict[int, Charter], dict[int, AgentDefinition], Rollout | None]:
        """Every charter and definition version of an agent, and its rollout."""
        ...

    def add_version(self, charter: Charter, definition: AgentDefinition | None) -> Charter: ...

    def set_charter_status(self, charter: Charter, rule: str) -> Charter: ...

    def set_rollout(self, rollout: Rollout, rule: str) -> Rollout: ...

    def add_project(self, project: Project) -> Project: ...

    def add_staffing(self, staffing: Staffing) -> Staffing: ...

    def end_staffing(self, staffing_id: str) -> Staffing: ...

    def add_barrier(self, barrier: Barrier) -> Barrier: ...

    def destinations(self) -> list[Destination]: ...

    def establish(self, destination: Destination) -> Destination:
        """Keep an established destination, at the change's moment."""
        ...

    def retire_destination(self, destination_id: str) -> Destination: ...

    def add_record(
        self,
        ref: str,
        projects: tuple[str, ...],
        text: str,
        spans: tuple[Span, ...] = (),
        embedding: Embedding | None = None,
        kind: str = "note",
        source: str | None = None,
    ) -> None:
        """Store a memory record, with its tagged spans, its embedding, what sort of
        document it is and where it came from."""
        ...

    def add_commitment(self, commitment: Commitment) -> Commitment: ...

    def confirm_commitment(self, commitment_id: str) -> Commitment: ...

    def reject_commitment(self, commitment_id: str, reason: str) -> Commitment:
        """Reject an extracted commitment; a confirmed or rejected one is a Conflict."""
        ...

    def fulfil_commitment(self, commitment_id: str, note: str) -> Commitment:
        """Mark a confirmed commitment kept (it binds no more); one not confirmed, or kept
        already, is a Conflict."""
        ...

    def commitment(self, commitment_id: str) -> Commitment:
        """A commitment of this organization; :class:`~domain.errors.NotFound` otherwise."""
        ...

    def memory_reach(self) -> dict[str, tuple[str, ...]]:
        """What a new barrier may not split: every record's projects by reference, every
        link's two ends' projects (``link a→b``), every procedure's (``procedure n``)."""
        ...

    def record_length(self, ref: str) -> int:
        """The length of a stored record's text (0 when there is none)."""
        ...

    def add_link(self, src: str, dst: str, kind: str, span: tuple[int, int] | None) -> str:
        """Link two records; the link's id."""
        ...

    def add_procedure(self, name: str, projects: tuple[str, ...], steps: tuple[str, ...]) -> int:
        """Store the next version of a procedure; its version number."""
        ...

    def unembedded(self, embedder: str, limit: int) -> list[StoredNode]:
        """Up to ``limit`` records not embedded by ``embedder``, oldest first."""
        ...

    def embed_again(self, ref: str, embedding: Embedding) -> None:
        """Replace a record's embedding."""
        ...

    def link_identity(self, identity: Identity) -> Identity:
        """Link an outside identity to a principal (a duplicate is a Conflict)."""
        ...

    def unlink_identity(self, identity: Identity, reason: str) -> None:
        """Forget an outside identity: it proves no one from now on (on the record)."""
        ...

    def identities_of(self, principal_id: str) -> list[Identity]:
        """The outside identities linked to ``principal_id``, read under the change."""
        ...

    def note(self, draft: AuditDraft) -> None:
        """Append an entry that is not configuration (a refusal, a redaction) with the
        change."""
        ...


class ConfigurationStore(Protocol):
    """Creates organizations and hands out configuration changes."""

    def create_org(
        self,
        name: str,
        founder: Principal,
        agents: list[tuple[Principal, AgentDefinition, Charter]],
        now: datetime,
    ) -> Organization:
        """Create an organization, its founder, its agents and its chain, atomically."""
        ...

    def change(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> AbstractContextManager[OrgChange]:
        """Lock ``org_id`` for one change by ``actor_id``."""
        ...
