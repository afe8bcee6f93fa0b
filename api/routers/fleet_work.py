"""Work that spans several agent runs: work graphs (steps in dependency order) and
deliberations (personas arguing a question through a quality gate, then a synthesis)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Actor, PortsDep
from api.schemas import Body
from domain.deliberation import DeliberationPlan, DeliberationState, deliberation_workflow_id
from domain.runs import MAX_HOLD_SECONDS, MIN_HOLD_SECONDS
from domain.workgraph import GraphState, WorkGraph, graph_workflow_id
from usecases import deliberations, graphs

router = APIRouter(tags=["fleet work"])

_HOLD = Field(default=None, ge=MIN_HOLD_SECONDS, le=MAX_HOLD_SECONDS)


class GraphBody(Body):
    """A work graph to run for the caller."""

    graph: WorkGraph
    scripted_replies: dict[str, str] = Field(default_factory=dict, max_length=20)
    """Step id → the model's reply (only where no real model answers)."""
    hold_timeout_seconds: int | None = _HOLD


class DeliberationBody(Body):
    """A question for personas to argue, and the agent that synthesises."""

    agent: str = Field(min_length=1, max_length=200)
    """The agent's handle or id: its memory gate releases the context, its run acts."""
    question: str = Field(min_length=1, max_length=4000)
    plan: DeliberationPlan | None = None
    """The personas, in order (default: analyst, skeptic, counsel)."""
    scripted_replies: dict[str, tuple[str, ...]] = Field(default_factory=dict, max_length=7)
    hold_timeout_seconds: int | None = _HOLD


class Viewed(BaseModel):
    """A workflow's status and the state the reader may see."""

    workflow_status: str
    ui_url: str
    """Where the workflow shows in the Temporal UI."""


class GraphView(Viewed):
    state: GraphState


class DeliberationView(Viewed):
    state: DeliberationState


@router.post("/v1/orgs/{org_id}/graphs", status_code=201)
async def start_graph(org_id: str, body: GraphBody, ports: PortsDep, actor: Actor) -> GraphState:
    """Start a work graph: its steps run as agent runs, each governed by the broker."""
    return await graphs.start_graph(
        ports, org_id, actor, body.graph, body.scripted_replies, body.hold_timeout_seconds
    )


@router.get("/v1/graphs/{graph_id}")
async def graph(graph_id: str, ports: PortsDep, actor: Actor) -> GraphView:
    """The graph's steps; a step whose run the caller may not read shows no summary."""
    status, state = await graphs.graph_view(ports, graph_id, actor)
    ui_url = ports.gateway.ui_url(graph_workflow_id(graph_id))
    return GraphView(workflow_status=status, ui_url=ui_url, state=state)


@router.post("/v1/orgs/{org_id}/deliberations", status_code=201)
async def start_deliberation(
    org_id: str, body: DeliberationBody, ports: PortsDep, actor: Actor
) -> DeliberationState:
    """Start a deliberation; its synthesis's actions go through the broker."""
    return await deliberations.start_deliberation(
        ports,
        org_id,
        actor,
        body.agent,
        body.question,
        body.plan,
        body.scripted_replies,
        body.hold_timeout_seconds,
    )


@router.get("/v1/deliberations/{deliberation_id}")
async def deliberation(deliberation_id: str, ports: PortsDep, actor: Actor) -> DeliberationView:
    """Each persona's turn, the provenance, and the synthesis's run."""
    status, state = await deliberations.deliberation_view(ports, deliberation_id, actor)
    ui_url = ports.gateway.ui_url(deliberation_workflow_id(deliberation_id))
    return DeliberationView(workflow_status=status, ui_url=ui_url, state=state)
