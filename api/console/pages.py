"""What every console page shares: the templates, the page around each view (the
session read, its ID token proven again, a refusal shown as a page), the form checked for
its CSRF token and origin, and the flash that says once what was just done.

Each page is a thin view over a use case, read as the signed-in person may read it; each
form is checked for its CSRF token and goes through the front door as an acting API
request does (the token proven again, the budgets charged)."""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from api.console import session as cookies
from api.console.forms import SLUG_INPUT, SLUG_LIST_INPUT, readable
from api.console.session import Session
from api.http.deps import prove
from api.refusals import REFUSALS, answer_to
from domain.errors import Forbidden, NotFound, Unavailable
from domain.governance.intents import Intent
from domain.ingress import ConsoleSignIn, Refusal, Unauthenticated
from domain.needs_you.items import ActionKind
from domain.runs.failures import classify
from domain.runs.run import CANCELLED_ERROR, RunState
from domain.words import (
    ENGINEERING,
    absolute,
    action,
    ago,
    constraint_words,
    day,
    document_words,
    done_words,
    evidence_words,
    failure_reason,
    item_words,
    moment,
    money,
    projects_named,
    standing_words,
    status_words,
    tool_words,
)
from usecases.context import Ports
from usecases.runs import IntentRecord

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
templates.env.globals["ActionKind"] = ActionKind
templates.env.globals["SLUG_INPUT"] = SLUG_INPUT
templates.env.filters["money"] = money
templates.env.filters["item_words"] = item_words
templates.env.filters["status_words"] = status_words
templates.env.filters["standing"] = standing_words
templates.env.filters["evidence_words"] = evidence_words
templates.env.filters["constraint_words"] = constraint_words
templates.env.globals["rejection_words"] = lambda r: failure_reason(
    classify(r.rule), r.reason, r.rule, "parser"
)


def stopped_words(state: RunState) -> str:
    """Why a run stopped, as its owner reads it: by the class of the error that ended it
    (the error's own message is the engineering detail, unless it is the broker's or a
    refusal already in words)."""
    if state.error == CANCELLED_ERROR:
        return failure_reason("infrastructure", state.error, "run_cancelled")
    if not state.error_type:  # a run that ended before its state kept the error's type
        return "something stopped it before it finished"
    # A refusal at the start reads "rule_id: reason": the reason alone is the owner's.
    said = re.sub(r"^[a-z_]+: ", "", state.error or "")
    return failure_reason(classify("run_failed", state.error_type), said, "run_failed")


templates.env.globals["stopped_words"] = stopped_words
templates.env.filters["document_words"] = document_words
templates.env.globals["ENGINEERING"] = ENGINEERING


def when(at: datetime | None) -> Markup:
    """An instant as a person reads it (``5 minutes ago``), the full time on hover and
    for machines."""
    if at is None:
        return Markup("")
    return Markup('<time datetime="{}" title="{}">{}</time>').format(
        at.astimezone(UTC).isoformat(timespec="seconds"), absolute(at), ago(at, datetime.now(UTC))
    )


templates.env.filters["when"] = when
templates.env.filters["day"] = day
templates.env.filters["moment"] = moment


def intent_words(intent: Intent) -> str:
    """An intent as the line an owner reads (``A payment of $2,000.00 to Northwind``)."""
    return action(intent.tool, intent.payload, intent.cost_cents)


_STATUS_WORDS = {
    "allow": "Allowed",
    "approved": "Approved",
    "hold": "Waits for you",
    "reject": "Refused",
    "denied": "Denied",
    "expired": "Expired",
}


def intent_said(record: IntentRecord, state: RunState | None = None) -> str:
    """What became of an intent, in a word or two: ``Paid`` once its write happened,
    else its latest outcome (``Waits for you``, ``Refused``…)."""
    if state is not None and record.status in ("allow", "approved"):
        for view in state.intents:
            if view.intent.id == record.intent.id and view.dispatch is not None:
                return done_words(record.intent.tool).capitalize()
    return _STATUS_WORDS.get(record.status, record.status)


templates.env.globals["words"] = intent_words
templates.env.globals["said"] = intent_said
templates.env.globals["tool_words"] = tool_words
templates.env.globals["SLUG_LIST_INPUT"] = SLUG_LIST_INPUT

Page = Callable[[Ports, str, Session], Awaitable[Response]]

_NOT_SIGNED_OUT = frozenset({Refusal.OVER_BUDGET, Refusal.KEY_SET_UNAVAILABLE, Refusal.REPLAYED})
"""Refusals that say nothing against the person's sign-in: a spent budget, the issuer's
key set out of reach, a nonce seen twice. The rest end the session."""


def ports_of(request: Request) -> Ports:
    """The ports the app was built with."""
    return request.app.state.ports  # type: ignore[no-any-return]


def config_of(ports: Ports) -> ConsoleSignIn:
    """How the console signs people in; Unavailable without an identity provider."""
    if ports.console is None:
        raise Unavailable(
            "the console needs an identity provider: VERLETICA_OIDC_ISSUER, _AUDIENCE and "
            "_JWKS (or `verletica up`, whose local issuer it uses)"
        )
    return ports.console


NO_FLASH = frozenset({"queue_items.html", "refused.html"})
"""Templates that never show the flash: the queue's list (fetched every few seconds, it
would take the flash meant for the page being loaded) and a refusal (told in red alone)."""


def render(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
    """A page, with what every page shows (who is signed in, the CSRF token) and the
    green banner: only what the server's own flash says (signed, bound to this session,
    shown once), never text a link carries."""
    shown: str | None = None
    console = ports_of(request).console
    if name not in NO_FLASH and console is not None:
        shown = cookies.take_flash(request, console.session_key, context.get("session"))
    response = templates.TemplateResponse(
        request,
        name,
        {
            "project_names": _project_names(request, context),
            **context,
            "notice": shown or "",
            "me": _me(request, context),
        },
        status_code=code,
    )
    if shown is not None:
        cookies.clear_flash(response)
    return response


def _project_names(request: Request, context: dict[str, Any]) -> dict[str, str]:
    """The firm's projects by slug, for pages that name them (the owner reads names)."""
    found = context.get("session")
    if not isinstance(found, Session) or found.org_id is None:
        return {}
    return {p.slug: p.name for p in ports_of(request).directory.projects(found.org_id)}


@pass_context
def projects(ctx: Any, slugs: Iterable[str] | str) -> str:
    """Projects by name, as the broker's sentences say them (:func:`projects_named`:
    ``Atlas and Birch``; a name two projects share with its key; a slug the firm no
    longer has, as it is); "" for none, so that a template may say what none means."""
    names: dict[str, str] = ctx.get("project_names") or {}
    listed = [slugs] if isinstance(slugs, str) else [s for s in slugs if s]
    return projects_named(listed, names) if listed else ""


templates.env.filters["projects"] = projects


def _me(request: Request, context: dict[str, Any]) -> str:
    """The signed-in person's name, for the header ("" before they belong to a firm)."""
    found = context.get("session")
    if not isinstance(found, Session) or found.principal_id is None or found.org_id is None:
        return ""
    try:
        person = ports_of(request).directory.principal(found.org_id, found.principal_id)
    except NotFound:
        return ""
    return person.display_name or person.handle


def flash_back(request: Request, found: Session, back: str, text: str) -> RedirectResponse:
    """Back to ``back``, whose banner will say ``text`` (once)."""
    ports = ports_of(request)
    response = RedirectResponse(safe_back(back), status_code=303)
    cookies.flash(response, request, config_of(ports).session_key, found, text)
    return response


FORM_REFUSALS = tuple(REFUSALS)
"""What a form's use case may refuse it with (a validation error is a ValueError)."""


def status_of(refused: Exception) -> int:
    """The page's status for a refusal, from the one table every surface answers by."""
    answer = answer_to(refused)
    return answer.status if answer else 422


def safe_back(path: str) -> str:
    """Only a console path may be gone back to after sign-in."""
    return path if path.startswith("/console/") and "//" not in path else "/console/"


def sign_in_first(request: Request) -> RedirectResponse:
    """To sign-in, and back to this page after (its query kept: a notice's link names
    the item it is about)."""
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    target = quote(safe_back(here), safe="/")
    return RedirectResponse(f"/console/signin?next={target}", status_code=303)


def _prove(request: Request, ports: Ports, found: Session, acting: bool) -> str:
    """The principal the session's ID token proves, as the API proves a bearer token
    (checked again on every request; an acting one is charged and its nonce kept)."""
    return prove(
        request,
        ports,
        "console",
        bearer=found.id_token,
        nonce=uuid.uuid4().hex,
        dev_principal=None,
        acting=acting,
    )


async def read_form(request: Request, found: Session) -> dict[str, str]:
    """A form's fields, once its CSRF token and origin hold."""
    raw = (await request.body()).decode("utf-8", "replace")
    fields = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        raise Forbidden("the form was sent from another site")
    if not secrets.compare_digest(fields.get("csrf", ""), found.csrf):
        raise Forbidden("the form's CSRF token is missing or stale: reload the page")
    return fields


async def serve(
    request: Request, page: Page, acting: bool = False, unlinked: bool = False
) -> Response:
    """Run ``page`` for the signed-in person; refusals become pages, not stack traces.
    A person whose sign-in belongs to no principal yet reaches only ``unlinked`` pages
    (onboarding), with their token still checked."""
    ports = ports_of(request)
    key = config_of(ports).session_key
    found = cookies.read(request, key)
    if found is None:
        return sign_in_first(request)
    try:
        if found.principal_id is None:
            if not unlinked:
                return RedirectResponse("/console/onboard", status_code=303)
            if ports.tokens is None:
                raise Unavailable("no token verifier is configured")
            ports.tokens.verify(found.id_token)
            principal = ""
        else:
            principal = await run_in_threadpool(_prove, request, ports, found, acting)
    except Unauthenticated as refused:
        if refused.reason in _NOT_SIGNED_OUT:
            # the person is who they were: they are refused this once, not signed out
            code = 429 if refused.reason is Refusal.OVER_BUDGET else 503
            return render(
                request, "refused.html", code, session=found, status=code, refusal=refused.detail
            )
        response = sign_in_first(request)
        cookies.clear(response)
        return response
    try:
        return await page(ports, principal, found)
    except FORM_REFUSALS as refused:
        status = status_of(refused)
        return render(
            request,
            "refused.html",
            status,
            session=found,
            refusal=readable(refused),
            status=status,
        )


def org_of(found: Session) -> str:
    """The signed-in person's organization (NotFound until they have one)."""
    if found.org_id is None:
        raise NotFound("you belong to no organization yet")
    return found.org_id


LIVE_EVERY = 0.4
"""How often (seconds) an open page's stream looks again: a change reaches the page
within this and the render."""
LIVE_FOR = 600.0
"""How long one stream lasts (seconds); the browser opens the next by itself."""


ENDED = frozenset({"completed", "failed", "canceled", "terminated", "timed_out", "not_found"})
"""Temporal's words for an execution that has ended: what its page shows changes no more."""

FINAL = "final"
"""The key a live page's context sets once what it shows can no longer change (its
workflow ended): the stream sends it and ends, and the page stops asking."""


def live(
    request: Request, template: str, context: Callable[[], Awaitable[dict[str, Any]]]
) -> StreamingResponse:
    """A page's changing part (``template`` over ``context()``) as server-sent events: at
    once, then whenever it changes, for :data:`LIVE_FOR` seconds, or until ``context()``
    says it is :data:`FINAL` (an ``end`` event: the browser stops asking). The reader was
    checked by :func:`serve` as for the page; ``context`` reads as them each time, and a
    refusal then (they lost access) ends the stream with an ``end`` event, saying
    nothing more."""

    async def events() -> AsyncIterator[str]:
        sent = ""
        loop = asyncio.get_running_loop()
        ends = loop.time() + LIVE_FOR
        while loop.time() < ends and not await request.is_disconnected():
            try:
                shown = await context()
            except Unavailable:
                # Temporal out of reach a moment: the page keeps what it shows
                await asyncio.sleep(LIVE_EVERY)
                continue
            except FORM_REFUSALS:
                yield "event: end\ndata: \n\n"
                return
            html = templates.get_template(template).render(request=request, **shown)
            mark = hashlib.sha256(html.encode()).hexdigest()
            if mark != sent:
                sent = mark
                yield "event: live\n" + "".join(f"data: {line}\n" for line in html.splitlines())
                yield "\n"
            if shown.get(FINAL):
                yield "event: end\ndata: \n\n"
                return
            await asyncio.sleep(LIVE_EVERY)

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
