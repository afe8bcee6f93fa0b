"""The agents page: the firm's agents, what each is for and may spend, where it works and
what it is doing now."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.console.pages import org_of, render, serve
from api.console.session import Session
from usecases import fleet_roster
from usecases.context import Ports

router = APIRouter()


@router.get("/agents", response_model=None)
async def agents_page(request: Request) -> Response:
    """Each agent as its owner meets it; its runs only as far as the reader may read."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        cards = await fleet_roster.agents_page(ports, org_of(found), principal)
        return render(request, "agents.html", session=found, agents=cards)

    return await serve(request, page)
