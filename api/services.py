"""Services shared by the HTTP API and the command line.

Every method takes the acting principal; configuration changes are the founder's
until the authenticated ingress lands.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from adapters.store.configuration import OrgConfiguration
from adapters.store.directory import new_id
from adapters.store.store import Store
from adapters.store.tables import RunRow
from domain import configuration as rules
from domain.audit import AuditEntry, ChainVerification
from domain.errors import Conflict, NotFound
from domain.intents import Decision, Intent, Outcome
from domain.model import (
    AgentDefinition,
    Barrier,
    Charter,
    CharterStatus,
    Commitment,
    Constraint,
    Organization,
    Principal,
    PrincipalKind,
    PrincipalStatus,
    Project,
    Provenance,
    ReviewState,
    Staffing,
    StaffRole,
)
from domain.runs import MAX_HOLD_SECONDS, MIN_HOLD_SECONDS, RunInput, RunState
from domain.starter import STARTER_FLEET, StarterAgent
from domain.visibility import may_read, readable_projects
from usecases import governance
from worker.settings import Settings
from workflows import search_attributes as sa
from workflows.agent_run import AgentRunWorkflow, ApprovalSignal

__all__ = ["Conflict", "Forbidden", "NotFound", "Services", "TemporalUnavailable"]


class Forbidden(PermissionError):
    """The acting principal may not do this."""


class TemporalUnavailable(RuntimeError):
    """Temporal cannot be reached; the request can be retried."""


class Onboarded(BaseModel):
    """A new organization, its founder and its starter fleet."""

    org: Organization
    founder: Principal
    agents: list[Principal]


class RunStarted(BaseModel):
    """A run that was started (or found again by its client key)."""

    run_id: str
    workflow_id: str
    created: bool
    ui_url: str


class IntentRecord(BaseModel):
    """An intent of a run with its status and every decision, oldest first."""

    intent: Intent
    status: str
    decisions: list[Decision]


class RunView(BaseModel):
    """A run as the API shows it: workflow status, node states and every intent."""

    run_id: str
    workflow_id: str
    org_id: str
    agent_id: str
    task: str
    workflow_status: str
    state: RunState | None
    intents: list[IntentRecord]
    ui_url: str


class AuditView(BaseModel):
    """An organization's chain, its head and (when asked) its verification."""

    entries: list[AuditEntry]
    head_hash: str
    head_seq: int
    verification: ChainVerification | None


def _starter_agent(org_id: str, spec: StarterAgent) -> tuple[Principal, AgentDefinition, Charter]:
    agent = Principal(
        id=new_id(),
        org_id=org_id,
        kind=PrincipalKind.AGENT,
        handle=spec.handle,
        display_name=spec.display_name,
        agent_kind=spec.agent_kind,
    )
    definition = AgentDefinition(
        principal_id=agent.id,
        version=1,
        instructions=spec.instructions,
        budget_cents=spec.budget_cents,
    )
    charter = Charter(
        principal_id=agent.id,
        version=1,
        status=CharterStatus.PUBLISHED,
        role=spec.role,
        purpose=spec.purpose,
        tools=spec.tools,
        budget_ceiling_cents=spec.ceiling_cents,
        definition_pin=1,
    )
    return agent, definition, charter


class Services:
    """Use cases over the store and the Temporal client."""

    def __init__(
        self, store: Store, client: Client | None, settings: Settings, clock: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.client = client
        self.settings = settings
        self.clock = clock

    # ------------------------------------------------------------------ authorisation
    def _member(self, org_id: str, actor_id: str) -> tuple[Organization, Principal]:
        """The organization and the acting principal, an active human of it.

        Someone outside the organization learns nothing, not even that it exists: an
        unknown organization and another organization's are both :class:`NotFound`.
        """
        actor = self.store.directory.find_principal(actor_id)
        if actor is None or actor.org_id != org_id:
            raise NotFound(f"no organization {org_id}")
        if actor.kind is not PrincipalKind.HUMAN or actor.status is not PrincipalStatus.ACTIVE:
            raise Forbidden("the acting principal must be an active human of this organization")
        return self.store.directory.org(org_id), actor

    def _founder(self, org_id: str, actor_id: str) -> Organization:
        org, _ = self._member(org_id, actor_id)
        if actor_id != org.founder_id:
            raise Forbidden("only the organization's founder may change its configuration")
        return org

    def _readable(self, org: Organization, actor: Principal) -> frozenset[str] | None:
        staffing = self.store.directory.staffing(org.id, actor.id)
        return readable_projects(actor, org, staffing, self.clock())

    def _run_for(self, run_id: str, actor_id: str) -> RunRow:
        """The run, if ``actor_id`` may read it; to anyone else it does not exist."""
        row = self.store.runs.get(run_id)
        try:
            if row is None:
                raise NotFound(f"no run {run_id}")
            org, actor = self._member(row.org_id, actor_id)
        except NotFound:
            raise NotFound(f"no run {run_id}") from None
        if row.started_by != actor_id and not may_read(
            self._readable(org, actor), self.store.runs.reach(run_id)
        ):
            raise NotFound(f"no run {run_id}")
        return row

    def _configure(self, org_id: str, actor_id: str) -> AbstractContextManager[OrgConfiguration]:
        """One configuration change by ``actor_id``: the organization locked, the change
        written with its audit entry, all in one commit."""
        return OrgConfiguration.open(self.store.db, self.store.keys, org_id, actor_id, self.clock)

    # ------------------------------------------------------------------ organization
    def onboard(self, name: str, founder_email: str, founder_name: str | None = None) -> Onboarded:
        """Create an organization, its founder and the starter fleet of agents, atomically."""
        if not name.strip() or "@" not in founder_email:
            raise ValueError("an organization needs a name and a founder email")
        now = self.clock()
        org_id = new_id()
        handle = rules.handle_for(founder_email, taken=(), fallback="founder")
        if handle in {spec.handle for spec in STARTER_FLEET}:
            handle = f"{handle}-founder"  # the starter agents' handles are taken
        founder = Principal(
            id=new_id(),
            org_id=org_id,
            kind=PrincipalKind.HUMAN,
            handle=handle,
            display_name=founder_name or founder_email.rpartition("@")[0],
            email=founder_email,
        )
        fleet = [_starter_agent(org_id, spec) for spec in STARTER_FLEET]
        org = self.store.directory.create_org(name.strip(), founder, fleet, now)
        return Onboarded(org=org, founder=founder, agents=[agent for agent, _, _ in fleet])

    def add_human(self, org_id: str, actor_id: str, email: str, display_name: str) -> Principal:
        """Invite a human colleague; they get authority only through staffing."""
        self._founder(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            human = Principal(
                id=new_id(),
                org_id=org_id,
                kind=PrincipalKind.HUMAN,
                handle=rules.handle_for(email, cfg.handles()),
                display_name=display_name,
                email=email,
            )
            return cfg.add_principal(human)

    def principals(self, org_id: str, actor_id: str) -> list[Principal]:
        self._member(org_id, actor_id)
        return self.store.directory.principals(org_id)

    def add_project(self, org_id: str, actor_id: str, slug: str, name: str) -> Project:
        """Create a project; the founder is staffed on it as approver, in one step."""
        org = self._founder(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            now = cfg.now
            project = cfg.add_project(Project(org_id=org_id, slug=slug, name=name))
            cfg.add_staffing(
                Staffing(
                    id=new_id(),
                    principal_id=org.founder_id,
                    project=slug,
                    role=StaffRole.APPROVER,
                    valid_from=now,
                )
            )
            return project

    def projects(self, org_id: str, actor_id: str) -> list[Project]:
        self._member(org_id, actor_id)
        return self.store.directory.projects(org_id)

    def staff(
        self,
        org_id: str,
        actor_id: str,
        principal_id: str,
        project: str,
        role: StaffRole,
        valid_until: datetime | None = None,
    ) -> Staffing:
        """Staff a principal on a project from now on. Only humans may be approvers, and
        an agent is never staffed on both sides of a barrier."""
        self._founder(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            now = cfg.now
            who = cfg.principal(principal_id)
            if project not in cfg.project_slugs():
                raise NotFound(f"no project {project!r}")
            if valid_until is not None and valid_until <= now:
                raise ValueError("valid_until must lie in the future")
            problem = rules.staffing_problem(
                who, project, role, cfg.staffing(principal_id), cfg.barriers(), now
            )
            if problem is not None:
                # an agent as approver is a malformed request; a wall in the way, a conflict
                raise ValueError(problem) if role is StaffRole.APPROVER else Conflict(problem)
            return cfg.add_staffing(
                Staffing(
                    id=new_id(),
                    principal_id=principal_id,
                    project=project,
                    role=role,
                    valid_from=now,
                    valid_until=valid_until,
                )
            )

    def unstaff(self, org_id: str, actor_id: str, staffing_id: str) -> Staffing:
        self._founder(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            return cfg.end_staffing(staffing_id)

    def staffing(self, org_id: str, actor_id: str) -> list[Staffing]:
        self._member(org_id, actor_id)
        return self.store.directory.staffing(org_id)

    def add_barrier(
        self, org_id: str, actor_id: str, name: str, groups: list[list[str]]
    ) -> Barrier:
        """Wall project groups off from each other; the new wall may split neither an
        agent's current staffing nor a stored memory record."""
        self._founder(org_id, actor_id)
        barrier = Barrier(
            id=new_id(), org_id=org_id, name=name, groups=tuple(tuple(g) for g in groups)
        )
        with self._configure(org_id, actor_id) as cfg:
            now = cfg.now
            missing = {p for g in barrier.groups for p in g} - cfg.project_slugs()
            if missing:
                raise NotFound(f"no project {', '.join(sorted(missing))}")
            agents = {p.id: p.handle for p in cfg.principals() if p.kind is PrincipalKind.AGENT}
            problem = rules.barrier_problem(barrier, agents, cfg.staffing(), cfg.records(), now)
            if problem is not None:
                raise Conflict(problem)
            return cfg.add_barrier(barrier)

    def add_commitment(
        self,
        org_id: str,
        actor_id: str,
        title: str,
        constraint: Constraint,
        source: str,
        excerpt: str = "",
        projects: tuple[str, ...] = (),
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
    ) -> Commitment:
        """Record an extracted commitment: evidence until a human confirms it."""
        self._member(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            unknown = set(projects) - cfg.project_slugs()
            if unknown:
                raise NotFound(f"no project {', '.join(sorted(unknown))}")
            commitment = Commitment(
                id=new_id(),
                org_id=org_id,
                title=title,
                constraint=constraint,
                provenance=Provenance(source=source, excerpt=excerpt, recorded_by=actor_id),
                state=ReviewState.EXTRACTED,
                projects=projects,
                valid_from=valid_from or cfg.now,
                valid_until=valid_until,
            )
            return cfg.add_commitment(commitment)

    def confirm_commitment(self, commitment_id: str, actor_id: str) -> Commitment:
        """The founder confirms an extracted commitment; from then on it binds."""
        actor = self.store.directory.find_principal(actor_id)
        if actor is None:
            raise NotFound(f"no commitment {commitment_id}")
        self._founder(actor.org_id, actor_id)
        with self._configure(actor.org_id, actor_id) as cfg:
            return cfg.confirm_commitment(commitment_id)

    def commitments(self, org_id: str, actor_id: str) -> list[Commitment]:
        self._member(org_id, actor_id)
        return self.store.directory.commitments(org_id)

    def remember(
        self, org_id: str, actor_id: str, ref: str, projects: tuple[str, ...], text: str
    ) -> None:
        """Store a record in memory (the founder, until ingestion screening lands). A
        record belongs to one side of every barrier."""
        self._founder(org_id, actor_id)
        with self._configure(org_id, actor_id) as cfg:
            unknown = set(projects) - cfg.project_slugs()
            if unknown:
                raise NotFound(f"no project {', '.join(sorted(unknown))}")
            problem = rules.record_problem(projects, cfg.barriers())
            if problem is not None:
                raise ValueError(problem)
            cfg.add_record(ref, projects, text)

    # ------------------------------------------------------------------ runs
    def _client(self) -> Client:
        if self.client is None:
            raise TemporalUnavailable("no Temporal client: start the dev server (`verletica up`)")
        return self.client

    def ui_url(self, workflow_id: str) -> str:
        return (
            f"{self.settings.temporal_ui_url}/namespaces/{self.settings.temporal_namespace}"
            f"/workflows/{workflow_id}"
        )

    async def start_run(
        self,
        org_id: str,
        actor_id: str,
        agent_id: str,
        task: str,
        scripted_reply: str | None = None,
        client_key: str | None = None,
        hold_timeout_seconds: int | None = None,
    ) -> RunStarted:
        """Start an agent run on behalf of ``actor_id``, an active human of the
        organization; the same client key returns the run it started before."""
        self._member(org_id, actor_id)
        if scripted_reply is not None and self.settings.resolved_provider != "scripted":
            raise Forbidden(
                "scripted_reply is honoured only when the server runs the scripted provider"
            )
        agent = self.store.directory.principal(org_id, agent_id)
        if agent.kind is not PrincipalKind.AGENT:
            raise ValueError(f"{agent.handle} is not an agent")
        if not task.strip():
            raise ValueError("a run needs a task")
        if hold_timeout_seconds is not None and not (
            MIN_HOLD_SECONDS <= hold_timeout_seconds <= MAX_HOLD_SECONDS
        ):
            raise ValueError(
                f"hold_timeout_seconds must lie between {MIN_HOLD_SECONDS} and {MAX_HOLD_SECONDS}"
            )
        run_id = new_id()
        now = self.clock()
        projects = sorted(
            s.project for s in self.store.directory.staffing(org_id, agent_id) if s.active_at(now)
        )
        row, created = self.store.runs.create(
            RunRow(
                id=run_id,
                org_id=org_id,
                agent_id=agent_id,
                task=task,
                workflow_id=f"agent-run-{run_id}",
                client_key=client_key,
                started_by=actor_id,
                projects=projects,
                created_at=now,
            )
        )
        if not created and (row.agent_id, row.task) != (agent_id, task):
            raise Conflict("this client key already started a different run")
        run_input = RunInput(
            run_id=row.id,
            org_id=org_id,
            agent_id=agent_id,
            task=task,
            scripted_reply=scripted_reply,
            **({"hold_timeout_seconds": hold_timeout_seconds} if hold_timeout_seconds else {}),
        )
        # Starting is idempotent by workflow id, so a crash between the row and the
        # start is repaired by the client simply retrying with its key.
        try:
            await self._client().start_workflow(
                AgentRunWorkflow.run,
                run_input,
                id=row.workflow_id,
                task_queue=self.settings.task_queue,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(sa.ORG, org_id),
                        SearchAttributePair(sa.AGENT, agent.handle),
                        SearchAttributePair(sa.NEEDS_HUMAN, False),
                    ]
                ),
                static_summary=f"{agent.handle}: {task[:80]}",
                # A finished run is never executed again under its id: a retried
                # start with the same client key must not repeat its writes.
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            pass
        return RunStarted(
            run_id=row.id,
            workflow_id=row.workflow_id,
            created=created,
            ui_url=self.ui_url(row.workflow_id),
        )

    async def run_view(self, run_id: str, actor_id: str) -> RunView:
        """Status, node states (from the workflow) and intents with decisions (from the store).

        A human reads a run only within their own projects (the founder and whoever
        started it read it anyway); to anyone else it does not exist."""
        row = self._run_for(run_id, actor_id)
        handle = self._client().get_workflow_handle_for(AgentRunWorkflow.run, row.workflow_id)
        description = await handle.describe()
        status = description.status or WorkflowExecutionStatus.RUNNING
        state: RunState | None
        if status is WorkflowExecutionStatus.COMPLETED:
            state = await handle.result()
        elif status is WorkflowExecutionStatus.RUNNING:
            state = await handle.query(AgentRunWorkflow.state)
        else:
            state = None
        intents = [
            IntentRecord(intent=i, status=s, decisions=d)
            for i, s, d in self.store.runs.intents(run_id)
        ]
        return RunView(
            run_id=row.id,
            workflow_id=row.workflow_id,
            org_id=row.org_id,
            agent_id=row.agent_id,
            task=row.task,
            workflow_status=status.name.lower(),
            state=state,
            intents=intents,
            ui_url=self.ui_url(row.workflow_id),
        )

    async def wait_run(self, run_id: str, actor_id: str) -> RunState:
        """Wait for a run's workflow to finish; its result is its final state."""
        row = self._run_for(run_id, actor_id)
        handle = self._client().get_workflow_handle_for(AgentRunWorkflow.run, row.workflow_id)
        return await handle.result()

    async def decide_hold(
        self, intent_id: str, actor_id: str, approver_id: str, approve: bool, reason: str = ""
    ) -> dict[str, Any]:
        """Send an approve/deny signal bound to the intent's digest; the broker re-checks it.

        The acting principal speaks only for itself: ``approver_id`` must be the actor.
        """
        if approver_id != actor_id:
            raise Forbidden("approver_id must be the acting principal")
        found = self.store.runs.intent(intent_id)
        try:
            if found is None:
                raise NotFound(f"no intent {intent_id}")
            self._run_for(found[2], actor_id)
        except NotFound:
            raise NotFound(f"no intent {intent_id}") from None
        intent, status, run_id = found
        if status != Outcome.HOLD:
            raise Conflict(f"intent is {status}, not held")
        row = self.store.runs.get(run_id)
        assert row is not None
        handle = self._client().get_workflow_handle(row.workflow_id)
        signal = ApprovalSignal(
            intent_id=intent_id, approver_id=approver_id, intent_digest=intent.digest, reason=reason
        )
        try:
            await handle.signal(
                AgentRunWorkflow.approve if approve else AgentRunWorkflow.deny, signal
            )
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                raise Conflict("the run holding this intent has ended") from exc
            raise
        return {
            "intent_id": intent_id,
            "run_id": run_id,
            "workflow_id": row.workflow_id,
            "signal": "approve" if approve else "deny",
            "intent_digest": intent.digest,
        }

    # ------------------------------------------------------------------ broker
    def broker_status(self, org_id: str, actor_id: str) -> str | None:
        """Why the organization's broker is poisoned, or None when it is not."""
        self._member(org_id, actor_id)
        with self.store.governance.unit(org_id, self.clock()) as unit:
            return unit.poisoned()

    def unpoison(self, org_id: str, actor_id: str, reason: str) -> None:
        """The founder clears a poisoned broker, on the record, once the chain verifies."""
        self._founder(org_id, actor_id)
        governance.unpoison(
            self.store.governance,
            org_id,
            actor_id,
            reason,
            self.store.audit.verify(org_id),
            self.clock(),
        )

    # ------------------------------------------------------------------ audit
    def audit(self, org_id: str, actor_id: str, verify: bool) -> AuditView:
        """The org's chain; with ``verify``, recompute every hash, link and signature. The
        payload of an entry about a run outside the reader's projects is withheld."""
        org, actor = self._member(org_id, actor_id)
        readable = self._readable(org, actor)
        entries = self.store.audit.entries(org_id)
        if readable is not None:
            by_run, by_intent = self.store.runs.reaches(org_id)
            entries = [_for_reader(e, readable, by_run, by_intent) for e in entries]
        head = self.store.audit.head(org_id)
        return AuditView(
            entries=entries,
            head_hash=head.entry_hash if head else "",
            head_seq=head.seq if head else 0,
            verification=self.store.audit.verify(org_id) if verify else None,
        )


def _for_reader(
    entry: AuditEntry,
    readable: frozenset[str],
    by_run: dict[str, set[str]],
    by_intent: dict[str, set[str]],
) -> AuditEntry:
    """``entry`` as a reader of ``readable`` projects sees it."""
    run_id = entry.payload.get("run_id")
    if entry.intent_id is not None:
        reach = by_intent.get(entry.intent_id, set())
    elif isinstance(run_id, str):
        reach = by_run.get(run_id, set())
    else:
        return entry  # configuration: the directory is every member's to read
    if may_read(readable, reach):
        return entry
    return entry.model_copy(update={"payload": {"withheld": "it concerns projects outside yours"}})


def new_key() -> str:
    """A client key for idempotent run starts."""
    return uuid.uuid4().hex
