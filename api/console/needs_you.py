"""The needs-you queue's pages: the queue a page at a time, the one form every action
on its items is sent with, and the autonomy metrics."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.console import session as cookies
from api.console.actions import ACT_FIELDS, ActRequest, act
from api.console.forms import readable
from api.console.governance import INTENT_PAGE, intent_context
from api.console.pages import (
    FORM_REFUSALS,
    flash_back,
    org_of,
    read_form,
    render,
    safe_back,
    serve,
    status_of,
)
from api.console.session import Session
from domain.needs_you.items import QueueItem
from usecases import needs_you
from usecases.context import Ports
from usecases.needs_you import decided

router = APIRouter()


QUEUE_PAGE = 50
"""Items on one page of the queue (the most urgent first; the rest a page away)."""


def _start(value: str | None) -> int:
    """Where a page of the queue starts (a form's ``start``): a number, or a refusal
    before anything is done."""
    try:
        return max(int(value or 0), 0)
    except ValueError:
        raise ValueError("start must be a number") from None


def _queue_page(view: needs_you.NeedsYou, start: int, item: str | None = None) -> dict[str, Any]:
    """One page of the queue, and where the others start; with ``item`` (a notice's link),
    the page that holds it, the item marked (or a word that it no longer waits)."""
    keys = [i.key if isinstance(i, QueueItem) else None for i in view.items]
    if item is not None and item in keys:
        start = keys.index(item) // QUEUE_PAGE * QUEUE_PAGE
    start = max(0, min(start, max(len(view.items) - 1, 0)))
    shown = view.items[start : start + QUEUE_PAGE]
    return {
        "queue": view,
        "shown": shown,
        "start": start,
        "before": max(start - QUEUE_PAGE, 0) if start else None,
        "after": start + QUEUE_PAGE if start + QUEUE_PAGE < len(view.items) else None,
        "focus": item if item in keys else None,
        "gone": item is not None and item not in keys,
    }


@router.get("/queue", response_model=None)
async def queue(
    request: Request, partial: bool = False, start: int = 0, item: str | None = None
) -> Response:
    """What waits for a human, most urgent first, a page at a time; ``partial`` is the
    list alone (the page fetches it every few seconds, so an item decided elsewhere
    leaves); ``item`` opens the page at one item (the link a notice carries)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        view = await run_in_threadpool(needs_you.needs_you, ports, org_of(found), principal)
        if partial:
            return render(
                request,
                "queue_items.html",
                session=found,
                kept={},
                **_queue_page(view, start, item),
            )
        return render(
            request,
            "queue.html",
            session=found,
            kept={},
            confirmations=await _confirmations(request, ports, principal, found),
            **_queue_page(view, start, item),
        )

    return await serve(request, page)


async def _confirmations(
    request: Request, ports: Ports, principal: str, found: Session
) -> list[decided.DecidedLine]:
    """The person's decisions they have not dismissed yet (the newest few)."""
    seen = cookies.seen_up_to(request, found)
    lines = await run_in_threadpool(decided.decided_by, ports, org_of(found), principal, 10)
    return [line for line in lines if line.seq > seen]


KEPT_FIELDS = ("item", "action", "subject", "reason", "answer", "name")
"""What a refused action's form is shown again with (nothing the page does not ask for)."""


@router.post("/act", response_model=None)
async def act_on(request: Request) -> Response:
    """One action on one item; the refreshed list (script) or the page it came from (no
    script). A refused action answers on that page, its form as it was sent, with why."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        # a page, not a query: nothing the form carries reaches the page it goes back to
        back = safe_back(urlsplit(fields.get("back", "")).path or "/console/queue")
        fetched = request.headers.get("x-console") == "fetch"
        try:
            start = _start(fields.get("start"))
            ask = ActRequest.model_validate({k: v for k, v in fields.items() if k in ACT_FIELDS})
            done = await act(ports, principal, ask)
        except FORM_REFUSALS as refused:
            status, error = status_of(refused), readable(refused)
            kept = {k: fields.get(k, "") for k in KEPT_FIELDS}
            if fetched:  # the page keeps its form as typed and shows why, in red
                return render(
                    request, "refused.html", status, session=found, refusal=error, status=status
                )
            if back.startswith(INTENT_PAGE):
                shown = await intent_context(ports, principal, found, back[len(INTENT_PAGE) :])
                return render(
                    request, "intent.html", status, session=found, error=error, kept=kept, **shown
                )
            view = await run_in_threadpool(needs_you.needs_you, ports, org_of(found), principal)
            return render(
                request,
                "queue.html",
                status,
                session=found,
                error=error,
                kept=kept,
                **_queue_page(view, 0),
            )
        if fetched:
            view = await run_in_threadpool(needs_you.needs_you, ports, org_of(found), principal)
            return render(
                request,
                "queue_items.html",
                session=found,
                done=done,
                kept={},
                **_queue_page(view, start),
            )
        return flash_back(request, found, back, done)

    return await serve(request, page, acting=True)


@router.get("/metrics", response_model=None)
async def metrics_page(request: Request) -> Response:
    """The autonomy metrics, as bars."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        numbers = await run_in_threadpool(needs_you.metrics, ports, org_of(found), principal)
        return render(request, "metrics.html", session=found, m=numbers)

    return await serve(request, page)
