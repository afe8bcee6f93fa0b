"""The witness as an HTTP service: ``POST /add-checkpoint`` (C2SP tlog-witness), its
record kept in an append-only file it replays when it starts.

The check of a submission against the record and the record's update happen under one
lock, and the record is on disk (fsynced) before the cosignature is returned: the
protocol's race (a smaller checkpoint cosigned after a larger one) cannot happen, and a
witness that crashes never forgets what it cosigned.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from domain.audit.checkpoint import COSIGNATURE_V1, Signer
from domain.audit.tree import LogKeys
from domain.audit.witness import (
    SIZE_CONTENT_TYPE,
    Seen,
    WitnessRefusal,
    parse_submission,
    witness,
)

MAX_BODY = 64 * 1024
"""A submission is a checkpoint, a few signatures and at most 63 hashes: a few KB."""


class WitnessRecord:
    """The newest checkpoint cosigned per origin, kept in an append-only file of JSON
    lines (``{"origin", "size", "root", "at"}``): the last line of an origin is its
    record. A torn last line (a crash while writing) is ignored: its cosignature was
    never returned."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._seen: dict[str, Seen] = {}
        self.lock = threading.Lock()
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._seen[row["origin"]] = Seen(row["size"], base64.b64decode(row["root"]))
                except (ValueError, KeyError, TypeError):
                    continue

    def seen(self, origin: str) -> Seen | None:
        """The newest checkpoint cosigned for ``origin``."""
        return self._seen.get(origin)

    def record(self, origin: str, seen: Seen, at: int) -> None:
        """Append ``seen`` as ``origin``'s record, on disk before this returns."""
        self._path.parent.mkdir(parents=True, exist_ok=True)
        row = {
            "origin": origin,
            "size": seen.size,
            "root": base64.b64encode(seen.root).decode(),
            "at": at,
        }
        with self._path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self._seen[origin] = seen


def witness_app(signer: Signer, logs: Mapping[str, LogKeys], record: WitnessRecord) -> Starlette:
    """The witness's HTTP app."""

    async def add_checkpoint(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_BODY:
            return PlainTextResponse("the request is too large\n", status_code=413)
        try:
            submission = parse_submission(body)
            origin = submission.checkpoint.origin
            with record.lock:  # check and record as one step
                now = int(time.time())
                seen, line = witness(submission, logs, record.seen(origin), signer, now)
                record.record(origin, seen, now)
        except WitnessRefusal as refusal:
            media = SIZE_CONTENT_TYPE if refusal.status == 409 else "text/plain"
            return PlainTextResponse(refusal.body, status_code=refusal.status, media_type=media)
        return PlainTextResponse(line)

    async def key(request: Request) -> Response:
        return PlainTextResponse(signer.verifier(kind=COSIGNATURE_V1).vkey() + "\n")

    return Starlette(
        routes=[
            Route("/add-checkpoint", add_checkpoint, methods=["POST"]),
            Route("/key", key, methods=["GET"]),
        ]
    )
