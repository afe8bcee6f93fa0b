"""The audit page: the chain with its verification, filtered by actor, stage and rule,
and (for the founder) the memory read log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.console.governance import who_did
from api.console.pages import (
    org_of,
    render,
    serve,
)
from api.console.session import Session
from domain.audit.chain import AuditEntry
from domain.words import action, decision_words
from usecases import audit, memory, organization
from usecases.context import Ports
from usecases.runs_list import names

router = APIRouter()


AUDIT_SHOWN = 200
"""The newest entries the audit page lists (filters narrow them; the API has them all)."""


class Line(BaseModel):
    """One entry as the page says it: when, who, what happened and why, in words; its
    stage, rule and hash for the curious."""

    seq: int
    at: datetime
    who: str
    what: str
    about: str
    """The action it concerns (``A payment of $2,500.00 to Northwind``), when it concerns one."""
    why: str
    stage: str
    rule: str
    entry_hash: str
    withheld: bool


def _lines(entries: list[AuditEntry], handles: dict[str, str], shown: int) -> list[Line]:
    """The newest ``shown`` entries in words, newest first; an intent's later entries
    name its action as its first did (read from the whole trail, put in words only for
    the entries shown)."""
    proposed: dict[str, dict[str, Any]] = {}
    for e in entries:
        intent = e.payload.get("intent")
        if e.intent_id and isinstance(intent, dict):
            proposed.setdefault(e.intent_id, intent)
    lines = []
    for e in reversed(entries[-shown:] if shown else []):
        intent = proposed.get(e.intent_id or "")
        about = ""
        if intent is not None:
            payload, cost = intent.get("payload"), intent.get("cost_cents")
            said = action(
                str(intent.get("tool", "")),
                payload if isinstance(payload, dict) else {},
                cost if isinstance(cost, int) else 0,
            )
            about = said[:1].lower() + said[1:]  # "held a payment of …"
        withheld = "withheld" in e.payload and len(e.payload) == 1
        why = e.payload.get("reason") or e.payload.get("problem") or ""
        record = e.payload.get("record")
        named = (
            next((str(record[k]) for k in ("title", "name", "display_name") if record.get(k)), "")
            if isinstance(record, dict)
            else ""
        )
        lines.append(
            Line(
                seq=e.seq,
                at=datetime.fromisoformat(e.at),
                who=who_did(e, handles),
                # a change of the firm's configuration says what changed
                what=e.rule.replace("_", " ")
                if e.stage == "configuration"
                else decision_words(e.decision),
                about=about or named,
                why="it concerns projects outside yours" if withheld else str(why),
                stage=e.stage,
                rule=e.rule,
                entry_hash=e.entry_hash,
                withheld=withheld,
            )
        )
    return lines


@router.get("/audit", response_model=None)
async def audit_page(
    request: Request, actor: str = "", stage: str = "", rule: str = ""
) -> Response:
    """The chain with its verification, filtered by actor, stage and rule; the memory
    read log."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id = org_of(found)
        anchored = await audit.anchored(ports, org_id, principal)
        trail = await run_in_threadpool(
            lambda: audit.audit(ports, org_id, principal, verify=True, anchored=anchored)
        )
        people = await run_in_threadpool(organization.principals, ports, org_id, principal)
        handles = {p.id: p.handle for p in people}
        said = names(people)  # people and agents by name
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
            entries=_lines(entries, said, AUDIT_SHOWN),
            more=max(len(entries) - AUDIT_SHOWN, 0),
            handles=handles,
            reads=reads[::-1],
            founder=founder,
            filters={"actor": actor, "stage": stage, "rule": rule},
        )

    return await serve(request, page)
