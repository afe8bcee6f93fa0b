"""The console's pages. Each is a thin view over a use case, read as the signed-in person
may read it; each form is checked for its CSRF token and goes through the front door as
an acting API request does (the token proven again, the budgets charged)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.console import oidc
from api.console import session as cookies
from api.console.actions import ACT_FIELDS, ActRequest, act
from api.console.forms import SLUG_INPUT, SLUG_LIST_INPUT, money, readable
from api.console.session import LoginState, Session
from api.http.deps import prove
from api.http.schemas import BarrierBody, OnboardBody, ProjectBody, StaffingBody
from domain.audit.chain import AuditEntry
from domain.errors import Conflict, Forbidden, NotFound, Unavailable
from domain.fleet.starter import STARTER_FLEET
from domain.governance.intents import Stage
from domain.ingress import ConsoleSignIn, Refusal, Unauthenticated
from domain.needs_you.items import ActionKind, ItemKind, QueueItem
from domain.organization.contracts import IdentityKind, StaffRole
from usecases import audit, counterfactual, memory, needs_you, organization, runs
from usecases.context import Ports

router = APIRouter(prefix="/console", include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
templates.env.globals["ActionKind"] = ActionKind
templates.env.globals["SLUG_INPUT"] = SLUG_INPUT
templates.env.filters["money"] = money
templates.env.globals["SLUG_LIST_INPUT"] = SLUG_LIST_INPUT

Page = Callable[[Ports, str, Session], Awaitable[Response]]

_NOT_SIGNED_OUT = frozenset({Refusal.OVER_BUDGET, Refusal.KEY_SET_UNAVAILABLE, Refusal.REPLAYED})
"""Refusals that say nothing against the person's sign-in: a spent budget, the issuer's
key set out of reach, a nonce seen twice. The rest end the session."""


def _ports(request: Request) -> Ports:
    return request.app.state.ports  # type: ignore[no-any-return]


def _config(ports: Ports) -> ConsoleSignIn:
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
    console = _ports(request).console
    if name not in NO_FLASH and console is not None:
        shown = cookies.take_flash(request, console.session_key, context.get("session"))
    response = templates.TemplateResponse(
        request, name, {**context, "notice": shown or ""}, status_code=code
    )
    if shown is not None:
        cookies.clear_flash(response)
    return response


def _done(request: Request, found: Session, back: str, text: str) -> RedirectResponse:
    """Back to ``back``, whose banner will say ``text`` (once)."""
    ports = _ports(request)
    response = RedirectResponse(_back(back), status_code=303)
    cookies.flash(response, request, _config(ports).session_key, found, text)
    return response


FORM_REFUSALS = (Forbidden, Conflict, NotFound, ValueError, Unavailable)
"""What a form's use case may refuse it with (a validation error is a ValueError)."""


def _status(refused: Exception) -> int:
    return {Forbidden: 403, Conflict: 409, NotFound: 404, Unavailable: 503}.get(type(refused), 422)


def _back(path: str) -> str:
    """Only a console path may be gone back to after sign-in."""
    return path if path.startswith("/console/") and "//" not in path else "/console/"


def _sign_in_first(request: Request) -> RedirectResponse:
    target = quote(_back(request.url.path), safe="/")
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


async def _form(request: Request, found: Session) -> dict[str, str]:
    """A form's fields, once its CSRF token and origin hold."""
    raw = (await request.body()).decode("utf-8", "replace")
    fields = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        raise Forbidden("the form was sent from another site")
    if not secrets.compare_digest(fields.get("csrf", ""), found.csrf):
        raise Forbidden("the form's CSRF token is missing or stale: reload the page")
    return fields


async def _page(
    request: Request, page: Page, acting: bool = False, unlinked: bool = False
) -> Response:
    """Run ``page`` for the signed-in person; refusals become pages, not stack traces.
    A person whose sign-in belongs to no principal yet reaches only ``unlinked`` pages
    (onboarding), with their token still checked."""
    ports = _ports(request)
    key = _config(ports).session_key
    found = cookies.read(request, key)
    if found is None:
        return _sign_in_first(request)
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
        response = _sign_in_first(request)
        cookies.clear(response)
        return response
    try:
        return await page(ports, principal, found)
    except FORM_REFUSALS as refused:
        status = _status(refused)
        return render(
            request,
            "refused.html",
            status,
            session=found,
            refusal=readable(refused),
            status=status,
        )


# sign-in --------------------------------------------------------------------------------


@router.get("/", response_model=None)
async def home(request: Request) -> Response:
    """The queue, for whoever is signed in."""
    return RedirectResponse("/console/queue", status_code=303)


@router.get("/signin", response_class=HTMLResponse)
async def signin(request: Request, next: str = "/console/queue") -> HTMLResponse:
    """Where a person starts: one button, to their organization's identity provider."""
    _config(_ports(request))
    return render(request, "signin.html", session=None, next=_back(next))


@router.get("/login")
async def login(request: Request, next: str = "/console/queue") -> RedirectResponse:
    """Off to the identity provider (authorization code flow, PKCE S256)."""
    config = _config(_ports(request))
    authorize, _ = await oidc.endpoints(config)
    verifier, challenge = oidc.pkce_pair()
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    redirect = str(request.url_for("callback"))
    response = RedirectResponse(
        oidc.authorize_url(authorize, config, redirect, state, nonce, challenge), status_code=303
    )
    cookies.start_login(
        response,
        request,
        config.session_key,
        LoginState(state=state, nonce=nonce, verifier=verifier, next=_back(next)),
    )
    return response


@router.get("/callback", name="callback", response_model=None)
async def callback(request: Request, code: str = "", state: str = "") -> Response:
    """Back from the identity provider: the code redeemed, the ID token verified (its
    nonce this sign-in's), the session set."""
    ports = _ports(request)
    config = _config(ports)
    pending = cookies.finish_login(request, config.session_key)
    if pending is None or not code or not secrets.compare_digest(state, pending.state):
        return render(
            request,
            "refused.html",
            400,
            session=None,
            status=400,
            refusal="This sign-in is stale or was not started here. Sign in again.",
        )
    _, token_endpoint = await oidc.endpoints(config)
    redirect = str(request.url_for("callback"))
    if ports.tokens is None:
        raise Unavailable("no token verifier is configured")
    try:
        id_token = await oidc.redeem(token_endpoint, config, code, redirect, pending.verifier)
        claims = ports.tokens.verify(id_token)
        if claims.nonce != pending.nonce:
            raise Unauthenticated(Refusal.REPLAYED, "the ID token answers another sign-in")
    except (ValueError, Unauthenticated) as refused:
        return render(
            request,
            "refused.html",
            401,
            session=None,
            status=401,
            refusal=f"The sign-in did not hold: {readable(refused)}",
        )
    identity = ports.directory.identity(IdentityKind.OIDC, claims.subject)
    principal = None if identity is None else ports.directory.find_principal(identity.principal_id)
    found = Session(
        id_token=id_token,
        subject=claims.subject,
        principal_id=None if principal is None else principal.id,
        org_id=None if principal is None else principal.org_id,
        csrf=cookies.new_csrf(),
        expires_at=claims.expires_at,
    )
    target = pending.next if principal is not None else "/console/onboard"
    response = RedirectResponse(target, status_code=303)
    cookies.write(response, request, config.session_key, found)
    response.delete_cookie(cookies.LOGIN_COOKIE, path="/console")
    return response


@router.post("/signout")
async def signout(request: Request) -> RedirectResponse:
    """Forget the session (its CSRF token is checked: no other site signs you out)."""
    ports = _ports(request)
    found = cookies.read(request, _config(ports).session_key)
    response = RedirectResponse("/console/signin", status_code=303)
    if found is not None:
        await _form(request, found)
    cookies.clear(response)
    return response


# onboarding -----------------------------------------------------------------------------


@router.get("/onboard", response_model=None)
async def onboard_page(request: Request) -> Response:
    """A guided form: the firm's name, the founder, and the starter fleet explained."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        if principal:
            return RedirectResponse("/console/queue", status_code=303)
        return render(
            request, "onboard.html", session=found, fleet=STARTER_FLEET, error="", kept={}
        )

    return await _page(request, page, unlinked=True)


@router.post("/onboard", response_model=None)
async def onboard(request: Request) -> Response:
    """Create the organization, its founder (the signed-in person) and its fleet."""
    ports = _ports(request)
    key = _config(ports).session_key
    found = cookies.read(request, key)
    if found is None or ports.tokens is None:
        return _sign_in_first(request)
    if found.principal_id is not None:
        return RedirectResponse("/console/queue", status_code=303)
    fields = await _form(request, found)
    try:
        ports.tokens.verify(found.id_token)
    except Unauthenticated:
        return _sign_in_first(request)
    try:
        body = OnboardBody(
            name=fields.get("name", ""),
            founder_email=fields.get("email", ""),
            founder_name=fields.get("founder_name") or None,
        )
        made = await run_in_threadpool(
            organization.onboard,
            ports,
            body.name,
            str(body.founder_email),
            body.founder_name,
            oidc_subject=found.subject,
        )
    except (ValueError, Conflict) as refused:
        # the form again, as it was filled, with what to change
        return render(
            request,
            "onboard.html",
            _status(refused),
            session=found,
            fleet=STARTER_FLEET,
            error=readable(refused),
            kept=fields,
        )
    found = found.model_copy(update={"principal_id": made.founder.id, "org_id": made.org.id})
    response = RedirectResponse("/console/workspace", status_code=303)
    cookies.write(response, request, key, found)
    return response


# the needs-you queue --------------------------------------------------------------------


def _org(found: Session) -> str:
    if found.org_id is None:
        raise NotFound("you belong to no organization yet")
    return found.org_id


QUEUE_PAGE = 50
"""Items on one page of the queue (the most urgent first; the rest a page away)."""


def _start(value: str | None) -> int:
    """Where a page of the queue starts (a form's ``start``): a number, or a refusal
    before anything is done."""
    try:
        return max(int(value or 0), 0)
    except ValueError:
        raise ValueError("start must be a number") from None


def _queue_page(view: needs_you.NeedsYou, start: int) -> dict[str, Any]:
    """One page of the queue, and where the others start."""
    start = max(0, min(start, max(len(view.items) - 1, 0)))
    shown = view.items[start : start + QUEUE_PAGE]
    return {
        "queue": view,
        "shown": shown,
        "start": start,
        "before": max(start - QUEUE_PAGE, 0) if start else None,
        "after": start + QUEUE_PAGE if start + QUEUE_PAGE < len(view.items) else None,
    }


@router.get("/queue", response_model=None)
async def queue(request: Request, partial: bool = False, start: int = 0) -> Response:
    """What waits for a human, most urgent first, a page at a time; ``partial`` is the
    list alone (the page fetches it every few seconds, so an item decided elsewhere
    leaves)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        view = await run_in_threadpool(needs_you.needs_you, ports, _org(found), principal)
        name = "queue_items.html" if partial else "queue.html"
        return render(request, name, session=found, kept={}, **_queue_page(view, start))

    return await _page(request, page)


KEPT_FIELDS = ("item", "action", "subject", "reason", "answer", "name")
"""What a refused action's form is shown again with (nothing the page does not ask for)."""


@router.post("/act", response_model=None)
async def act_on(request: Request) -> Response:
    """One action on one item; the refreshed list (script) or the page it came from (no
    script). A refused action answers on that page, its form as it was sent, with why."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await _form(request, found)
        # a page, not a query: nothing the form carries reaches the page it goes back to
        back = _back(urlsplit(fields.get("back", "")).path or "/console/queue")
        fetched = request.headers.get("x-console") == "fetch"
        try:
            start = _start(fields.get("start"))
            ask = ActRequest.model_validate({k: v for k, v in fields.items() if k in ACT_FIELDS})
            done = await act(ports, principal, ask)
        except FORM_REFUSALS as refused:
            status, error = _status(refused), readable(refused)
            kept = {k: fields.get(k, "") for k in KEPT_FIELDS}
            if fetched:  # the page keeps its form as typed and shows why, in red
                return render(
                    request, "refused.html", status, session=found, refusal=error, status=status
                )
            if back.startswith(INTENT_PAGE):
                shown = await _intent_context(ports, principal, found, back[len(INTENT_PAGE) :])
                return render(
                    request, "intent.html", status, session=found, error=error, kept=kept, **shown
                )
            view = await run_in_threadpool(needs_you.needs_you, ports, _org(found), principal)
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
            view = await run_in_threadpool(needs_you.needs_you, ports, _org(found), principal)
            return render(
                request,
                "queue_items.html",
                session=found,
                done=done,
                kept={},
                **_queue_page(view, start),
            )
        return _done(request, found, back, done)

    return await _page(request, page, acting=True)


INTENT_PAGE = "/console/intents/"

_SAID = {
    "allow": "allowed",
    "reject": "rejected",
    "hold": "held",
    "approved": "approved",
    "denied": "denied",
    "expired": "expired",
    "review_refused": "decision refused",
    "dispatched": "written",
    "dispatch_refused": "write refused",
}
"""Each decision on an intent's record, as its page says it."""
_DECIDED = frozenset({"approved", "denied", "expired"})


class Step(BaseModel):
    """One entry of an intent's record, as its page shows it: when, who, what, why."""

    at: str
    who: str
    what: str
    rule: str
    reason: str
    asked: str = ""
    """What the person who decided wrote, when they wrote something."""


_BROKER_STAGES = frozenset(s.value for s in Stage) - {Stage.REVIEW, Stage.DISPATCH}


def _who(entry: AuditEntry, handles: dict[str, str]) -> str:
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
        at=entry.at[:19].replace("T", " ") + " UTC",
        who=_who(entry, handles),
        what=_SAID.get(entry.decision, entry.decision.replace("_", " ")),
        rule=entry.rule,
        reason=str(reason),
        asked=str(asked),
    )


async def _intent_context(
    ports: Ports, principal: str, found: Session, intent_id: str
) -> dict[str, Any]:
    """What the held intent's page shows, before and after anyone decides it: the
    broker's decision and its record (who decided what, when), the counterfactual while
    enforcement is what stopped it, and (while it waits) the actions and the outlook."""
    org_id = _org(found)
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
    view = await run_in_threadpool(needs_you.needs_you, ports, org_id, principal)
    item = next(
        (
            i
            for i in view.items
            if isinstance(i, QueueItem)
            and i.kind is ItemKind.HELD_INTENT
            and i.subject_id == intent_id
        ),
        None,
    )
    trail = await run_in_threadpool(audit.audit, ports, org_id, principal, False)
    people = await run_in_threadpool(organization.principals, ports, org_id, principal)
    handles = {p.id: p.handle for p in people}
    story = [_step(e, handles) for e in trail.entries if e.intent_id == intent_id]
    decided = next((s for s in reversed(story) if s.what in _DECIDED), None)
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
    }


@router.get("/intents/{intent_id}", response_model=None)
async def held_intent(request: Request, intent_id: str) -> Response:
    """Why the broker stopped it, what would release it, what it would have done without
    enforcement, and (for whoever may not approve it) why an approval would be refused;
    once decided, what was decided, by whom and when (never a refusal page)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _intent_context(ports, principal, found, intent_id)
        return render(request, "intent.html", session=found, error="", kept={}, **shown)

    return await _page(request, page)


# workspace, runs, audit, metrics ---------------------------------------------------------


async def _workspace_context(ports: Ports, principal: str, found: Session) -> dict[str, Any]:
    view = await run_in_threadpool(organization.workspace, ports, _org(found), principal)
    return {
        "org": view.org,
        "people": {p.id: p for p in view.principals},
        "projects": view.projects,
        "staffing": view.staffing,
        "barriers": view.barriers,
        "standing": view.standing,
        "commitments": view.commitments,
        "founder": principal == view.org.founder_id,
    }


@router.get("/workspace", response_model=None)
async def workspace(request: Request) -> Response:
    """Projects, staffing (who is on what, since when), barriers, commitments."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _workspace_context(ports, principal, found)
        return render(
            request, "workspace.html", session=found, failed="", error="", kept={}, **shown
        )

    return await _page(request, page)


async def _change(ports: Ports, org_id: str, principal: str, fields: dict[str, str]) -> str:
    """A project, a staffing or a barrier added; what was done, in a sentence."""
    what = fields.get("change")
    if what == "project":
        project = ProjectBody(slug=fields.get("slug", ""), name=fields.get("name", ""))
        await run_in_threadpool(
            organization.add_project, ports, org_id, principal, project.slug, project.name
        )
        return f"project {project.slug} added"
    if what == "staff":
        staffing = StaffingBody(
            principal_id=fields.get("principal_id", ""),
            project=fields.get("project", ""),
            role=StaffRole(fields.get("role", "member")),
        )
        await run_in_threadpool(
            organization.staff,
            ports,
            org_id,
            principal,
            staffing.principal_id,
            staffing.project,
            staffing.role,
        )
        return "staffed"
    if what == "barrier":
        groups = [
            [p.strip() for p in fields.get(side, "").split(",") if p.strip()]
            for side in ("left", "right")
        ]
        barrier = BarrierBody(name=fields.get("name", ""), groups=groups)
        stand = fields.get("stand", "")
        if stand not in ("left", "right", "both"):
            raise ValueError("say where you stand once the wall is up")
        side = None if stand == "both" else barrier.groups[stand == "right"][0]
        barrier = barrier.model_copy(update={"founder_side": side})
        made = await run_in_threadpool(
            organization.add_barrier,
            ports,
            org_id,
            principal,
            barrier.name,
            [list(g) for g in barrier.groups],
            barrier.founder_side,
        )
        standing = await run_in_threadpool(organization.founder_standing, ports, org_id, principal)
        said = next((w for b, w in standing if b.id == made.id), "")
        return f"barrier {barrier.name} raised: {said}"
    raise ValueError("unknown change")


@router.post("/workspace", response_model=None)
async def change_workspace(request: Request) -> Response:
    """A project, a staffing or a barrier added (the founder's, through the same use
    cases as the API, on the record). A refused change answers on the workspace, its
    form as it was filled, with why."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await _form(request, found)
        try:
            done = await _change(ports, _org(found), principal, fields)
        except FORM_REFUSALS as refused:
            shown = await _workspace_context(ports, principal, found)
            return render(
                request,
                "workspace.html",
                _status(refused),
                session=found,
                failed=fields.get("change", ""),
                error=readable(refused),
                kept={k: v for k, v in fields.items() if k != "csrf"},
                **shown,
            )
        return _done(request, found, "/console/workspace", done)

    return await _page(request, page, acting=True)


@router.get("/runs", response_model=None)
async def run_list(request: Request) -> Response:
    """The runs you may read, newest first."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id = _org(found)
        people = await run_in_threadpool(organization.principals, ports, org_id, principal)
        handles = {p.id: p.handle for p in people}
        listed = await run_in_threadpool(runs.recent_runs, ports, org_id, principal)
        return render(request, "runs.html", session=found, runs=listed, handles=handles)

    return await _page(request, page)


@router.get("/runs/{run_id}", response_model=None)
async def run_detail(request: Request, run_id: str) -> Response:
    """A run: node states, decisions, the memory released to it, the Temporal UI link."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        view = await runs.run_view(ports, run_id, principal)
        return render(request, "run.html", session=found, run=view)

    return await _page(request, page)


AUDIT_SHOWN = 200
"""The newest entries the audit page lists (filters narrow them; the API has them all)."""


@router.get("/audit", response_model=None)
async def audit_page(
    request: Request, actor: str = "", stage: str = "", rule: str = ""
) -> Response:
    """The chain with its verification, filtered by actor, stage and rule; the memory
    read log."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id = _org(found)
        trail = await run_in_threadpool(audit.audit, ports, org_id, principal, True)
        people = await run_in_threadpool(organization.principals, ports, org_id, principal)
        handles = {p.id: p.handle for p in people}
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
            entries=entries[-AUDIT_SHOWN:][::-1],
            more=max(len(entries) - AUDIT_SHOWN, 0),
            handles=handles,
            reads=reads[::-1],
            founder=founder,
            filters={"actor": actor, "stage": stage, "rule": rule},
        )

    return await _page(request, page)


@router.get("/metrics", response_model=None)
async def metrics_page(request: Request) -> Response:
    """The autonomy metrics, as bars."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        numbers = await run_in_threadpool(needs_you.metrics, ports, _org(found), principal)
        return render(request, "metrics.html", session=found, m=numbers)

    return await _page(request, page)
