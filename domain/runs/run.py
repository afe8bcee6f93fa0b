"""Inputs, outputs and visible state of an agent run (one Temporal workflow per run)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, model_validator

from domain.fleet.registry import AgentPin
from domain.governance.approvals import ApprovalProof, HeldDecision
from domain.governance.intents import (
    ApprovalRequest,
    Decision,
    DispatchResult,
    Intent,
    ProposedAction,
)
from domain.governance.values import ReviewResult
from domain.organization.contracts import Frozen, UtcInstant
from domain.runs.parser import ParseRejection
from domain.text import nul_at

DEFAULT_HOLD_SECONDS = 7 * 24 * 3600
MIN_HOLD_SECONDS = 60
MAX_HOLD_SECONDS = 365 * 24 * 3600
"""The longest a hold may wait for a human: a year. Bounded so that no deadline overflows."""


RESERVED_KEYS = ("slack:", "teams:", "oidc:", "answer:", "retry:", "graph:", "deliberation:")
"""Client-key prefixes the system's own runs use (a channel's delivery, an answer, a retry,
a graph's step, a deliberation): a client may not choose one, or it could take over the
run the system records under it."""


def check_client_key(key: str | None) -> None:
    """Refuse (ValueError) a client key that starts with a reserved prefix."""
    if key is not None and key.lower().startswith(RESERVED_KEYS):
        raise ValueError(f"client keys starting with {', '.join(RESERVED_KEYS)} are the system's")


def check_hold_timeout(seconds: int | None) -> None:
    """Refuse (ValueError) a hold timeout outside [a minute, a year]; None is the default."""
    if seconds is not None and not MIN_HOLD_SECONDS <= seconds <= MAX_HOLD_SECONDS:
        raise ValueError(
            f"hold_timeout_seconds must lie between {MIN_HOLD_SECONDS} and {MAX_HOLD_SECONDS}"
        )


class RunInput(Frozen):
    """Start an agent run."""

    run_id: str
    org_id: str
    agent_id: str
    task: str
    requested_by: str | None = None
    """The human the run acts for (who started it); None for a run the system started.
    The run reads memory only as far as both the agent and this human may see."""
    read_reach: tuple[str, ...] = ()
    """Projects of what is handed to the run with its task (a work graph's earlier
    outputs, a deliberation's recalled context, what the run whose question it answers
    read): the run knows of them, so the broker counts them in the reach of every intent
    it proposes, beside what it recalls."""
    read_refs: tuple[str, ...] = ()
    """The memory records handed to the run with its task (as ``read_reach``): the broker
    names the outside ones where a hold's destination came from."""
    scripted_reply: str | None = None
    hold_timeout_seconds: int = Field(
        default=DEFAULT_HOLD_SECONDS, ge=MIN_HOLD_SECONDS, le=MAX_HOLD_SECONDS
    )
    """How long a hold waits for a human before it expires."""

    @model_validator(mode="after")
    def _storable(self) -> RunInput:
        problem = nul_at(self.model_dump())
        if problem is not None:
            raise ValueError(problem)
        return self


class ApprovalSignal(Frozen):
    """A human's answer to a held intent, as sent to the workflow (API, CLI or Temporal UI)."""

    intent_id: str
    approver_id: str
    intent_digest: str
    reason: str = ""
    proof: ApprovalProof | None = None
    """The API's signature over the decision; without a valid one the broker refuses it.
    (Optional so that signals recorded before proofs existed still decode.)"""
    hold: HeldDecision | None = None
    """The hold the approver answered (the proof covers it). Optional so that signals
    recorded before holds were bound still decode; the broker refuses them."""


class RunRecord(Frozen):
    """A run as recorded when it was started: one per workflow."""

    id: str
    org_id: str
    agent_id: str
    task: str
    workflow_id: str
    client_key: str | None = None
    started_by: str | None = None
    """The human who started the run."""
    projects: tuple[str, ...] = ()
    """The agent's projects when the run started (part of what the run reaches)."""
    hold_timeout_seconds: int | None = None
    """How long its holds wait for a human; None for runs recorded before this was kept."""
    created_at: UtcInstant


class ResolvedAgent(Frozen):
    """The outcome of the resolve step: who runs, with what budget and tools."""

    agent_id: str
    handle: str
    budget_cents: int
    tools: tuple[str, ...]
    projects: tuple[str, ...]
    """Projects the agent is currently staffed on."""
    pin: AgentPin | None = None
    """The version the run resolved and keeps (None in runs resolved before pins)."""


class ContextRequest(Frozen):
    """Recall context for a run, as the agent, on behalf of the human who started it."""

    org_id: str
    agent_id: str
    run_id: str
    task: str
    on_behalf_of: str | None = None
    within: tuple[str, ...] | None = None
    """Recall only records of these projects (a deliberation: its run's recorded reach,
    so that what its personas read never reaches past who may read the deliberation)."""

    @classmethod
    def of_run(cls, run: RunInput) -> ContextRequest:
        """What a run recalls: its task, as its agent, on behalf of whoever started it."""
        return cls(
            org_id=run.org_id,
            agent_id=run.agent_id,
            run_id=run.run_id,
            task=run.task,
            on_behalf_of=run.requested_by,
        )


class ContextPack(Frozen):
    """What the memory gate released to the agent."""

    items: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    withheld: int = 0
    reach: tuple[str, ...] = ()
    """The projects of the records released: the run knows of them, so every intent it
    proposes reaches them (``Intent.read_reach``), whatever the model declares."""


class Prepared(Frozen):
    """Resolve and context done as one step: the agent that runs, and what it recalled."""

    resolved: ResolvedAgent
    context: ContextPack


class ReasoningRequest(Frozen):
    """One model call for a run."""

    org_id: str
    agent_id: str
    run_id: str
    task: str
    context: ContextPack
    tools: tuple[str, ...]
    """The tool snapshot published at resolve time; the parser checks against it."""
    projects: tuple[str, ...]
    scripted_reply: str | None = None
    pin: AgentPin | None = None
    """The version the run resolved: its charter, definition and skills make the prompt."""
    read_refs: tuple[str, ...] = ()
    """What was handed to the run with its task (``RunInput.read_refs``): recorded with
    a question the agent asks, so that the run answering it knows it too."""
    read_reach: tuple[str, ...] = ()
    """The projects of that (``RunInput.read_reach``)."""


class ReasoningResult(Frozen):
    """Parsed proposals, or the parser's rejection (already in the audit chain)."""

    summary: str = ""
    actions: tuple[ProposedAction, ...] = ()
    rejection: ParseRejection | None = None
    question: str | None = None
    """The agent's question for a human (already in the audit chain); no actions."""
    model_cents: int = Field(default=0, ge=0)
    """What the model call cost, charged to the run (already in the audit chain)."""
    provider: str
    model: str
    reply_digest: str


class BrokerRequest(Frozen):
    """Decide one intent."""

    intent: Intent


class ReviewRequest(Frozen):
    """Re-check one human decision on a held intent, or record a signal that was not one."""

    org_id: str
    run_id: str
    request: ApprovalRequest | None
    """The decision; None for a signal that did not decode as one."""
    attempt: int
    """Position of this request among the run's signals; makes the audit entry idempotent."""
    undecodable: str | None = None
    """Why the signal could not be read as a decision (its name and a bounded preview,
    never its content): the broker records it, refused."""

    @model_validator(mode="after")
    def _one(self) -> ReviewRequest:
        if (self.request is None) == (self.undecodable is None):
            raise ValueError("a review is of a decision or of an undecodable signal")
        return self


class ReviewOutcome(Frozen):
    """The broker's review and the intent's newest decision (approved, denied, or a
    hold, possibly renewed with new reasons when the approval was refused)."""

    review: ReviewResult
    decision: Decision | None = None


class RecheckRequest(Frozen):
    """Decide again an intent held for a collision."""

    org_id: str
    intent_id: str


class ExpireRequest(Frozen):
    """Close an intent that will not be dispatched (undecided hold, or its run failed)."""

    org_id: str
    intent_id: str
    rule: str = "hold_expired"
    reason: str = "no human decided before the hold expired"


class RunFailure(Frozen):
    """A run that ended without doing its work, to be put on the record (once per run)."""

    org_id: str
    run_id: str
    agent_id: str
    rule: str
    """``run_failed`` or ``run_cancelled``."""
    reason: str
    error_type: str = ""
    """The type of the error that ended it (``ModelUnavailable``…), for its class."""


class DispatchRequest(Frozen):
    """Perform the connector write of an allowed or approved intent."""

    org_id: str
    intent_id: str
    decision: Decision
    intent: Intent | None = None
    """The intent itself (the connector checks it against its audited digest); older runs
    sent none, and the intent is then read from the record."""


class NodeStatus(StrEnum):
    """Where a step of the run stands."""

    PENDING = "pending"
    RUNNING = "running"
    WAITING = "waiting"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


class RunStatus(StrEnum):
    """Where the run as a whole stands."""

    RUNNING = "running"
    NEEDS_HUMAN = "needs_human"
    COMPLETED = "completed"
    FAILED = "failed"


CANCELLED_ERROR = "the run was cancelled"
"""A cancelled run's error, as its state says it."""

MAX_REFUSED_SHOWN = 100
"""How many refused signals a run's state shows: a flood of forged signals must not grow
the state (the query answer and the result) without bound."""

NODES: tuple[str, ...] = ("resolve", "context", "reasoning", "broker", "hold", "action")


class IntentView(Frozen):
    """One intent of a run, with its current decision and dispatch."""

    intent: Intent
    decision: Decision
    dispatch: DispatchResult | None = None
    refused_reviews: tuple[str, ...] = ()
    """Approval attempts the broker refused, with their rule."""


class RunState(Frozen):
    """The run's visible state: answers the ``state`` query and is the workflow result.

    It ignores fields it does not know (where other values forbid them): a state written
    by a newer worker is read by an older one while a deploy rolls out or back (a work
    graph's or a deliberation's parent, the console's query)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    run_id: str
    status: RunStatus = RunStatus.RUNNING
    nodes: dict[str, NodeStatus] = Field(
        default_factory=lambda: {n: NodeStatus.PENDING for n in NODES}
    )
    summary: str = ""
    rejection: ParseRejection | None = None
    question: str | None = None
    """What the agent asked the human who started the run (answered by a new run)."""
    model_cents: int = 0
    """What the run's model call cost."""
    spent_cents: int = 0
    """What the run has spent: its model call and the money its allowed or approved
    intents move (as the broker counts it against the effective budget)."""
    released: tuple[str, ...] = ()
    """The memory records the gate released to the run (refs)."""
    intents: tuple[IntentView, ...] = ()
    error: str | None = None
    error_type: str = ""
    """The type of the error that ended the run (an :class:`~domain.runs.failures.ErrorType`
    value, or an exception's name): what its failure's class goes by."""
    refused_signals: tuple[str, ...] = ()
    """Every decision sent to the run that the broker refused, newest last (at most
    :data:`MAX_REFUSED_SHOWN`; the audit chain holds them all): forged or unproven ones,
    ones that did not decode, ones for no open hold. Each reads ``deny by p_x: rule — why``."""
    pin: AgentPin | None = None
    """The agent version the run resolved and keeps to its end."""
