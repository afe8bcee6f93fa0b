"""A deliberation's page: the question's personas (their rounds and how each turn
ended), what each claimed and cited and what the gate said of it, and the synthesising
run, following it live. Only a reader of its run reads it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.console.pages import ENDED, FINAL, flash_back, live, org_of, read_form, render, serve
from api.console.session import Session
from api.local.demo_script import DELIBERATION_REPLIES, QUESTION
from domain.deliberation.state import QUESTION_PREFIX
from usecases import deliberation
from usecases.context import Ports

router = APIRouter()

EXAMPLE = QUESTION
"""The question the console offers as an example: where no model answers (offline), the
personas' committed replies answer it, and only it."""


@router.post("/deliberations", response_model=None)
async def start(request: Request) -> Response:
    """Ask an agent's personas a question; then the deliberation's page."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        question = " ".join(fields.get("question", "").split())
        if not question:
            raise ValueError("a deliberation needs a question")
        offline = ports.scripted_replies and question == EXAMPLE
        started = await deliberation.start_deliberation(
            ports,
            org_of(found),
            principal,
            deliberation.StartDeliberation(
                fields.get("agent", ""),
                question,
                scripted_replies=dict(DELIBERATION_REPLIES) if offline else None,
            ),
        )
        return flash_back(
            request,
            found,
            f"/console/deliberations/{started.deliberation_id}",
            "Asked: this page follows the personas as they answer.",
        )

    return await serve(request, page, acting=True)


async def _context(ports: Ports, principal: str, deliberation_id: str) -> dict[str, Any]:
    status, state = await deliberation.deliberation_view(ports, deliberation_id, principal)
    run = None if state.run_id is None else ports.runs.get(state.run_id)
    question = "" if run is None else run.task.removeprefix(QUESTION_PREFIX)
    return {"d": state, "workflow_status": status, "question": question, FINAL: status in ENDED}


@router.get("/deliberations/{deliberation_id}", response_model=None)
async def deliberation_page(request: Request, deliberation_id: str) -> Response:
    """The deliberation, following it as it goes."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _context(ports, principal, deliberation_id)
        return render(request, "deliberation.html", session=found, **shown)

    return await serve(request, page)


@router.get("/deliberations/{deliberation_id}/live", response_model=None)
async def deliberation_live(request: Request, deliberation_id: str) -> Response:
    """The deliberation page's changing part, as server-sent events."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        await deliberation.deliberation_view(ports, deliberation_id, principal)
        return live(
            request,
            "deliberation_live.html",
            lambda: _context(ports, principal, deliberation_id),
        )

    return await serve(request, page)
