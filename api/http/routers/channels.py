"""Chat channels: a Slack or Teams message to Verletica starts one agent run, once the
front door has checked its signature, sender, nonce and budget."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

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


async def _receive(request: Request, ports: PortsDep, channel: IdentityKind) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in request.headers.items()}
    answer = await channels.receive(ports, channel, headers, await request.body(), request.url.path)
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
