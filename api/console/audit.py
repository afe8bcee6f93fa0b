"""The audit page: the chain with its verification, filtered by actor, stage and rule,
and (for the founder) the memory read log."""

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
from usecases import audit, memory, organization
from usecases.context import Ports

router = APIRouter()


AUDIT_SHOWN = 200
"""The newest entries the audit page lists (filters narrow them; the API has them all)."""


@router.get("/audit", response_model=None)
async def audit_page(
    request: Request, actor: str = "", stage: str = "", rule: str = ""
) -> Response:
    """The chain with its verification, filtered by actor, stage and rule; the memory
    read log."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id = org_of(found)
        trail = await run_in_threadpool(audit.audit, ports, org_id, principal, verify=True)
        people = await run_in_threadpool(organization.principals, ports, org_id, principal)
        handles = {p.id: p.handle for p in people}
        founder = principal == ports.directory.org(org_id).founder_id
        filtering = actor or stage or rule
        entries = [
            e
            for e in trail.entries
            # a withheld entry shows only that it is there: no filter finds it by its kind
            if not (filtering and "withheld" in e.payload and len(e.payload) == 1)
            and (not actor or handles.get(e.actor, e.actor) == actor or e.actor == actor)
            and (not stage or e.stage == stage)
            and (not rule or e.rule == rule)
        ]
        reads = (
            (await run_in_threadpool(memory.reads, ports, org_id, principal))[-AUDIT_SHOWN:]
            if founder
            else []
        )
        return render(
            request,
            "audit.html",
            session=found,
            trail=trail,
            entries=entries[-AUDIT_SHOWN:][::-1],
            more=max(len(entries) - AUDIT_SHOWN, 0),
            handles=handles,
            reads=reads[::-1],
            founder=founder,
            filters={"actor": actor, "stage": stage, "rule": rule},
        )

    return await serve(request, page)
