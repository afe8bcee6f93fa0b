"""Who is asking: the principal a bearer token proves, and the identities that prove
principals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, Field

from api.http.deps import Actor, PortsDep, bearer_of
from api.http.schemas import Body
from domain.ingress import Refusal, RefusedRequest, Unauthenticated
from domain.organization.contracts import Identity, Principal
from domain.organization.kinds import IdentityKind
from usecases import ingress

router = APIRouter(tags=["ingress"])


class IdentityBody(Body):
    """An outside identity to link to a human principal (unknown fields and text that
    cannot be stored are refused, as in every body)."""

    principal_id: str = Field(min_length=1, max_length=100)
    kind: IdentityKind
    external_id: str = Field(min_length=1, max_length=300)


def _bearer(authorization: str | None) -> str:
    token = bearer_of(authorization)
    if token is None:
        raise Unauthenticated(
            Refusal.NO_CREDENTIALS, "send 'Authorization: Bearer <ID token>' from your issuer"
        )
    return token


@router.get("/whoami")
def whoami(
    request: Request,
    ports: PortsDep,
    authorization: Annotated[str | None, Header(max_length=16_384)] = None,
) -> Principal:
    """The principal your bearer ID token proves; 401 with the reason otherwise."""
    with ingress.refusals_recorded(ports, "whoami", request.url.path):
        return ingress.whoami(ports, _bearer(authorization))


@router.get("/orgs/{org_id}/ingress/refusals")
def refusals(org_id: str, ports: PortsDep, actor: Actor, limit: int = 100) -> list[RefusedRequest]:
    """Requests refused at the front door once their sender was known (a replay, a spent
    budget), newest first (the founder's). Anonymous refusals are in the server's log."""
    return ingress.refusals(ports, org_id, actor, min(max(limit, 1), 1000))


@router.post("/orgs/{org_id}/identities", status_code=201)
def link_identity(org_id: str, body: IdentityBody, ports: PortsDep, actor: Actor) -> Identity:
    """Let an OIDC subject prove a human of the organization (a Slack or Teams account is
    linked by its owner, with a code from the console: a 422 here)."""
    return ingress.link_identity(
        ports, org_id, actor, body.principal_id, body.kind, body.external_id
    )


class Unlinked(BaseModel):
    """How many accounts were unlinked."""

    unlinked: int


@router.delete("/orgs/{org_id}/principals/{principal_id}/chats/{kind}")
def unlink_chat(
    org_id: str, principal_id: str, kind: IdentityKind, ports: PortsDep, actor: Actor
) -> Unlinked:
    """Unlink a person's Slack or Teams account (the person, or the founder; on the
    record): it proves nobody from now on."""
    return Unlinked(unlinked=ingress.unlink_chat(ports, org_id, actor, principal_id, kind))
