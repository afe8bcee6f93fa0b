"""The firm's memory as the signed-in person may read it: a search (what they may see,
and how much is withheld from them), one record (whole, or with the identifying detail
they may not see masked) with where it came from and what it links to; and, for the
founder, keeping a document (screened first: a refusal or the detail removed and tagged
is said in words)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.console.forms import readable
from api.console.pages import (
    FORM_REFUSALS,
    flash_back,
    org_of,
    read_form,
    render,
    serve,
    status_of,
)
from api.console.session import Session
from api.http.schemas import MemoryBody
from domain.words import detail_words
from usecases import memory, organization
from usecases.context import Ports

router = APIRouter()

KINDS = ("note", "email", "contract", "invoice", "minutes", "report")
"""The kinds of document the form offers (the API takes any)."""


async def _search_page(
    request: Request,
    ports: Ports,
    principal: str,
    found: Session,
    code: int = 200,
    error: str = "",
    kept: dict[str, str] | None = None,
) -> Response:
    org_id = org_of(found)
    text = request.query_params.get("q", "")[:400]
    result = (
        await run_in_threadpool(memory.query, ports, org_id, principal, text, 20)
        if text.strip()
        else None
    )
    view = await run_in_threadpool(organization.workspace, ports, org_id, principal)
    return render(
        request,
        "memory.html",
        code,
        session=found,
        text=text,
        result=result,
        founder=principal == view.org.founder_id,
        projects=view.projects,
        kinds=KINDS,
        error=error,
        kept=kept or {},
    )


@router.get("/memory", response_model=None)
async def memory_page(request: Request) -> Response:
    """Search the firm's memory as you may read it."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        return await _search_page(request, ports, principal, found)

    return await serve(request, page)


@router.post("/memory", response_model=None)
async def keep(request: Request) -> Response:
    """Keep a document in memory (the founder's): screened first; the page says what
    was removed or tagged, or why it was refused, with the form as it was filled."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        try:
            body = MemoryBody(
                ref=fields.get("ref", ""),
                projects=[p.strip() for p in fields.get("projects", "").split(",") if p.strip()],
                text=fields.get("text", ""),
                kind=fields.get("kind") or "note",
                source=fields.get("source") or None,
            )
            done = await run_in_threadpool(
                memory.remember,
                ports,
                org_of(found),
                principal,
                memory.Remember(
                    body.ref, tuple(body.projects), body.text, kind=body.kind, source=body.source
                ),
            )
        except FORM_REFUSALS as refused:
            return await _search_page(
                request, ports, principal, found, status_of(refused), readable(refused), fields
            )
        said = f"Kept {done.ref}."
        if done.removed:
            said += f" Removed for good: {detail_words(done.removed)}."
        if done.tagged:
            said += (
                f" Tagged (masked for readers outside its projects): {detail_words(done.tagged)}."
            )
        # back to the search: the founder may stand where the record's memory is not
        # theirs to read (on both sides of a wall), so its own page may not open for them
        return flash_back(request, found, "/console/memory", said)

    return await serve(request, page, acting=True)


async def _record(ports: Ports, principal: str, found: Session, ref: str) -> dict[str, Any]:
    org_id = org_of(found)
    view = await run_in_threadpool(memory.get, ports, org_id, principal, ref)
    story = await run_in_threadpool(memory.explain, ports, org_id, principal, ref)
    links = await run_in_threadpool(memory.neighbours, ports, org_id, principal, ref)
    return {"record": view, "story": story, "links": links}


@router.get("/memory/{ref}", response_model=None)
async def record_page(request: Request, ref: str) -> Response:
    """One record as you may read it, where it came from, and what it links to; a record
    you may not read does not exist for you."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _record(ports, principal, found, ref)
        return render(request, "record.html", session=found, **shown)

    return await serve(request, page)
