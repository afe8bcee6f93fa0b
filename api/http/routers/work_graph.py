"""Work graphs: several agent runs in dependency order, each step a run of its own."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.http.deps import Actor, PortsDep
from api.http.schemas import HOLD_TIMEOUT, Body, Viewed
from domain.work_graph.graph import GraphState, WorkGraph, graph_workflow_id
from usecases import work_graph

router = APIRouter(tags=["work graphs"])


class GraphBody(Body):
    """A work graph to run for the caller."""

    graph: WorkGraph
    scripted_replies: dict[str, str] = Field(default_factory=dict, max_length=20)
    """Step id → the model's reply (only where no real model answers)."""
    hold_timeout_seconds: int | None = HOLD_TIMEOUT


class GraphView(Viewed):
    state: GraphState


@router.post("/orgs/{org_id}/graphs", status_code=201)
async def start_graph(org_id: str, body: GraphBody, ports: PortsDep, actor: Actor) -> GraphState:
    """Start a work graph: its steps run as agent runs, each governed by the broker."""
    return await work_graph.start_graph(
        ports, org_id, actor, body.graph, body.scripted_replies, body.hold_timeout_seconds
    )


@router.get("/graphs/{graph_id}")
async def graph(graph_id: str, ports: PortsDep, actor: Actor) -> GraphView:
    """The graph's steps; a step whose run the caller may not read shows no summary."""
    status, state = await work_graph.graph_view(ports, graph_id, actor)
    ui_url = ports.gateway.ui_url(graph_workflow_id(graph_id))
    return GraphView(workflow_status=status, ui_url=ui_url, state=state)
