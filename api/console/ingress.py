"""Signing in to the console and out of it: the organization's identity provider
(authorization code flow, PKCE S256), the session its ID token sets, and the way home."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api.console import oidc
from api.console import session as cookies
from api.console.forms import readable
from api.console.pages import (
    config_of,
    flash_back,
    org_of,
    ports_of,
    read_form,
    render,
    safe_back,
    serve,
)
from api.console.session import LoginState, Session
from domain.errors import Conflict, NotFound, Unavailable
from domain.ingress import Refusal, Unauthenticated
from domain.organization.contracts import Principal
from domain.organization.kinds import IdentityKind
from usecases import channels, ingress
from usecases.context import Ports

router = APIRouter()


@router.get("/", response_model=None)
async def home(request: Request) -> Response:
    """The queue, for whoever is signed in."""
    return RedirectResponse("/console/queue", status_code=303)


@router.get("/signin", response_class=HTMLResponse)
async def signin(request: Request, next: str = "/console/queue") -> HTMLResponse:
    """Where a person starts: one button, to their organization's identity provider."""
    config_of(ports_of(request))
    return render(request, "signin.html", session=None, next=safe_back(next))


@router.get("/login")
async def login(request: Request, next: str = "/console/queue") -> RedirectResponse:
    """Off to the identity provider (authorization code flow, PKCE S256)."""
    config = config_of(ports_of(request))
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
        LoginState(state=state, nonce=nonce, verifier=verifier, next=safe_back(next)),
    )
    return response


@router.get("/callback", name="callback", response_model=None)
async def callback(request: Request, code: str = "", state: str = "") -> Response:
    """Back from the identity provider: the code redeemed, the ID token verified (its
    nonce this sign-in's), the session set."""
    ports = ports_of(request)
    config = config_of(ports)
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
    # someone no firm knows yet founds one, unless they came to accept an invitation
    joining = pending.next.startswith(JOIN_PAGE)
    target = pending.next if principal is not None or joining else "/console/onboard"
    response = RedirectResponse(target, status_code=303)
    cookies.write(response, request, config.session_key, found)
    response.delete_cookie(cookies.LOGIN_COOKIE, path="/console")
    return response


@router.post("/signout")
async def signout(request: Request) -> RedirectResponse:
    """Forget the session (its CSRF token is checked: no other site signs you out)."""
    ports = ports_of(request)
    found = cookies.read(request, config_of(ports).session_key)
    response = RedirectResponse("/console/signin", status_code=303)
    if found is not None:
        await read_form(request, found)
    cookies.clear(response)
    return response


JOIN_PAGE = "/console/join/"
"""Where an invitation link leads (the token follows)."""


@router.get("/join/{token}", response_model=None)
async def join_page(request: Request, token: str) -> Response:
    """An invitation: whom it makes of the signed-in person, and the button that does it
    (signing in first, if need be, and coming back here)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        org_id, person = _invited(ports, token)
        firm = ports.directory.org(org_id)
        return render(
            request,
            "join.html",
            session=found,
            firm=firm,
            person=person,
            token=token,
            already=bool(principal),
        )

    return await serve(request, page, unlinked=True)


@router.post("/join/{token}", response_model=None)
async def join(request: Request, token: str) -> Response:
    """Accept the invitation: the signed-in person's sign-in proves the colleague from
    now on (once; the link is then spent)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        await read_form(request, found)
        if principal:
            raise Conflict("you already belong to a firm here: sign out, then open the link again")
        org_id, person = _invited(ports, token)
        await run_in_threadpool(ingress.accept_invitation, ports, org_id, person.id, found.subject)
        joined = found.model_copy(update={"principal_id": person.id, "org_id": org_id})
        response = flash_back(request, joined, "/console/queue", f"Welcome, {person.display_name}.")
        cookies.write(response, request, config_of(ports).session_key, joined)
        return response

    return await serve(request, page, acting=False, unlinked=True)


def _invited(ports: Ports, token: str) -> tuple[str, Principal]:
    """The organization and colleague a link invites, while it holds; NotFound else."""
    found = cookies.invited(config_of(ports).session_key, token)
    if found is None:
        raise NotFound("this invitation is no longer valid: ask for a new link")
    org_id, principal_id = found
    return org_id, ingress.invitee(ports, org_id, principal_id)


LINK_PAGE = "/console/link"
"""Where a person links their own Slack or Teams account."""


async def _link_context(ports: Ports, principal: str, found: Session) -> dict[str, Any]:
    person = ports.directory.principal(org_of(found), principal)
    mine = [
        i.kind.value
        for i in ports.directory.identities(person.org_id)
        if i.principal_id == person.id and i.kind in ingress.CHATS
    ]
    return {"person": person, "linked": sorted(mine), "link_code": None, "chat": None}


@router.get("/link", response_model=None)
async def link_page(request: Request) -> Response:
    """Your chat accounts: which are linked, and a code to link one."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _link_context(ports, principal, found)
        return render(request, "link.html", session=found, **shown)

    return await serve(request, page)


@router.post("/link", response_model=None)
async def link(request: Request) -> Response:
    """A code to send from your chat account (shown once, good ten minutes), or one of
    your chat accounts unlinked (on the record)."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        chat = IdentityKind(fields.get("kind", ""))
        if chat not in ingress.CHATS:
            raise ValueError("choose Slack or Teams")
        if fields.get("do") == "unlink":
            await run_in_threadpool(
                ingress.unlink_chat, ports, org_of(found), principal, principal, chat
            )
            said = f"Your {chat.value.capitalize()} account is unlinked: it acts as nobody now."
            return flash_back(request, found, LINK_PAGE, said)
        shown = await _link_context(ports, principal, found)
        person = shown["person"]
        assert isinstance(person, Principal)
        code = await run_in_threadpool(ingress.chat_code, ports, person, chat)
        shown |= {"link_code": code, "chat": chat.value, "how": channels.HOW[chat]}
        return render(request, "link.html", session=found, **shown)

    return await serve(request, page, acting=True)
