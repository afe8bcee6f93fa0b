"""Work graphs as a human starts and reads them: several agent runs in dependency order
(see :mod:`domain.work_graph.graph`), each governed like any run."""

from __future__ import annotations

import uuid

from domain.errors import NotFound, Unavailable
from domain.organization.visibility import may_read
from domain.runs.run import check_hold_timeout
from domain.work_graph.graph import GraphInput, GraphState, StepState, WorkGraph
from domain.work_graph.ports import GraphGateway
from usecases import ingress
from usecases.access import agent_named, check_scripted, member, readable
from usecases.context import Ports


def _gateway(ports: Ports) -> GraphGateway:
    if ports.graphs is None:
        raise Unavailable("work graphs need Temporal: start the dev server (`verletica up`)")
    return ports.graphs


async def start_graph(
    ports: Ports,
    org_id: str,
    actor_id: str,
    graph: WorkGraph,
    scripted_replies: dict[str, str] | None = None,
    hold_timeout_seconds: int | None = None,
) -> GraphState:
    """Start ``graph`` on behalf of ``actor_id`` (an active human of the organization):
    each step's agent, by handle or id, must be an agent of the organization. Its first
    state."""
    _, actor = member(ports, org_id, actor_id)
    replies = scripted_replies or {}
    check_scripted(ports, given=bool(replies))
    unknown = sorted(set(replies) - {s.id for s in graph.steps})
    if unknown:
        raise ValueError(f"replies for steps the graph does not have: {unknown}")
    check_hold_timeout(hold_timeout_seconds)
    steps, handles = [], {}
    for step in graph.steps:
        agent = agent_named(ports, org_id, step.agent)
        if agent is None:
            raise NotFound(f"step {step.id!r}: no agent {step.agent!r} in this organization")
        steps.append(step.model_copy(update={"agent": agent.id}))
        handles[agent.id] = agent.handle
    gateway = _gateway(ports)
    for _ in steps:
        ingress.reserve_run(ports, actor)
    graph_input = GraphInput(
        graph_id=str(uuid.uuid4()),
        org_id=org_id,
        requested_by=actor_id,
        graph=graph.model_copy(update={"steps": tuple(steps)}),
        handles=handles,
        scripted_replies=replies,
        **({"hold_timeout_seconds": hold_timeout_seconds} if hold_timeout_seconds else {}),
    )
    await gateway.start(graph_input)
    return GraphState(graph_id=graph_input.graph_id, org_id=org_id, name=graph.name)


async def graph_view(ports: Ports, graph_id: str, actor_id: str) -> tuple[str, GraphState]:
    """The graph's workflow status and state, as ``actor_id`` may see it: a step whose run
    reaches projects the reader may not read shows its status, never its summary."""
    status, state = await _gateway(ports).state(graph_id)
    try:
        org, actor = member(ports, state.org_id, actor_id)
    except NotFound:
        raise NotFound(f"no work graph {graph_id}") from None
    allowed = readable(ports, org, actor)
    steps = []
    for step in state.steps:
        if not may_read(allowed, _step_reach(ports, state.org_id, step)):
            step = step.model_copy(
                update={
                    "summary": "",
                    "task": "",
                    "withheld": True,
                    "run_id": None,
                    "workflow_id": None,
                }
            )
        steps.append(step)
    return status, state.model_copy(update={"steps": tuple(steps)})


def _step_reach(ports: Ports, org_id: str, step: StepState) -> set[str]:
    """Where a step's words belong: its run's reach once it has a run; before (waiting,
    skipped, or failed before its run), its agent's current projects, where its run would
    reach."""
    if step.run_id is not None:
        return ports.runs.reach(step.run_id)
    agent = agent_named(ports, org_id, step.agent)
    if agent is None:
        return {UNPLACED}
    now = ports.clock()
    staffed = {s.project for s in ports.directory.staffing(org_id, agent.id) if s.active_at(now)}
    return staffed or {UNPLACED}


UNPLACED = "\u0000unplaced"
"""A reach no reader holds but the founder: a step whose agent works nowhere is theirs."""


async def wait_graph(ports: Ports, graph_id: str, actor_id: str) -> GraphState:
    """Wait for the graph to end; its final state as ``actor_id`` may see it."""
    await graph_view(ports, graph_id, actor_id)
    await _gateway(ports).result(graph_id)
    return (await graph_view(ports, graph_id, actor_id))[1]
