"""Established destinations: where a project's outbound work may go without a human."""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import Actor, PortsDep
from api.http.schemas import DestinationBody
from domain.organization.contracts import Destination
from usecases import destinations

router = APIRouter(tags=["destinations"])


@router.get("/orgs/{org_id}/destinations")
def list_destinations(org_id: str, ports: PortsDep, actor: Actor) -> list[Destination]:
    return destinations.destinations(ports, org_id, actor)


@router.post("/orgs/{org_id}/destinations", status_code=201)
def establish(org_id: str, body: DestinationBody, ports: PortsDep, actor: Actor) -> Destination:
    return destinations.establish(
        ports,
        org_id,
        actor,
        destinations.Establish(body.project, body.kind, body.value, body.account, body.label),
    )


@router.delete("/orgs/{org_id}/destinations/{destination_id}")
def retire(org_id: str, destination_id: str, ports: PortsDep, actor: Actor) -> Destination:
    return destinations.retire(ports, org_id, actor, destination_id)
