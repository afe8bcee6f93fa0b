"""What you decided: every approval and denial you gave, with what became of it (paid
once, nothing sent, refused by the broker); and the dismissal of the confirmations the
queue keeps showing until you say you have seen them."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api.console import session as cookies
from api.console.pages import org_of, read_form, render, serve
from api.console.session import Session
from usecases.context import Ports
from usecases.needs_you import decided

router = APIRouter()


@router.get("/decided", response_model=None)
async def decided_page(request: Request) -> Response:
    """Your decisions, newest first."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        lines = await run_in_threadpool(decided.decided_by, ports, org_of(found), principal)
        return render(request, "decided.html", session=found, lines=lines)

    return await serve(request, page)


@router.post("/decided/seen", response_model=None)
async def seen(request: Request) -> Response:
    """Dismiss the confirmations shown so far (those of later decisions still show)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        upto = fields.get("upto", "")
        if not (upto.isascii() and upto.isdigit()):
            raise ValueError("upto must be a chain position")
        response = RedirectResponse("/console/queue", status_code=303)
        cookies.mark_seen(response, request, found, int(upto))
        return response

    return await serve(request, page)
