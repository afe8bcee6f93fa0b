"""What a use case receives: the ports, the clock, and the few settings that change what
it may do."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from domain.audit.anchor import AnchorGateway
from domain.audit.ports import AuditReader
from domain.commitments.ports import ExtractionGateway
from domain.counterfactual.ports import ReplayStore
from domain.deliberation.ports import DeliberationGateway
from domain.governance.approvals import ApprovalKeys
from domain.governance.ports import GovernanceStore
from domain.heartbeat.ports import HeartbeatGateway, HeartbeatStore
from domain.ingress import (
    BudgetCeilings,
    ChannelSignature,
    ConsoleSignIn,
    FrontDoor,
    TokenVerifier,
)
from domain.learning.ports import LearningGateway, LearningStore
from domain.memory.compaction import CompactionEngine
from domain.memory.judge import ScreenJudge
from domain.memory.pii import EntityFinder
from domain.memory.ports import Embedder, MemoryBankPort
from domain.memory.screen import InjectionScorer
from domain.offers.ports import OfferStore
from domain.organization.kinds import IdentityKind
from domain.organization.ports import ConfigurationStore, Directory
from domain.runs.ports import RunGateway, RunRecords
from domain.work_graph.ports import GraphGateway
from usecases.audit_stories import ChainStories


@dataclass(frozen=True)
class Ports:
    """The outside world as the use cases see it; built once per process by its
    composition root (the worker, the API, the command line, a test)."""

    directory: Directory
    configuration: ConfigurationStore
    runs: RunRecords
    audit: AuditReader
    governance: GovernanceStore
    gateway: RunGateway
    memory: MemoryBankPort
    embedder: Embedder
    clock: Callable[[], datetime]
    scripted_replies: bool = False
    """Whether a run may carry the exact reply the model returns (the scripted provider)."""
    answered_tasks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Offline (the replay provider): the tasks its committed replies answer, by agent
    handle, for the console to offer; empty where a real model answers anything."""
    compactor: CompactionEngine | None = None
    """Summarises old records into compact ones (``usecases.memory.compact``)."""
    screen_classifier: InjectionScorer | None = None
    """The ingestion screen's trained layer; None: the rules alone."""
    entity_finder: EntityFinder | None = None
    """Finds person names and street addresses (the trained tagger); None: the rules'
    cues alone."""
    screen_judge: ScreenJudge | None = None
    """The screen's model layer (when a model provider is configured); None: none."""
    screen_judge_from: float = 0.2
    """The classifier score from which the model layer is asked (0: every text)."""
    console: ConsoleSignIn | None = None
    """How the web console signs people in; None: it cannot (no issuer configured)."""
    tokens: TokenVerifier | None = None
    """The configured OIDC issuer's token verifier; None: no issuer is configured."""
    approvals: ApprovalKeys | None = None
    """The key that signs the humans' decisions sent to runs; None: holds cannot be
    decided from this process."""
    front_door: FrontDoor | None = None
    """Replay memory, budget counters and the log of refused requests; None: none kept."""
    budgets: BudgetCeilings | None = None
    """The ceilings the front door charges acting requests against; None: no ceiling."""
    channels: Mapping[IdentityKind, ChannelSignature] = field(default_factory=dict)
    """The chat channels whose webhook secret is configured (Slack, Teams)."""
    dev_principal_header: bool = False
    """Local development only: the ``X-Verletica-Principal`` header names the actor."""
    heartbeats: HeartbeatStore | None = None
    """The heartbeat's record (its runs); None: not kept by this process."""
    heartbeat: HeartbeatGateway | None = None
    """Starts a heartbeat now; None: this process cannot."""
    extractions: ExtractionGateway | None = None
    """Where extractions of commitments from documents run; None: nowhere (no Temporal)."""
    deliberations: DeliberationGateway | None = None
    """Where deliberations run; None: nowhere (no Temporal)."""
    graphs: GraphGateway | None = None
    """Where work graphs run; None: nowhere (no Temporal)."""
    anchor: AnchorGateway | None = None
    """The audit anchor (outside the database); None: not reachable from this process."""
    stories: ChainStories = field(default_factory=ChainStories)
    """Each organization's chain folded for the needs-you queue, kept and extended."""
    replays: ReplayStore | None = None
    """The governance record read back for counterfactuals; None: not readable here."""
    offers: OfferStore | None = None
    """Process offers, their episodes and drift findings; None: not kept by this process."""
    experiences: LearningStore | None = None
    """The learning pass's record (experiences); None: not kept by this process."""
    learning: LearningGateway | None = None
    """Starts a learning pass now; None: this process cannot."""


def new_id() -> str:
    """A fresh random identifier."""
    return str(uuid.uuid4())
