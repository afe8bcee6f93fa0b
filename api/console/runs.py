"""The runs' pages: the runs the signed-in person may read, and one run."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.console.pages import (
    org_of,
    render,
    serve,
)
from api.console.session import Session
from usecases import organization, runs
from usecases.context import Ports

router = APIRouter()


@router.get("/runs", response_model=None)
async def run_list(request: Request) -> Response:
    """The runs you may read, newest first."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id = org_of(found)
        people = await run_in_threadpool(organization.principals, ports, org_id, principal)
        handles = {p.id: p.handle for p in people}
        listed = await run_in_threadpool(runs.recent_runs, ports, org_id, principal)
        return render(request, "runs.html", session=found, runs=listed, handles=handles)

    return await serve(request, page)


@router.get("/runs/{run_id}", response_model=None)
async def run_detail(request: Request, run_id: str) -> Response:
    """A run: node states, decisions, the memory released to it, the Temporal UI link."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        view = await runs.run_view(ports, run_id, principal)
        people = await run_in_threadpool(organization.principals, ports, org_of(found), principal)
        handles = {p.id: p.handle for p in people}
        asked = None if view.started_by is None else handles.get(view.started_by, view.started_by)
        return render(request, "run.html", session=found, run=view, asked=asked)

    return await serve(request, page)
