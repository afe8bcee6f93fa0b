"""A held intent's page: why the broker stopped it, its record (who decided what,
when), what it would have done without enforcement, and, while it waits, the actions and
why an approval would be refused."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.console.pages import (
    org_of,
    render,
    serve,
)
from api.console.session import Session
from domain.audit.chain import AuditEntry
from domain.errors import Conflict, NotFound
from domain.governance.intents import Stage
from domain.governance.standing import requester_words
from domain.words import action, decision_words, done_words
from usecases import audit, counterfactual, needs_you, organization, runs
from usecases.context import Ports
from usecases.runs_list import names

router = APIRouter()


INTENT_PAGE = "/console/intents/"

_DECIDED = frozenset({"approved", "denied", "expired"})


class Step(BaseModel):
    """One entry of an intent's record, as its page shows it: when, who, what, why."""

    at: datetime
    who: str
    what: str
    rule: str
    reason: str
    asked: str = ""
    """What the person who decided wrote, when they wrote something."""


_BROKER_STAGES = frozenset(s.value for s in Stage) - {Stage.REVIEW, Stage.DISPATCH}


def who_did(entry: AuditEntry, handles: dict[str, str]) -> str:
    """Who made an entry, by name: the broker decides what an agent proposed (the entry
    names the agent), a connector writes, the run closes what no one decided."""
    if entry.stage in _BROKER_STAGES:
        return "the broker"
    if entry.actor.startswith("connector:"):
        return f"the {entry.actor.removeprefix('connector:')} connector"
    if entry.actor.startswith("system:"):
        return f"the {entry.actor.removeprefix('system:')}"
    return handles.get(entry.actor, entry.actor)


def _step(entry: AuditEntry, handles: dict[str, str]) -> Step:
    payload = entry.payload
    reason = payload.get("reason") or payload.get("problem") or payload.get("withheld") or ""
    asked = payload.get("request_reason") or ""
    return Step(
        at=datetime.fromisoformat(entry.at),
        who=who_did(entry, handles),
        what=decision_words(entry.decision),
        rule=entry.rule,
        reason=str(reason),
        asked=str(asked),
    )


async def intent_context(
    ports: Ports, principal: str, found: Session, intent_id: str
) -> dict[str, Any]:
    """What the held intent's page shows, before and after anyone decides it: the
    broker's decision and its record (who decided what, when), the counterfactual while
    enforcement is what stopped it, and (while it waits) the actions and the outlook."""
    org_id = org_of(found)
    # First: to whoever may not read it, it does not exist (NotFound).
    outlook = await run_in_threadpool(runs.approval_outlook, ports, intent_id, principal)
    recorded = ports.runs.intent(intent_id)
    if recorded is None:
        raise NotFound(f"no intent {intent_id}")
    intent, status, run_id = recorded
    try:
        cf = await run_in_threadpool(counterfactual.counterfactual, ports, intent_id, principal)
    except Conflict:
        cf = None  # approved or released: in the end enforcement let it through
    item = await run_in_threadpool(needs_you.held_item, ports, org_id, principal, intent_id)
    trail = await run_in_threadpool(audit.intent_trail, ports, org_id, principal, intent_id)
    people = await run_in_threadpool(organization.principals, ports, org_id, principal)
    handles = names(people)  # people and agents by name
    story = [_step(e, handles) for e in trail]
    decided = next((s for s in reversed(story) if s.what in _DECIDED), None)
    asker = runs.asker_of(ports, intent.requested_by, run_id)
    # the hold that was answered: the newest before the decision (a re-hold replaces the
    # first), else the newest of all
    before = story[: story.index(decided)] if decided is not None else story
    held = next((s for s in reversed(before) if s.what == "held"), None)
    return {
        "cf": cf,
        "item": item,
        "outlook": outlook if item is not None else None,
        "intent": intent,
        "status": status,
        "run_id": run_id,
        "story": story,
        "held": held,
        "decided": decided,
        "written": any(s.what == "written" for s in story),
        "proposer": handles.get(intent.principal_id, intent.principal_id),
        "headline": action(intent.tool, intent.payload, intent.cost_cents),
        "done_word": done_words(intent.tool),
        "requester": None if asker is None else requester_words(asker, handles),
    }


@router.get("/intents/{intent_id}", response_model=None)
async def held_intent(request: Request, intent_id: str) -> Response:
    """Why the broker stopped it, what would release it, what it would have done without
    enforcement, and (for whoever may not approve it) why an approval would be refused;
    once decided, what was decided, by whom and when (never a refusal page)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await intent_context(ports, principal, found, intent_id)
        return render(request, "intent.html", session=found, error="", kept={}, **shown)

    return await serve(request, page)
