"""A work graph's page: its steps drawn as a graph (SVG from the server, a box per step
coloured by its state, an arrow to each step that waits for it), each step's agent, task
and run, following the graph live; a step beyond the reader's projects shows its state
only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.console.pages import live, render, serve
from api.console.session import Session
from domain.work_graph.layout import BOX_H, BOX_W, draw
from usecases import work_graph
from usecases.context import Ports

router = APIRouter()


async def _graph_context(ports: Ports, principal: str, graph_id: str) -> dict[str, Any]:
    status, state = await work_graph.graph_view(ports, graph_id, principal)
    drawing = draw([(s.id, s.after) for s in state.steps])
    people = ports.directory.principals(state.org_id)
    by_handle = {p.handle: p.display_name or p.handle for p in people}
    return {
        "graph": state,
        "agent_names": by_handle,
        "workflow_status": status,
        "drawing": drawing,
        "at": {b.id: b for b in drawing.boxes},
        "box_w": BOX_W,
        "box_h": BOX_H,
    }


@router.get("/graphs/{graph_id}", response_model=None)
async def graph_page(request: Request, graph_id: str) -> Response:
    """The graph, drawn, following its steps as they go."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _graph_context(ports, principal, graph_id)
        return render(request, "graph.html", session=found, **shown)

    return await serve(request, page)


@router.get("/graphs/{graph_id}/live", response_model=None)
async def graph_live(request: Request, graph_id: str) -> Response:
    """The graph page's changing part, as server-sent events."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        await work_graph.graph_view(ports, graph_id, principal)  # refused first if unreadable
        return live(request, "graph_live.html", lambda: _graph_context(ports, principal, graph_id))

    return await serve(request, page)
