"""Chat channels: a Slack or Teams message to Verletica starts one agent run, once the
front door has checked its signature, sender, nonce and budget."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.console import session as cookies
from api.http.deps import PortsDep
from domain.organization.kinds import IdentityKind
from usecases import channels

router = APIRouter(tags=["channels"])

_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-www-form-urlencoded": {"schema": {"type": "object"}},
        },
    }
}


LINK_PAGE = "/console/link/"
"""Where a chat account's owner links it (the token follows)."""


async def _receive(request: Request, ports: PortsDep, channel: IdentityKind) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in request.headers.items()}
    answer = await channels.receive(ports, channel, headers, await request.body(), request.url.path)
    if answer.unlinked is not None:
        if ports.console is None:
            text = (
                f"Your {channel.value.capitalize()} account is not linked to anyone at your "
                "firm, and sign-in is not set up here: ask whoever runs Verletica for you."
            )
        else:
            token = cookies.chat_link(ports.console.session_key, channel.value, answer.unlinked)
            link = f"{str(request.base_url).rstrip('/')}{LINK_PAGE}{token}"
            text = f"{answer.text}\n{link}"
        answer = answer.model_copy(update={"text": text, "unlinked": None})
    return answer.model_dump(exclude_none=True)


@router.post("/ingress/slack", openapi_extra=_BODY)
async def slack(request: Request, ports: PortsDep) -> JSONResponse:
    """A Slack slash command or Events API callback (signed with the app's signing
    secret); the message reads ``<agent> <task>``."""
    answer = await _receive(request, ports, IdentityKind.SLACK)
    if "challenge" in answer:
        return JSONResponse({"challenge": answer["challenge"]})
    return JSONResponse({"response_type": "ephemeral", **answer})


@router.post("/ingress/teams", openapi_extra=_BODY)
async def teams(request: Request, ports: PortsDep) -> JSONResponse:
    """A Teams outgoing webhook (``Authorization: HMAC``); the message reads
    ``@Verletica <agent> <task>``."""
    answer = await _receive(request, ports, IdentityKind.TEAMS)
    return JSONResponse({"type": "message", **answer})
