"""The door's first checks on a request body, before any route sees it.

A body is at most :data:`MAX_BODY_BYTES` (a ``Content-Length`` that says more is refused
at once; a body that streams past it is cut off), is JSON (``Content-Type:
application/json``), is UTF-8, and nests at most :data:`MAX_DEPTH` deep. Each refusal
is a 4xx with a reason, so that no input reaches a parser that could fail with a 5xx or
spend unbounded time on it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

MAX_BODY_BYTES = 1 << 20
"""1 MiB: the largest request any route needs (a memory text is at most 20,000 characters)."""
MAX_DEPTH = 64
"""How deep JSON may nest: the API's bodies are two or three levels deep."""
_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})
FORM_PATHS = frozenset({"/v1/ingress/slack"})
"""Where a form body is accepted too: Slack sends slash commands form-encoded."""
FORM_PREFIXES = ("/console/",)
"""And the web console's pages, whose forms a browser sends form-encoded."""
FORM = "application/x-www-form-urlencoded"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _depth_problem(body: bytes) -> str | None:
    """Why ``body`` nests too deep, or None (strings are skipped, escapes honoured)."""
    depth = 0
    inside = escaped = False
    for byte in body:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return f"the JSON body nests deeper than {MAX_DEPTH} levels"
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return None


async def _answer(send: Send, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class BodyLimits:
    """ASGI middleware: the checks of this module's docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            await _answer(send, 413, f"the body is larger than {MAX_BODY_BYTES} bytes")
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > MAX_BODY_BYTES:
                await _answer(send, 413, f"the body is larger than {MAX_BODY_BYTES} bytes")
                return
            if not message.get("more_body", False):
                break
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        path = str(scope.get("path", ""))
        form = media == FORM and (path in FORM_PATHS or path.startswith(FORM_PREFIXES))
        if body and media != "application/json" and not form:
            await _answer(send, 415, "the body must be application/json")
            return
        try:
            bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            await _answer(send, 400, "the body is not UTF-8")
            return
        problem = None if form else _depth_problem(bytes(body))
        if problem is not None:
            await _answer(send, 400, problem)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)
