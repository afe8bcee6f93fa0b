"""Work graphs: several agent runs in dependency order, each step a run of its own.

A graph names steps (an agent and a task) and the steps each waits for. Steps whose
dependencies are done run side by side (fan-out); a step waiting for several runs once
all of them are done (fan-in). A step's *output* (its summary and what it did) passes to
the steps after it only as far as the memory gate would let the next agent, acting for
the human who started the graph, read that step's projects: a graph never carries a
fact across a wall. A step held for a human pauses only the steps after it; a step
that fails or is skipped skips the steps after it.

The kernel routes outputs and records statuses; it interprets no task.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from pydantic import Field, model_validator

from domain.governance.intents import Outcome
from domain.organization.contracts import Frozen, Slug
from domain.runs.run import (
    DEFAULT_HOLD_SECONDS,
    MAX_HOLD_SECONDS,
    MIN_HOLD_SECONDS,
    RunState,
    RunStatus,
)

MAX_STEPS = 20
MAX_TASK = 2000
MAX_OUTPUT = 600
"""At most this much of one step's summary passes to the next step."""

STEP_HELD = "step_held"
"""The signal an agent run started by a graph sends its graph as a hold opens and closes."""


def graph_workflow_id(graph_id: str) -> str:
    """A graph's workflow id: what a list in the Temporal UI shows."""
    return f"graph-{graph_id}"


class GraphStep(Frozen):
    """One step: an agent, its task, and the steps it waits for."""

    id: Slug
    agent: str = Field(min_length=1, max_length=200)
    """The agent's handle or id (the use case resolves it to an id)."""
    task: str = Field(min_length=1, max_length=MAX_TASK)
    after: tuple[Slug, ...] = ()
    """Steps that must be done before this one runs."""


class WorkGraph(Frozen):
    """A named set of steps whose dependencies form no cycle."""

    name: str = Field(min_length=1, max_length=200)
    steps: tuple[GraphStep, ...] = Field(min_length=1, max_length=MAX_STEPS)

    @model_validator(mode="after")
    def _acyclic(self) -> WorkGraph:
        ids = [s.id for s in self.steps]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"step ids repeat: {repeated}")
        known = set(ids)
        for step in self.steps:
            unknown = sorted(set(step.after) - known)
            if unknown:
                raise ValueError(f"step {step.id!r} waits for unknown steps {unknown}")
            if step.id in step.after:
                raise ValueError(f"step {step.id!r} waits for itself")
        layers(self)  # raises on a cycle
        return self

    def step(self, step_id: str) -> GraphStep:
        """The step named ``step_id``."""
        return next(s for s in self.steps if s.id == step_id)


def layers(graph: WorkGraph) -> list[list[str]]:
    """The steps in dependency order, as layers that may run side by side; a cycle is a
    ValueError naming the steps on it."""
    waiting = {s.id: set(s.after) for s in graph.steps}
    done: set[str] = set()
    out: list[list[str]] = []
    while waiting:
        ready = sorted(i for i, deps in waiting.items() if deps <= done)
        if not ready:
            raise ValueError(f"the steps wait for each other in a cycle: {sorted(waiting)}")
        out.append(ready)
        done.update(ready)
        for i in ready:
            del waiting[i]
    return out


class StepStatus(StrEnum):
    """Where a step stands."""

    WAITING = "waiting"
    """For the steps before it."""
    RUNNING = "running"
    HELD = "held"
    """Its run waits for a human; the steps after it wait too."""
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    """A step before it failed or was skipped: it never ran."""

    @property
    def final(self) -> bool:
        """True once the step will not change again."""
        return self in (StepStatus.DONE, StepStatus.FAILED, StepStatus.SKIPPED)


class StepOutput(Frozen):
    """What a finished step passes on: its summary and what it did, and where."""

    step_id: str
    run_id: str
    summary: str = ""
    did: tuple[str, ...] = ()
    """Each action its run was allowed to take, as ``tool: outcome``."""
    projects: tuple[str, ...] = ()
    """What the output reaches: the run's projects and its intents' reach."""
    read_refs: tuple[str, ...] = ()
    """The memory records the step's run read (its recall, and what it was handed): what
    a later step's holds may name as where a destination came from."""


class StepState(Frozen):
    """A step as the graph's query shows it."""

    id: str
    agent: str
    task: str = ""
    """What the step was asked (empty in states recorded before it was shown)."""
    after: tuple[str, ...] = ()
    """The steps it waits for (empty in states recorded before they were shown)."""
    status: StepStatus = StepStatus.WAITING
    run_id: str | None = None
    workflow_id: str | None = None
    summary: str = ""
    withheld: bool = False
    """Shown to a reader who may not read the step's run: its summary is left out."""


class GraphStatus(StrEnum):
    """Where the whole graph stands."""

    RUNNING = "running"
    NEEDS_HUMAN = "needs_human"
    COMPLETED = "completed"
    """Every step is done."""
    FAILED = "failed"
    """Some step failed or was skipped (the rest ran as far as they could)."""


class GraphState(Frozen):
    """The graph's visible state: answers its ``state`` query and is its result."""

    graph_id: str
    org_id: str = ""
    name: str
    status: GraphStatus = GraphStatus.RUNNING
    steps: tuple[StepState, ...] = ()


class GraphInput(Frozen):
    """Start a work graph on behalf of a human."""

    graph_id: str
    org_id: str
    requested_by: str
    graph: WorkGraph
    """Its steps' agents are ids here (resolved by the use case)."""
    handles: dict[str, str] = Field(default_factory=dict)
    """Agent id → handle, for workflow ids and summaries."""
    scripted_replies: dict[str, str] = Field(default_factory=dict)
    """Step id → the model's reply, honoured only by the scripted and replay providers."""
    hold_timeout_seconds: int = Field(
        default=DEFAULT_HOLD_SECONDS, ge=MIN_HOLD_SECONDS, le=MAX_HOLD_SECONDS
    )


class StepRequest(Frozen):
    """Prepare one step's run: its task with the outputs released to its agent."""

    graph_id: str
    org_id: str
    requested_by: str
    step: GraphStep
    earlier: tuple[StepOutput, ...] = ()
    """Outputs of the steps it waits for."""
    hold_timeout_seconds: int = DEFAULT_HOLD_SECONDS


class PreparedStep(Frozen):
    """A step's run, recorded and ready to start as a child workflow."""

    run_id: str
    workflow_id: str
    handle: str
    task: str
    projects: tuple[str, ...] = ()
    released: tuple[str, ...] = ()
    """The steps whose outputs were passed on."""
    withheld: tuple[str, ...] = ()
    """The steps whose outputs the agent may not read (named, never shown)."""
    read_reach: tuple[str, ...] = ()
    """The projects the passed-on outputs reach: the step's run knows of them."""
    read_refs: tuple[str, ...] = ()
    """The records the passed-on outputs' runs read: their provenance travels on."""


class StepHeld(Frozen):
    """From a step's run to its graph: a hold opened (``held``) or the last one closed."""

    run_id: str
    held: bool


def released(
    earlier: Iterable[StepOutput], readable: frozenset[str] | None
) -> tuple[list[StepOutput], list[StepOutput]]:
    """Split outputs into those a reader with ``readable`` projects may read (None: all)
    and those it may not. An output that reaches no project is released."""
    shown: list[StepOutput] = []
    hidden: list[StepOutput] = []
    for output in earlier:
        if readable is None or set(output.projects) <= readable:
            shown.append(output)
        else:
            hidden.append(output)
    return shown, hidden


def step_task(task: str, shown: Sequence[StepOutput], hidden: Sequence[StepOutput]) -> str:
    """A step's task text: its own task, then what earlier steps released to it."""
    lines = [task]
    if shown:
        lines.append("Earlier steps (their outputs, released to you):")
        for output in shown:
            did = "; ".join(output.did) or "nothing"
            lines.append(f"- {output.step_id}: {output.summary[:MAX_OUTPUT]} (did: {did})")
    if hidden:
        names = ", ".join(o.step_id for o in hidden)
        lines.append(f"Earlier steps whose outputs you may not read: {names}.")
    return "\n".join(lines)


def output_of(step_id: str, prepared: PreparedStep, state: RunState) -> StepOutput:
    """What a finished step passes on: its summary, each action it was allowed to take
    (and whether it was carried out), and every project the run reached."""
    reach = set(prepared.projects)
    did = []
    for view in state.intents:
        reach.update(view.decision.reach or view.intent.projects)
        if view.decision.outcome.may_dispatch:
            done = "done" if view.dispatch is not None else "not carried out"
            did.append(f"{view.intent.tool}: {view.decision.outcome.value}, {done}")
    return StepOutput(
        step_id=step_id,
        run_id=prepared.run_id,
        summary=state.summary,
        did=tuple(did),
        projects=tuple(sorted(reach)),
        read_refs=tuple(sorted({*state.released, *prepared.read_refs})),
    )


_UNDONE = frozenset({Outcome.REJECT, Outcome.DENIED, Outcome.EXPIRED})


def step_outcome(state: RunState) -> tuple[StepStatus, str]:
    """Whether a step's run did its work, and what the graph shows for it: done only when
    the run completed, its reply was accepted, it asked nothing, and none of its actions
    was refused, denied or left to expire (the steps after it build on that work)."""
    if state.status is not RunStatus.COMPLETED:
        return StepStatus.FAILED, state.error or f"the run {state.status.value}"
    if state.rejection is not None:
        return StepStatus.FAILED, f"the reply was refused: {state.rejection.rule}"
    if state.question is not None:
        return StepStatus.FAILED, f"the agent asks: {state.question}"
    undone = [v for v in state.intents if v.decision.outcome in _UNDONE]
    if undone:
        first = undone[0].decision
        return StepStatus.FAILED, f"{undone[0].intent.tool} {first.outcome.value}: {first.rule}"
    return StepStatus.DONE, state.summary


def graph_status(steps: Mapping[str, StepStatus]) -> GraphStatus:
    """The graph's status from its steps'."""
    values = set(steps.values())
    if values <= {StepStatus.DONE}:
        return GraphStatus.COMPLETED
    if all(v.final for v in values):
        return GraphStatus.FAILED
    if StepStatus.HELD in values:
        return GraphStatus.NEEDS_HUMAN
    return GraphStatus.RUNNING
