"""A deliberation as Temporal carries it: its input, each persona's round and outcome,
its visible state, and the ids and keys that make its steps idempotent."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from domain.deliberation.gate import GateResult, Proposal, ProvenanceEntry
from domain.deliberation.plan import DeliberationPlan, Persona
from domain.organization.contracts import Frozen
from domain.runs.run import RunState


class PersonaOutcome(StrEnum):
    """How a persona's turn ended."""

    EMITTED = "emitted"
    EXHAUSTED = "exhausted"
    """It failed the gate in every round."""
    OVER_BUDGET = "over_budget"
    """The rounds before it spent the run's budget: it did not speak."""


class DeliberationStatus(StrEnum):
    """Where a deliberation stands."""

    RUNNING = "running"
    SYNTHESISING = "synthesising"
    NEEDS_HUMAN = "needs_human"
    """The synthesis run waits on a human's decision."""
    COMPLETED = "completed"
    FAILED = "failed"


class PersonaState(Frozen):
    """One persona's turn so far."""

    name: str
    rounds: int = Field(default=0, ge=0)
    outcome: PersonaOutcome | None = None
    """None while it has not finished its turn."""
    released: int = Field(default=0, ge=0)
    """How many memory records were released to it."""


class DeliberationState(Frozen):
    """What a deliberation workflow answers to a query."""

    deliberation_id: str
    org_id: str = ""
    run_id: str | None = None
    """The deliberation's run (recorded as it begins): its reach decides who reads this."""
    status: DeliberationStatus = DeliberationStatus.RUNNING
    personas: tuple[PersonaState, ...] = ()
    provenance: tuple[ProvenanceEntry, ...] = ()
    synthesis_run_id: str | None = None
    synthesis: RunState | None = None
    """The synthesising run's final state: its intents and the broker's decisions."""
    spent_cents: int = 0
    """What the personas' rounds cost (charged to the run; the synthesis adds its own)."""
    error: str | None = None
    """Why the deliberation failed, when it did."""


SYNTHESIS = "synthesis"
"""The key of the synthesising run's reply among scripted replies."""


QUESTION_PREFIX = "Deliberation: "
"""A deliberation's run's task: this, then the question."""

DELIBERATION_STAGE = "deliberation"
"""The stage of a round's audit entry."""


class DeliberationInput(Frozen):
    """Start a deliberation: a question, the personas' plan, and the agent whose memory
    gate releases the context and whose run synthesises (and proposes the actions)."""

    deliberation_id: str
    org_id: str
    agent_id: str
    question: str = Field(min_length=1, max_length=4000)
    plan: DeliberationPlan
    requested_by: str
    scripted_replies: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Persona name → its replies round by round, and ``synthesis`` → the synthesising
    run's reply; honoured only by the scripted and replay providers."""
    hold_timeout_seconds: int | None = None


class DeliberationBegun(Frozen):
    """The deliberation's run, recorded: its provenance is read as that run is."""

    run_id: str
    workflow_id: str
    handle: str
    projects: tuple[str, ...] = ()
    budget_cents: int = 0
    """The agent's effective budget: the rounds stop once their charges reach it."""


class PersonaRound(Frozen):
    """One round of one persona: ask the model, gate the reply, record the round."""

    deliberation_id: str
    org_id: str
    run_id: str
    agent_id: str
    handle: str
    question: str
    persona: Persona
    round: int = Field(ge=1)
    context: tuple[tuple[str, str], ...] = ()
    """(record id, text) released to the persona."""
    earlier: tuple[Proposal, ...] = ()
    feedback: str | None = None
    scripted_reply: str | None = None


class RoundOutcome(Frozen):
    """The gate's verdict on one round (already on the chain)."""

    result: GateResult
    feedback: str | None = None
    """What the persona reads next round, when the gate failed."""
    cents: int = 0
    """What the round's model call cost (charged to the deliberation's run)."""


def deliberation_workflow_id(deliberation_id: str) -> str:
    """A deliberation's workflow id: what a list in the Temporal UI shows."""
    return f"deliberation-{deliberation_id}"


def round_key(deliberation_id: str, persona: str, round: int) -> str:
    """A round's audit entry key: a retried round records nothing twice."""
    return f"deliberation:{deliberation_id}:{persona}:{round}"
