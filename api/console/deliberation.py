"""A deliberation's page: the question's personas (their rounds and how each turn
ended), what each claimed and cited and what the gate said of it, and the synthesising
run, following it live. Only a reader of its run reads it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.console.pages import live, render, serve
from api.console.session import Session
from domain.deliberation.state import QUESTION_PREFIX
from usecases import deliberation
from usecases.context import Ports

router = APIRouter()


async def _context(ports: Ports, principal: str, deliberation_id: str) -> dict[str, Any]:
    status, state = await deliberation.deliberation_view(ports, deliberation_id, principal)
    run = None if state.run_id is None else ports.runs.get(state.run_id)
    question = "" if run is None else run.task.removeprefix(QUESTION_PREFIX)
    return {"d": state, "workflow_status": status, "question": question}


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
