"""An organization's configuration, read and written in one transaction under its lock.

Configuration rules (who may be staffed where, which barrier may be raised, which
memory record may exist) compare what is stored with what is asked. Checked in one
transaction and written in another, two concurrent requests could each pass and
together break the rule. So every configuration use case runs inside
:meth:`OrgConfiguration.open`: it takes the organization's lock (the same lock that
serialises its broker decisions and audit appends), reads, lets the domain decide, and
writes, all before it commits.

Every write also appends a ``configuration`` entry to the organization's audit chain
with the record's new state, so that verification can tell when a row was changed
behind the chain's back (:mod:`domain.audit.crosscheck`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col

from adapters.store import convert
from adapters.store.audit import append, lock_head
from adapters.store.session import Database
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditHeadRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    DestinationRow,
    IdentityRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    RolloutRow,
    StaffingRow,
)
from domain.audit.chain import AuditDraft, ChainKeys, genesis
from domain.audit.crosscheck import (
    ConfigRecord,
    Configured,
    config_draft,
    config_record,
    link_config_record,
    memory_config_record,
    procedure_config_record,
)
from domain.audit.ports import AuditError
from domain.errors import Conflict, NotFound
from domain.fleet.registry import Rollout, initial_rollout
from domain.memory.adapter import Embedding, MemoryAdapter, MemoryLink
from domain.memory.release import Span, StoredNode
from domain.organization.configuration import STANDING_RULES
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
from domain.organization.kinds import PrincipalStatus, ReviewState


class OrgConfiguration:
    """One organization's standing records inside one locked transaction."""

    def __init__(
        self,
        session: Session,
        org: Organization,
        keys: ChainKeys,
        actor_id: str,
        now: datetime,
        memory: MemoryAdapter,
    ) -> None:
        self._s = session
        self.org = org
        self._memory = memory.joined(session.connection())
        """The memory stores, inside this change's transaction."""
        self._keys = keys
        self._actor = actor_id
        self.now = now
        """The moment of this change: every record and audit entry of it carries it."""

    @classmethod
    @contextmanager
    def open(
        cls,
        db: Database,
        keys: ChainKeys,
        org_id: str,
        actor_id: str,
        clock: Callable[[], datetime],
        memory: MemoryAdapter,
    ) -> Iterator[OrgConfiguration]:
        """Lock ``org_id`` and yield its configuration, changed by ``actor_id``; commit on
        success (every change with its audit entry). The change's moment is read from
        ``clock`` once the lock is held, so changes are ordered as their moments are.

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
                yield cls(s, convert.org(row), keys, actor_id, clock(), memory)
        except IntegrityError as exc:
            raise Conflict(f"the change conflicts with what is stored: {exc.orig}") from exc

    def _audit(self, change: ConfigRecord, rule: str, reason: str = "") -> None:
        draft = config_draft(change, self._actor, rule, reason)
        append(self._s, self.org.id, draft, self.now, self._keys)

    def memory_reach(self) -> dict[str, tuple[str, ...]]:
        reach = self.records()
        out = dict(reach)
        for link in self._memory.links(self.org.id):
            ends = (*reach.get(link.src, ()), *reach.get(link.dst, ()))
            out[f"link {link.src}→{link.dst}"] = tuple(sorted(set(ends)))
        for procedure in self._memory.procedures(self.org.id):
            key = f"procedure {procedure.name}"
            out[key] = tuple(sorted({*out.get(key, ()), *procedure.projects}))
        return out

    def record_length(self, ref: str) -> int:
        found = self._memory.retrieve(self.org.id, [ref])
        return len(found[0].text) if found else 0

    def add_link(self, src: str, dst: str, kind: str, span: tuple[int, int] | None) -> str:
        link = MemoryLink(
            id=str(uuid.uuid4()),
            src=src,
            dst=dst,
            kind=kind,
            span_start=None if span is None else span[0],
            span_end=None if span is None else span[1],
        )
        self._memory.link(self.org.id, link, author_id=self._actor, at=self.now)
        self._audit(link_config_record(link), "memory_link_added")
        return link.id

    def add_procedure(self, name: str, projects: tuple[str, ...], steps: tuple[str, ...]) -> int:
        procedure = self._memory.publish(
            self.org.id, name, projects, steps, author_id=self._actor, at=self.now
        )
        self._audit(procedure_config_record(procedure), "memory_procedure_published")
        return procedure.version

    def unembedded(self, embedder: str, limit: int) -> list[StoredNode]:
        return self._memory.unembedded(self.org.id, embedder, limit)

    def embed_again(self, ref: str, embedding: Embedding) -> None:
        self._memory.embed_again(self.org.id, ref, embedding)

    def note(self, draft: AuditDraft) -> None:
        append(self._s, self.org.id, draft, self.now, self._keys)

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

    def add_principal(self, principal: Principal) -> Principal:
        """Add a human or agent principal; handles are unique in an organization."""
        self._add(
            PrincipalRow(**principal.model_dump(mode="json"), created_at=self.now),
            f"handle {principal.handle!r} is taken",
        )
        self._audit(config_record(principal), "principal_added")
        return principal

    def set_status(self, principal_id: str, status: PrincipalStatus, reason: str) -> Principal:
        """Move a principal to ``status`` now, for ``reason`` (on the record)."""
        row = self._s.get(PrincipalRow, principal_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no principal {principal_id} in this organization")
        row.status, row.status_since, row.status_reason = status.value, self.now, reason
        self._s.add(row)
        moved = convert.principal(row)
        self._audit(config_record(moved), STANDING_RULES[status], reason)
        return moved

    # the fleet registry: versions and rollouts ------------------------------------------
    def agent_versions(
        self, principal_id: str
    ) -> tuple[dict[int, Charter], dict[int, AgentDefinition], Rollout | None]:
        """Every charter and definition version of an agent, and its rollout (for an
        agent that never had one, what its newest published version implies)."""
        charters = {
            r.version: convert.charter(r)
            for r in self._s.execute(
                select(CharterRow).where(col(CharterRow.principal_id) == principal_id)
            ).scalars()
        }
        definitions = {
            r.version: convert.definition(r)
            for r in self._s.execute(
                select(AgentDefinitionRow).where(
                    col(AgentDefinitionRow.principal_id) == principal_id
                )
            ).scalars()
        }
        row = self._s.get(RolloutRow, principal_id)
        rollout = (
            convert.rollout(row) if row is not None else initial_rollout(principal_id, charters)
        )
        return charters, definitions, rollout

    def add_version(self, charter: Charter, definition: AgentDefinition | None) -> Charter:
        """Store a drafted version (and the new definition it pins, if any). An agent
        whose rollout was implied (its newest published version) gets it written first,
        so that publishing the draft does not make it serve new runs."""
        if self._s.get(RolloutRow, charter.principal_id) is None:
            _, _, implied = self.agent_versions(charter.principal_id)
            if implied is not None:
                self.set_rollout(implied, "agent_rollout_started")
        if definition is not None:
            self._add(
                AgentDefinitionRow(**definition.model_dump(), created_at=self.now),
                f"definition v{definition.version} exists",
            )
            self._audit(config_record(definition), "agent_definition_drafted")
        self._add(
            CharterRow(**charter.model_dump(mode="json"), created_at=self.now),
            f"version v{charter.version} exists",
        )
        self._audit(config_record(charter), "agent_version_drafted")
        return charter

    def set_charter_status(self, charter: Charter, rule: str) -> Charter:
        """Write a version's new status (published, retired)."""
        row = self._s.get(CharterRow, (charter.principal_id, charter.version))
        if row is None:
            raise NotFound(f"no version v{charter.version}")
        row.status = charter.status.value
        self._s.add(row)
        self._s.flush()
        self._audit(config_record(charter), rule)
        return charter

    def set_rollout(self, rollout: Rollout, rule: str) -> Rollout:
        """Write which version new runs of an agent get."""
        row = self._s.get(RolloutRow, rollout.principal_id)
        if row is None:
            row = RolloutRow(principal_id=rollout.principal_id, org_id=self.org.id, stable=1)
        row.stable = rollout.stable
        row.candidate = rollout.candidate
        row.share = rollout.share
        row.previous = rollout.previous
        row.rolled_back = list(rollout.rolled_back)
        row.updated_at = self.now
        self._s.add(row)
        self._s.flush()
        self._audit(config_record(rollout), rule)
        return rollout

    # projects, staffing, barriers, memory records ---------------------------------------
    def project_slugs(self) -> set[str]:
        return set(
            self._s.execute(
                select(col(ProjectRow.slug)).where(col(ProjectRow.org_id) == self.org.id)
            ).scalars()
        )

    def add_project(self, project: Project) -> Project:
        self._add(
            ProjectRow(**project.model_dump(), created_at=self.now),
            f"project {project.slug!r} exists",
        )
        self._audit(config_record(project), "project_added")
        return project

    def staffing(self, principal_id: str | None = None) -> list[Staffing]:
        query = select(StaffingRow).where(col(StaffingRow.org_id) == self.org.id)
        if principal_id is not None:
            query = query.where(col(StaffingRow.principal_id) == principal_id)
        return [convert.staffing(r) for r in self._s.execute(query).scalars()]

    def add_staffing(self, staffing: Staffing) -> Staffing:
        self._s.add(StaffingRow(org_id=self.org.id, **staffing.model_dump()))
        self._audit(config_record(staffing), "staffing_added")
        return staffing

    def end_staffing(self, staffing_id: str) -> Staffing:
        """End a staffing now (history is kept; authority ends)."""
        row = self._s.get(StaffingRow, staffing_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no staffing {staffing_id}")
        current = convert.staffing(row)
        if current.valid_until is None or current.valid_until > self.now:
            row.valid_until = self.now
            self._s.add(row)
            ended = convert.staffing(row)
            self._audit(config_record(ended), "staffing_ended")
            return ended
        return current

    def barriers(self) -> list[Barrier]:
        rows = self._s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == self.org.id))
        return [convert.barrier(r) for r in rows.scalars()]

    def add_barrier(self, barrier: Barrier) -> Barrier:
        self._s.add(
            BarrierRow(
                id=barrier.id,
                org_id=self.org.id,
                name=barrier.name,
                groups=[list(g) for g in barrier.groups],
                created_at=self.now,
            )
        )
        self._audit(config_record(barrier), "barrier_added")
        return barrier

    def destinations(self) -> list[Destination]:
        rows = self._s.execute(
            select(DestinationRow).where(col(DestinationRow.org_id) == self.org.id)
        )
        return [convert.destination(r) for r in rows.scalars()]

    def establish(self, destination: Destination) -> Destination:
        """Keep an established destination (its moment is this change's)."""
        kept = destination.model_copy(update={"established_at": self.now, "retired_at": None})
        self._s.add(DestinationRow(org_id=self.org.id, **kept.model_dump()))
        self._audit(config_record(kept), "destination_established")
        return kept

    def retire_destination(self, destination_id: str) -> Destination:
        """Retire an established destination now (history is kept)."""
        row = self._s.get(DestinationRow, destination_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no destination {destination_id}")
        if row.retired_at is None:
            row.retired_at = self.now
            self._s.add(row)
            retired = convert.destination(row)
            self._audit(config_record(retired), "destination_retired")
            return retired
        return convert.destination(row)

    def records(self) -> dict[str, tuple[str, ...]]:
        """Every memory record's projects, by reference."""
        return {node.ref: node.projects for node in self._memory.nodes(self.org.id)}

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
        """Store a memory record; a reference is stored once."""
        node = StoredNode(
            org_id=self.org.id,
            ref=ref,
            projects=projects,
            text=text,
            spans=spans,
            kind=kind,
            source=source,
        )
        self._memory.store(node, author_id=self._actor, at=self.now, embedding=embedding)
        self._audit(memory_config_record(node), "memory_record_added")

    # identities -------------------------------------------------------------------------
    def identities_of(self, principal_id: str) -> list[Identity]:
        rows = self._s.execute(
            select(IdentityRow).where(
                col(IdentityRow.org_id) == self.org.id,
                col(IdentityRow.principal_id) == principal_id,
            )
        ).scalars()
        return [convert.identity(r) for r in rows]

    def unlink_identity(self, identity: Identity, reason: str) -> None:
        """Forget that ``identity`` proves its principal (it proves no one from now on)."""
        row = self._s.get(IdentityRow, (identity.kind.value, identity.external_id))
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no {identity.kind.value} identity {identity.external_id!r} here")
        self._s.delete(row)
        gone = config_record(identity).model_copy(update={"record": None})
        self._audit(gone, "identity_unlinked", reason)

    def link_identity(self, identity: Identity) -> Identity:
        row = IdentityRow(**identity.model_dump(mode="json"), created_at=self.now)
        self._add(row, f"{identity.kind.value} identity {identity.external_id!r} is linked")
        self._audit(config_record(identity), "identity_linked")
        return identity

    # commitments ----------------------------------------------------------------------------
    def add_commitment(self, commitment: Commitment) -> Commitment:
        data = commitment.model_dump(mode="python")
        data["constraint"] = commitment.constraint.model_dump(mode="json")
        data["provenance"] = commitment.provenance.model_dump(mode="json")
        data["projects"] = list(commitment.projects)
        self._s.add(CommitmentRow(**data, created_at=self.now))
        self._audit(config_record(commitment), "commitment_recorded")
        return commitment

    def confirm_commitment(self, commitment_id: str) -> Commitment:
        """A human (the acting principal) confirms an extracted commitment; only then
        does it bind."""
        row = self._s.get(CommitmentRow, commitment_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no commitment {commitment_id}")
        if row.state != ReviewState.EXTRACTED:
            raise Conflict(f"commitment is {row.state}, not extracted")
        row.state = ReviewState.CONFIRMED
        row.confirmed_by = self._actor
        row.confirmed_at = self.now
        self._s.add(row)
        self._s.flush()
        confirmed = convert.commitment(row)
        self._audit(config_record(confirmed), "commitment_confirmed")
        return confirmed

    def reject_commitment(self, commitment_id: str, reason: str) -> Commitment:
        """A human (the acting principal) rejects an extracted commitment: it never binds.
        Only an extracted one may be rejected; a confirmed or rejected one is a Conflict."""
        row = self._s.get(CommitmentRow, commitment_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no commitment {commitment_id}")
        if row.state != ReviewState.EXTRACTED:
            raise Conflict(f"commitment is {row.state}, not extracted")
        row.state = ReviewState.REJECTED
        row.rejected_by = self._actor
        row.rejected_at = self.now
        row.rejection_reason = reason
        self._s.add(row)
        self._s.flush()
        rejected = convert.commitment(row)
        self._audit(config_record(rejected), "commitment_rejected")
        return rejected

    def fulfil_commitment(self, commitment_id: str, note: str) -> Commitment:
        """A human (the acting principal) marks a confirmed commitment kept: it binds no
        more, and the heartbeat stops watching it. Once."""
        row = self._s.get(CommitmentRow, commitment_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no commitment {commitment_id}")
        if row.state != ReviewState.CONFIRMED:
            raise Conflict(f"commitment is {row.state}, not confirmed: it binds nothing to keep")
        if row.fulfilled_at is not None:
            raise Conflict("commitment is kept already")
        row.fulfilled_by = self._actor
        row.fulfilled_at = self.now
        row.fulfilment_note = note
        self._s.add(row)
        self._s.flush()
        kept = convert.commitment(row)
        self._audit(config_record(kept), "commitment_fulfilled")
        return kept

    def commitment(self, commitment_id: str) -> Commitment:
        """A commitment of this organization; :class:`NotFound` otherwise."""
        row = self._s.get(CommitmentRow, commitment_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no commitment {commitment_id}")
        return convert.commitment(row)


def _add_agent_rows(
    s: Session, agent: Principal, definition: AgentDefinition, charter: Charter, now: datetime
) -> None:
    s.add(PrincipalRow(**agent.model_dump(mode="json"), created_at=now))
    s.flush()
    s.add(AgentDefinitionRow(**definition.model_dump(), created_at=now))
    s.add(CharterRow(**charter.model_dump(mode="json"), created_at=now))


class SqlConfiguration:
    """:class:`~domain.organization.ports.ConfigurationStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys, memory: MemoryAdapter) -> None:
        self._db = db
        self._keys = keys
        self._memory = memory

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
                s.add(
                    AuditHeadRow(org_id=org.id, tree="", **genesis(org.id, self._keys).model_dump())
                )
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

    def change(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> AbstractContextManager[OrgConfiguration]:
        return OrgConfiguration.open(self._db, self._keys, org_id, actor_id, clock, self._memory)
