"""The runs' pages: the runs the signed-in person may read (how each came out, found by
words and filtered by outcome), starting one, and one run, which follows its workflow
live (server-sent events: the page's changing part, sent again whenever it changes)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.console.deliberation import EXAMPLE
from api.console.forms import readable
from api.console.pages import (
    ENDED,
    FINAL,
    FORM_REFUSALS,
    flash_back,
    live,
    org_of,
    read_form,
    render,
    serve,
    status_of,
)
from api.console.session import Session
from api.console.work_graph import template_json
from api.http.schemas import RunBody
from domain.organization.kinds import PrincipalKind
from domain.runs.outcome import RunOutcome, part_of
from usecases import organization, runs, runs_list
from usecases.context import Ports

router = APIRouter()

FILTERS = (
    RunOutcome.WAITING,
    RunOutcome.RUNNING,
    RunOutcome.DONE,
    RunOutcome.COMPLETED,
    RunOutcome.REFUSED,
    RunOutcome.DENIED,
    RunOutcome.EXPIRED,
    RunOutcome.FAILED,
    RunOutcome.CANCELLED,
)


async def _agents(ports: Ports, org_id: str, principal: str) -> list[dict[str, Any]]:
    """The agents a run may be given to, with their projects and, offline, the tasks the
    committed replies answer."""
    people = await run_in_threadpool(organization.principals, ports, org_id, principal)
    staffing = await run_in_threadpool(organization.staffing, ports, org_id, principal)
    return [
        {
            "id": p.id,
            "name": p.display_name or p.handle,
            "kind": p.agent_kind or "agent",
            "projects": sorted({s.project for s in staffing if s.principal_id == p.id}),
            "tasks": ports.answered_tasks.get(p.handle, ()),
        }
        for p in people
        if p.kind is PrincipalKind.AGENT
    ]


async def _list_page(
    request: Request,
    ports: Ports,
    principal: str,
    found: Session,
    code: int = 200,
    error: str = "",
    kept: dict[str, str] | None = None,
) -> Response:
    org_id = org_of(found)
    wanted = [o for o in FILTERS if o.value in request.query_params.getlist("outcome")]
    text = request.query_params.get("q", "")[:200]
    listed = await runs_list.listed_runs(ports, org_id, principal, outcomes=wanted, text=text)
    return render(
        request,
        "runs.html",
        code,
        session=found,
        runs=listed,
        filters=FILTERS,
        wanted=wanted,
        text=text,
        agents=await _agents(ports, org_id, principal),
        error=error,
        kept=kept or {},
        graph_json=template_json("diligence"),
        form_key=uuid.uuid4().hex,
        example_question=EXAMPLE if ports.scripted_replies else "",
    )


@router.get("/runs", response_model=None)
async def run_list_page(request: Request) -> Response:
    """The runs you may read, newest first, how each came out; and a form to start one."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        return await _list_page(request, ports, principal, found)

    return await serve(request, page)


@router.post("/runs", response_model=None)
async def start(request: Request) -> Response:
    """Start a run for the signed-in person; then its page, which follows it live."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        try:
            # the form's own key: a double click (or a resend) starts the run once
            body = RunBody(
                agent_id=fields.get("agent", ""),
                task=fields.get("task", "") or " ",
                client_key=f"console:{fields['key']}" if fields.get("key") else None,
            )
            started = await runs.start_run(
                ports,
                org_of(found),
                principal,
                runs.StartRun(agent_id=body.agent_id, task=body.task, client_key=body.client_key),
            )
        except FORM_REFUSALS as refused:
            # the list again, the form as it was filled, with what to change
            return await _list_page(
                request, ports, principal, found, status_of(refused), readable(refused), fields
            )
        return flash_back(
            request,
            found,
            f"/console/runs/{started.run_id}",
            "Started: this page follows the run as it goes.",
        )

    return await serve(request, page, acting=True)


async def _run_context(ports: Ports, principal: str, found: Session, run_id: str) -> dict[str, Any]:
    view = await runs.run_view(ports, run_id, principal)
    people = await run_in_threadpool(organization.principals, ports, org_of(found), principal)
    who = runs_list.names(people)
    record = ports.runs.get(run_id)
    return {
        "run": view,
        "outcome": runs_list.view_outcome(view),
        "agent": who.get(view.agent_id, view.agent_id),
        "asked": None if view.started_by is None else who.get(view.started_by, view.started_by),
        "started_at": None if record is None else record.created_at,
        "part_of": None if record is None else part_of(record.client_key),
        FINAL: view.workflow_status in ENDED,
    }


@router.get("/runs/{run_id}", response_model=None)
async def run_detail(request: Request, run_id: str) -> Response:
    """A run in the owner's words: who asked, what it read, what it proposed and what
    became of each, what it wrote; the engineering detail one click away."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _run_context(ports, principal, found, run_id)
        return render(request, "run.html", session=found, **shown)

    return await serve(request, page)


@router.get("/runs/{run_id}/live", response_model=None)
async def run_live(request: Request, run_id: str) -> Response:
    """The run page's changing part, as server-sent events (:func:`live`)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        await runs.run_view(ports, run_id, principal)  # a run they may not read: refused
        return live(request, "run_live.html", lambda: _run_context(ports, principal, found, run_id))

    return await serve(request, page)
