"""Ports: what the domain and activities need from the outside world.

Adapters implement these Protocols; the domain and the activities only see them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pydantic import Field

from domain.audit import AuditDraft, AuditEntry, ChainHead, ChainVerification
from domain.deliberation import DeliberationInput, DeliberationState
from domain.extraction import ExtractionInput, ExtractionResult
from domain.governance.counterfactual import OtherIntent, SnapshotBasis
from domain.governance.values import BrokerSnapshot, Effects, StoredIntent
from domain.intents import Decision, DispatchResult, DispatchToken, Intent
from domain.memory.adapter import Embedding
from domain.memory.release import NodeView, Span, StoredNode
from domain.model import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Frozen,
    Identity,
    IdentityKind,
    Organization,
    Principal,
    Project,
    Staffing,
    ToolSpec,
)
from domain.registry import Rollout
from domain.runs import ApprovalSignal, RunInput, RunRecord, RunState
from domain.workgraph import GraphInput, GraphState


class ModelRequest(Frozen):
    """One reasoning call: everything the model sees."""

    agent_handle: str
    task: str
    system_prompt: str
    prompt: str
    scripted_reply: str | None = None
    """Only the scripted provider honours this: the exact reply text."""


class ModelReply(Frozen):
    """The model's raw text and where it came from."""

    text: str
    provider: str
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class ModelProvider(Protocol):
    """Generates one reply for one request."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelReply:
        """Return the model's reply text; raise on transport failure."""
        ...


class ConnectorWrite(Frozen):
    """A write the broker allowed, with the token naming its audited decision."""

    intent: Intent
    tool: ToolSpec
    token: DispatchToken


class Connector(Protocol):
    """An outside system reachable only through the broker's dispatch path."""

    @property
    def system(self) -> str:
        """The outside system this connector writes to."""
        ...

    @property
    def actions(self) -> frozenset[str]:
        """The actions of ``system`` this connector performs."""
        ...

    def write(self, write: ConnectorWrite) -> DispatchResult:
        """Perform the write once per intent id, and record it (the ``dispatched`` audit
        entry) in the same commit; a replay returns the first result. Refuses with
        :class:`~domain.errors.BrokerPoisoned` for a poisoned broker and
        :class:`~domain.errors.TokenRefused` for a token that does not permit the write."""
        ...


class RecallResult(Frozen):
    """What a memory read gave one asker."""

    released: tuple[str, ...] = ()
    """Texts released to the asker."""
    released_refs: tuple[str, ...] = ()
    withheld: int = Field(default=0, ge=0)


class EmbedPurpose(StrEnum):
    """What a text is embedded for: stored as a document, or asked as a query."""

    DOCUMENT = "document"
    QUERY = "query"


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors for similarity search."""

    @property
    def name(self) -> str:
        """Which model made the vectors (vectors of different models never mix)."""
        ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], purpose: EmbedPurpose) -> list[bytes]:
        """One L2-normalised vector per text, as ``dimensions`` little-endian float32."""
        ...


class MemoryRead(Frozen):
    """One logged read of memory: who asked, for whom, what it released or withheld."""

    at: datetime
    asker_id: str
    on_behalf_of: str | None
    path: str
    """The read path: ``recall`` (a run's context), ``similarity``, ``get``."""
    query: str
    released: tuple[str, ...]
    withheld: int
    outcome: str
    """``released``, ``withheld``, ``empty`` or ``failed``."""


class MemoryHit(Frozen):
    """One node a similarity query released, and how similar it is (cosine)."""

    view: NodeView
    score: float


class QueryResult(Frozen):
    """What a similarity query gave one reader."""

    hits: tuple[MemoryHit, ...] = ()
    withheld: int = Field(default=0, ge=0)
    """How many of the organization's nodes the reader may not see (the same for every
    query: it says that something is withheld, nothing of what it is about)."""


class Neighbour(Frozen):
    """A record linked to another, as the reader may see it."""

    kind: str
    outgoing: bool
    """True for a link from the record asked about, False for one into it."""
    view: NodeView


class Neighbours(Frozen):
    """The records linked to one record that the reader may see, and how many not."""

    of: NodeView
    neighbours: tuple[Neighbour, ...] = ()
    withheld: int = Field(default=0, ge=0)


class ExplanationStep(Frozen):
    """One derivation in an explanation: ``view`` was drawn on, at ``source``."""

    depth: int = Field(ge=1)
    view: NodeView
    """Withheld: a step the reader may not see (nothing of it shown, not followed)."""
    source: str | None = None
    """The source span drawn on, as the reader may see it (None when withheld)."""


class Explanation(Frozen):
    """Where a record came from: its derivations, walked back, as the reader may see
    them. ``redacted`` when any step was withheld or masked."""

    of: NodeView
    steps: tuple[ExplanationStep, ...] = ()
    redacted: bool = False


class ProcedureView(Frozen):
    """A version of a procedure as the reader may see it (withheld: nothing of it)."""

    name: str | None = None
    version: int | None = None
    view: NodeView
    steps: tuple[str, ...] = ()


class MemoryBankPort(Protocol):
    """The memory bank's read paths as the use cases see them: each names its asker,
    goes through the release rule and is logged."""

    def query(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        text: str,
        now: datetime,
        k: int = 10,
        on_behalf_of: str | None = None,
    ) -> QueryResult: ...

    def get(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> NodeView: ...

    def neighbours(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> Neighbours: ...

    def explain(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> Explanation: ...

    def procedure(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        name: str,
        now: datetime,
        version: int | None = None,
        on_behalf_of: str | None = None,
    ) -> ProcedureView: ...

    def reads(self, org_id: str) -> list[MemoryRead]:
        """Every read of the organization's memory, oldest first."""
        ...


class AgentProfile(Frozen):
    """An agent as the resolve and reasoning steps read it."""

    principal: Principal
    definition: AgentDefinition | None
    """The definition the stable version pins."""
    charter: Charter | None
    """The stable version's charter."""
    staffing: tuple[Staffing, ...]
    """Every staffing row, current or not."""
    versions: tuple[Charter, ...] = ()
    """Every version of its charter (draft, published, retired)."""
    definitions: tuple[AgentDefinition, ...] = ()
    """Every version of its definition."""
    rollout: Rollout | None = None
    """Which version new runs get; None when no version is published."""

    def version(self, version: int) -> tuple[Charter | None, AgentDefinition | None]:
        """Charter ``version`` and the definition it pins (either None when missing)."""
        charter = next((c for c in self.versions if c.version == version), None)
        if charter is None:
            return None, None
        pin = charter.definition_pin
        return charter, next((d for d in self.definitions if d.version == pin), None)


class AgentDirectory(Protocol):
    """What the resolve and reasoning steps read of the directory."""

    def agent(self, org_id: str, principal_id: str) -> AgentProfile | None:
        """The agent, if ``org_id`` has such a principal."""
        ...


class MemoryRecall(Protocol):
    """The gated read path of the memory bank."""

    def recall(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        query: str,
        now: datetime,
        limit: int = 5,
        on_behalf_of: str | None = None,
        within: frozenset[str] | None = None,
    ) -> RecallResult:
        """Records matching ``query`` that ``asker_principal_id`` may read and, when a
        human started the run, that ``on_behalf_of`` may read too (and, with ``within``,
        only of those projects). Every read is logged, a failed one included."""
        ...


class GovernanceUnit(Protocol):
    """One organization's governance state inside one transaction under its lock.

    Everything read here is as of the lock; everything written commits together when the
    unit ends without an error. Storage failures raise
    :class:`~domain.errors.StoreFailure`.
    """

    def poisoned(self) -> str | None:
        """Why the organization's broker is poisoned, or None."""
        ...

    def stored(self, intent_id: str) -> StoredIntent | None:
        """The intent as recorded, if it is this organization's."""
        ...

    def latest(self, intent_id: str) -> Decision | None:
        """The intent's newest decision, if it has one."""
        ...

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        """What the broker reads to decide ``intent`` now."""
        ...

    def principal(self, principal_id: str) -> tuple[Principal | None, tuple[Staffing, ...]]:
        """A principal of any organization and its staffing rows."""
        ...

    def recorded(self, event_key: str) -> AuditEntry | None:
        """The entry appended under ``event_key`` before, if any."""
        ...

    def record(
        self, intent: Intent, decision: Decision, effects: Effects, draft: AuditDraft
    ) -> Decision:
        """Store ``decision`` (and the intent, the first time), apply ``effects``, append
        ``draft``; the decision with its audit sequence and hash."""
        ...

    def append(self, draft: AuditDraft) -> AuditEntry:
        """Append ``draft`` to the chain (idempotent by its event key)."""
        ...

    def poison(self, draft: AuditDraft, reason: str) -> None:
        """Mark the organization's broker poisoned, on the record."""
        ...

    def unpoison(self, draft: AuditDraft) -> None:
        """Clear the poison, on the record."""
        ...


class GovernanceStore(Protocol):
    """Hands out governance units and dispatch tokens."""

    def unit(self, org_id: str, now: datetime) -> AbstractContextManager[GovernanceUnit]:
        """Lock ``org_id`` and open a unit whose appends carry ``now``."""
        ...

    def token_for(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """The intent ``decision`` is about and the token naming it (the connector checks
        the token, in the write's own transaction)."""
        ...


class ReplayUnit(Protocol):
    """One organization's governance record inside one read-only transaction: what a
    counterfactual replays. Nothing is locked, claimed, written or appended."""

    def stored(self, intent_id: str) -> StoredIntent | None:
        """The intent as recorded, if it is this organization's."""
        ...

    def decisions(self, intent_id: str) -> tuple[Decision, ...]:
        """The intent's decisions, oldest first."""
        ...

    def snapshot_at(
        self, intent: Intent, decision: Decision
    ) -> tuple[BrokerSnapshot, SnapshotBasis]:
        """What the broker read when it made ``decision``, rebuilt from the record, and
        whether the configuration in it is the one of that moment or today's."""
        ...

    def others(self, intent_ids: Sequence[str]) -> dict[str, OtherIntent]:
        """Recorded intents of this organization, by id."""
        ...


class ReplayStore(Protocol):
    """Hands out read-only units over the governance record."""

    def read(self, org_id: str) -> AbstractContextManager[ReplayUnit]:
        """A read-only unit of ``org_id``; :class:`~domain.errors.NotFound` for none."""
        ...


# ---------------------------------------------------------------- the organization


class Directory(Protocol):
    """Reads of an organization's standing records."""

    def org(self, org_id: str) -> Organization:
        """The organization; :class:`~domain.errors.NotFound` when there is none."""
        ...

    def find_principal(self, principal_id: str) -> Principal | None: ...

    def agent(self, org_id: str, principal_id: str) -> AgentProfile | None:
        """An agent with its versions, rollout and staffing (None: no such principal)."""
        ...

    def identity(self, kind: IdentityKind, external_id: str) -> Identity | None:
        """Whose an outside identity is (None: nobody's)."""
        ...

    def principal(self, org_id: str, principal_id: str) -> Principal:
        """A principal of ``org_id``; :class:`~domain.errors.NotFound` otherwise."""
        ...

    def principals(self, org_id: str) -> list[Principal]: ...

    def projects(self, org_id: str) -> list[Project]: ...

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]: ...

    def barriers(self, org_id: str) -> list[Barrier]: ...

    def commitments(self, org_id: str) -> list[Commitment]: ...


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


# ---------------------------------------------------------------- runs and the record


class RunRecords(Protocol):
    """Runs and the intents and decisions recorded for them."""

    def create(self, run: RunRecord) -> tuple[RunRecord, bool]:
        """Record a run; with a client key already used, the first run and False."""
        ...

    def get(self, run_id: str) -> RunRecord | None: ...

    def recent(self, org_id: str, limit: int = 50) -> list[RunRecord]:
        """The organization's runs, newest first."""
        ...

    def by_client_key(self, org_id: str, client_key: str) -> RunRecord | None:
        """The run a client key started, if any."""
        ...

    def intents(self, run_id: str) -> list[tuple[Intent, str, list[Decision]]]:
        """Each intent of the run with its status and its decisions, oldest first."""
        ...

    def intent(self, intent_id: str) -> tuple[Intent, str, str] | None:
        """An intent, its status and its run id."""
        ...

    def reach(self, run_id: str) -> set[str]: ...

    def reaches(self, org_id: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The reach of every run and every intent of an organization."""
        ...


class AuditReader(Protocol):
    """Reads and verifies organizations' chains."""

    def entries(self, org_id: str, after_seq: int = 0) -> list[AuditEntry]:
        """Entries after ``after_seq``, in sequence order."""
        ...

    def head(self, org_id: str) -> ChainHead | None: ...

    def verify(self, org_id: str) -> ChainVerification: ...


class ExtractionGateway(Protocol):
    """Where extractions of commitments from documents run (Temporal). Unreachable:
    :class:`~domain.errors.Unavailable`."""

    async def run(self, extraction: ExtractionInput) -> ExtractionResult:
        """Run the extraction's workflow to its end; its result."""
        ...


class GraphGateway(Protocol):
    """Where work graphs execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(self, graph: GraphInput) -> str:
        """Start the graph's workflow; its workflow id."""
        ...

    async def state(self, graph_id: str) -> tuple[str, GraphState]:
        """The workflow's status and the graph's state; :class:`NotFound` for none."""
        ...

    async def result(self, graph_id: str) -> GraphState:
        """Wait for the graph to finish: its final state."""
        ...


class DeliberationGateway(Protocol):
    """Where deliberations execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(self, deliberation: DeliberationInput) -> str:
        """Start the deliberation's workflow; its workflow id."""
        ...

    async def state(self, deliberation_id: str) -> tuple[str, DeliberationState]:
        """The workflow's status and the deliberation's state; :class:`NotFound` for none."""
        ...

    async def result(self, deliberation_id: str) -> DeliberationState:
        """Wait for the deliberation to finish: its final state."""
        ...


class RunGateway(Protocol):
    """Where runs execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(
        self, run: RunInput, workflow_id: str, agent_handle: str, projects: tuple[str, ...] = ()
    ) -> None:
        """Start the run's workflow, findable by org, agent and the agent's ``projects``; a
        start repeated under the same id does nothing (and never runs a finished workflow
        again)."""
        ...

    async def state(self, workflow_id: str) -> tuple[str, RunState | None]:
        """The workflow's status (``running``, ``completed``…) and the run's state."""
        ...

    async def result(self, workflow_id: str) -> RunState:
        """Wait for the run to finish: its final state."""
        ...

    async def signal(self, workflow_id: str, approve: bool, signal: ApprovalSignal) -> None:
        """Send an approve or deny; :class:`~domain.errors.Conflict` when the run ended."""
        ...

    def ui_url(self, workflow_id: str) -> str:
        """Where a person sees the run in the Temporal UI."""
        ...
