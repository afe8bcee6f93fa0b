"""Who is asking: the principal a bearer token proves, and the identities that prove
principals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from pydantic import BaseModel, Field

from api.deps import Actor, PortsDep
from domain.ingress import Refusal, Unauthenticated
from domain.model import Identity, IdentityKind, Principal
from usecases import ingress

router = APIRouter(tags=["ingress"])


class IdentityBody(BaseModel):
    """An outside identity to link to a human principal."""

    principal_id: str = Field(max_length=100)
    kind: IdentityKind
    external_id: str = Field(min_length=1, max_length=300)


def _bearer(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(Refusal.MALFORMED, "expected 'Authorization: Bearer <ID token>'")
    return token.strip()


@router.get("/v1/whoami")
def whoami(
    ports: PortsDep,
    authorization: Annotated[str | None, Header(max_length=16_384)] = None,
) -> Principal:
    """The principal your bearer ID token proves; 401 with the reason otherwise."""
    return ingress.whoami(ports, _bearer(authorization))


@router.post("/v1/orgs/{org_id}/identities", status_code=201)
def link_identity(org_id: str, body: IdentityBody, ports: PortsDep, actor: Actor) -> Identity:
    """Let an OIDC subject (or a Slack or Teams user) prove a human of the organization."""
    return ingress.link_identity(
        ports, org_id, actor, body.principal_id, body.kind, body.external_id
    )
