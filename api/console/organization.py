"""The organization's pages: onboarding (the firm, its founder and the starter fleet)
and the workspace (projects, staffing, barriers, commitments), with the founder's changes
to it through the same use cases as the API."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api.console import session as cookies
from api.console.forms import cents_from, day_from, readable
from api.console.ingress import JOIN_PAGE
from api.console.pages import (
    FORM_REFUSALS,
    config_of,
    flash_back,
    org_of,
    ports_of,
    read_form,
    render,
    serve,
    sign_in_first,
    status_of,
)
from api.console.session import Session
from api.http.schemas import (
    BarrierBody,
    DestinationBody,
    HumanBody,
    OnboardBody,
    ProjectBody,
    StaffingBody,
)
from domain.errors import Conflict
from domain.fleet.starter import STARTER_FLEET
from domain.ingress import Unauthenticated
from domain.organization.contracts import SpendCap
from domain.organization.kinds import DestinationKind, IdentityKind, PrincipalKind, StaffRole
from domain.words import projects_named
from usecases import commitments, destinations, ingress, organization
from usecases.context import Ports

router = APIRouter()


@router.get("/onboard", response_model=None)
async def onboard_page(request: Request) -> Response:
    """A guided form: the firm's name, the founder, and the starter fleet explained."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        if principal:
            return RedirectResponse("/console/queue", status_code=303)
        return render(
            request, "onboard.html", session=found, fleet=STARTER_FLEET, error="", kept={}
        )

    return await serve(request, page, unlinked=True)


@router.post("/onboard", response_model=None)
async def onboard(request: Request) -> Response:
    """Create the organization, its founder (the signed-in person) and its fleet."""
    ports = ports_of(request)
    key = config_of(ports).session_key
    found = cookies.read(request, key)
    if found is None or ports.tokens is None:
        return sign_in_first(request)
    if found.principal_id is not None:
        return RedirectResponse("/console/queue", status_code=303)
    fields = await read_form(request, found)
    try:
        ports.tokens.verify(found.id_token)
    except Unauthenticated:
        return sign_in_first(request)
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
            status_of(refused),
            session=found,
            fleet=STARTER_FLEET,
            error=readable(refused),
            kept=fields,
        )
    found = found.model_copy(update={"principal_id": made.founder.id, "org_id": made.org.id})
    response = RedirectResponse("/console/workspace", status_code=303)
    cookies.write(response, request, key, found)
    return response


async def _workspace_context(ports: Ports, principal: str, found: Session) -> dict[str, Any]:
    view = await run_in_threadpool(organization.workspace, ports, org_of(found), principal)
    identities = await run_in_threadpool(ports.directory.identities, org_of(found))
    return {
        "org": view.org,
        "people": {p.id: p for p in view.principals},
        "projects": view.projects,
        "staffing": view.staffing,
        "barriers": view.barriers,
        "standing": view.standing,
        "commitments": view.commitments,
        "destinations": await run_in_threadpool(
            destinations.destinations, ports, org_of(found), principal
        ),
        "founder": principal == view.org.founder_id,
        "agents": [p for p in view.principals if p.kind is PrincipalKind.AGENT],
        "now": ports.clock(),
        "joined": {i.principal_id for i in identities if i.kind is IdentityKind.OIDC},
        "chats": {
            p: sorted(
                i.kind.value for i in identities if i.principal_id == p and i.kind in ingress.CHATS
            )
            for p in {i.principal_id for i in identities}
        },
    }


@router.get("/workspace", response_model=None)
async def workspace(request: Request) -> Response:
    """Projects, staffing (who is on what, since when), barriers, commitments."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        shown = await _workspace_context(ports, principal, found)
        return render(
            request, "workspace.html", session=found, failed="", error="", kept={}, **shown
        )

    return await serve(request, page)


def _invite_words(ports: Ports, org_id: str, principal_id: str, name: str, base: str) -> str:
    """What the founder is told: the link to send (it proves nothing until the colleague
    signs in with it, once)."""
    token = cookies.invitation(config_of(ports).session_key, org_id, principal_id)
    return (
        f"{name} is invited. Send them this link (good for 7 days, once): {base}{JOIN_PAGE}{token}"
    )


def _project_name(ports: Ports, org_id: str, slug: str) -> str:
    """A project by its name, for a sentence (its slug when the firm no longer has it)."""
    return projects_named([slug], {p.slug: p.name for p in ports.directory.projects(org_id)})


async def _change(
    ports: Ports, org_id: str, principal: str, fields: dict[str, str], base: str = ""
) -> str:
    """A project, a staffing or a barrier added; what was done, in a sentence."""
    what = fields.get("change")
    if what == "project":
        project = ProjectBody(slug=fields.get("slug", ""), name=fields.get("name", ""))
        await run_in_threadpool(
            organization.add_project, ports, org_id, principal, project.slug, project.name
        )
        return f"project {project.name} ({project.slug}) added"
    if what == "staff":
        staffing = StaffingBody(
            principal_id=fields.get("principal_id", ""),
            project=fields.get("project", ""),
            role=StaffRole(fields.get("role", "member")),
        )
        until = day_from(fields.get("until", ""), "until")
        await run_in_threadpool(
            organization.staff,
            ports,
            org_id,
            principal,
            organization.AssignStaff(
                staffing.principal_id, staffing.project, staffing.role, valid_until=until
            ),
        )
        return "staffed" + (f" until {until:%d %b %Y}" if until else "")
    if what == "invite":
        body = HumanBody(email=fields.get("email", ""), display_name=fields.get("name", ""))
        person = await run_in_threadpool(
            organization.add_human, ports, org_id, principal, str(body.email), body.display_name
        )
        return _invite_words(ports, org_id, person.id, person.display_name, base)
    if what == "reinvite":
        person = await run_in_threadpool(
            ingress.invitee, ports, org_id, fields.get("principal_id", "")
        )
        return _invite_words(ports, org_id, person.id, person.display_name, base)
    if what == "unstaff":
        ended = await run_in_threadpool(
            organization.unstaff, ports, org_id, principal, fields.get("staffing", "")
        )
        return (
            f"staffing on {_project_name(ports, org_id, ended.project)} ended: its "
            "authority ends now, its history stays"
        )
    if what == "standing":
        return await run_in_threadpool(
            _standing,
            ports,
            org_id,
            principal,
            fields.get("principal_id", ""),
            fields.get("move", ""),
            fields.get("reason", ""),
        )
    if what == "commitment":
        cap = SpendCap(
            limit_cents=cents_from(fields.get("limit", ""), "cap"),
            currency=(fields.get("currency") or "USD").strip().upper(),
        )
        recorded = await run_in_threadpool(
            commitments.add_commitment,
            ports,
            org_id,
            principal,
            commitments.AddCommitment(
                title=fields.get("title", "").strip() or "untitled",
                constraint=cap,
                source=fields.get("source", "").strip() or "recorded in the console",
                excerpt=fields.get("excerpt", "").strip(),
                projects=tuple(
                    p.strip() for p in fields.get("projects", "").split(",") if p.strip()
                ),
            ),
        )
        return f"commitment {recorded.title} recorded: it binds once confirmed in your queue"
    if what == "extract":
        found = await commitments.extract(
            ports, org_id, principal, fields.get("ref", "").strip(), fields.get("extractor", "")
        )
        if found.rejection is not None:
            raise ValueError(f"nothing extracted: {found.rejection.reason}")
        titles = ", ".join(c.title for c in found.commitments) or "none"
        return (
            f"{len(found.commitments)} commitment(s) extracted ({titles}): each waits in your "
            "queue to be confirmed"
        )
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
    if what == "destination":
        kept = DestinationBody(
            project=fields.get("project", ""),
            kind=DestinationKind(fields.get("kind", "email_domain")),
            value=fields.get("value", ""),
            account=fields.get("account", "").strip() or None,
            label=fields.get("label", ""),
        )
        kept_now = await run_in_threadpool(
            destinations.establish,
            ports,
            org_id,
            principal,
            destinations.Establish(kept.project, kept.kind, kept.value, kept.account, kept.label),
        )
        return (
            f"{kept_now.value} may now receive "
            f"{_project_name(ports, org_id, kept_now.project)}'s work without waiting for you"
        )
    if what == "retire":
        retired = await run_in_threadpool(
            destinations.retire, ports, org_id, principal, fields.get("destination", "")
        )
        return f"{retired.value} retired: work to it waits for you again"
    raise ValueError("unknown change")


def _standing(ports: Ports, org_id: str, principal: str, who: str, move: str, reason: str) -> str:
    """Suspend, bring back or offboard someone; what was done, in a sentence."""
    if move == "suspend":
        done = organization.suspend(ports, org_id, principal, who, reason)
        name = done.principal.display_name or done.principal.handle
        return (
            f"{name} is suspended: they can do nothing until you bring them back (their "
            "staffing and accounts are kept)"
        )
    if move == "reactivate":
        done = organization.reactivate(ports, org_id, principal, who, reason)
        name = done.principal.display_name or done.principal.handle
        return f"{name} is back: their staffing counts again" + (
            "; they sign in again" if done.principal.kind is PrincipalKind.HUMAN else ""
        )
    if move == "offboard":
        done = organization.offboard(ports, org_id, principal, who, reason)
        name = done.principal.display_name or done.principal.handle
        ended = f"{done.staffing_ended} staffing{'s' if done.staffing_ended != 1 else ''} ended"
        accounts = ", ".join(
            "their sign-in" if k is IdentityKind.OIDC else f"their {k.value.capitalize()} account"
            for k in done.unlinked
        )
        return f"{name} has left for good: {ended}" + (f"; {accounts} unlinked" if accounts else "")
    raise ValueError("say whether to suspend, bring back or offboard")


@router.post("/workspace", response_model=None)
async def change_workspace(request: Request) -> Response:
    """A project, a staffing or a barrier added (the founder's, through the same use
    cases as the API, on the record). A refused change answers on the workspace, its
    form as it was filled, with why."""

    async def page(ports: Ports, principal: str, found: Session) -> Response:
        fields = await read_form(request, found)
        try:
            base = str(request.base_url).rstrip("/")
            done = await _change(ports, org_of(found), principal, fields, base)
        except FORM_REFUSALS as refused:
            shown = await _workspace_context(ports, principal, found)
            return render(
                request,
                "workspace.html",
                status_of(refused),
                session=found,
                failed=fields.get("change", ""),
                error=readable(refused),
                kept={k: v for k, v in fields.items() if k != "csrf"},
                **shown,
            )
        return flash_back(request, found, "/console/workspace", done)

    return await serve(request, page, acting=True)
