"""A work graph's page: its steps drawn as a graph (SVG from the server, a box per step
coloured by its state, an arrow to each step that waits for it), each step's agent, task
and run, following the graph live; a step beyond the reader's projects shows its state
only."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from api.console.forms import readable
from api.console.pages import ENDED, FINAL, flash_back, live, org_of, read_form, render, serve
from api.console.session import Session
from api.local.demo_script import CHECKLIST, CHECKLIST_REPLIES
from domain.work_graph.graph import WorkGraph
from domain.work_graph.layout import BOX_H, BOX_W, draw
from usecases import work_graph
from usecases.context import Ports

router = APIRouter()

TEMPLATES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "diligence": (CHECKLIST, CHECKLIST_REPLIES),
}
"""The work graphs the console offers to start, by key: the graph, and the replies its
steps give where no model answers (offline; honoured only there)."""


def template_json(key: str) -> str:
    """A template's graph as the form shows it (edited there before starting)."""
    return json.dumps(TEMPLATES[key][0], indent=2)


@router.post("/graphs", response_model=None)
async def start(request: Request) -> Response:
    """Start a work graph from a template (its steps as the form sent them); then its
    page. Offline, the template's own replies answer the steps it kept unchanged."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        try:
            graph = WorkGraph.model_validate_json(fields.get("graph", ""))
        except ValidationError as refused:
            raise ValueError(f"the graph's steps: {readable(refused)}") from None
        template, replies = TEMPLATES.get(fields.get("template", ""), ({}, {}))
        as_shipped = {s.id: s for s in WorkGraph.model_validate(template).steps} if template else {}
        # a reply answers only the step it was written for: same agent, task and order
        kept = {
            s.id: replies[s.id]
            for s in graph.steps
            if s.id in replies and as_shipped.get(s.id) == s
        }
        started = await work_graph.start_graph(
            ports,
            org_of(found),
            principal,
            graph,
            scripted_replies=kept if ports.scripted_replies else None,
        )
        return flash_back(
            request,
            found,
            f"/console/graphs/{started.graph_id}",
            f"Started {graph.name}: this page follows its steps.",
        )

    return await serve(request, page, acting=True)


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
        FINAL: status in ENDED,
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
