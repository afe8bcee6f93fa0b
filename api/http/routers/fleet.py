"""The fleet registry: an agent's versions, and which of them new runs get. Every change
is the founder's and goes on the audit chain."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.http.deps import Actor, PortsDep
from api.http.schemas import Body
from domain.fleet.registry import Rollout
from domain.organization.contracts import Charter
from usecases import fleet
from usecases.fleet import AgentVersions, DraftRequest

router = APIRouter(tags=["fleet"])


class DraftBody(Body, DraftRequest):
    """A new version: what changes from ``base`` (default: the stable version)."""


class ShareBody(Body):
    """How many of the agent's new runs get the version, in percent (100: all of them,
    and it becomes the stable version)."""

    share: int = Field(ge=1, le=100)


@router.get("/orgs/{org_id}/agents/{agent_id}/versions")
def versions(org_id: str, agent_id: str, ports: PortsDep, actor: Actor) -> AgentVersions:
    """The agent's versions, newest first, and its rollout."""
    return fleet.versions(ports, org_id, actor, agent_id)


@router.post("/orgs/{org_id}/agents/{agent_id}/versions", status_code=201)
def draft(org_id: str, agent_id: str, body: DraftBody, ports: PortsDep, actor: Actor) -> Charter:
    """Draft a new version (the founder); it serves no run until published and rolled out."""
    request = DraftRequest.model_validate(body.model_dump(exclude_unset=True))
    return fleet.draft(ports, org_id, actor, agent_id, request)


@router.post("/orgs/{org_id}/agents/{agent_id}/versions/{version}/publish")
def publish(org_id: str, agent_id: str, version: int, ports: PortsDep, actor: Actor) -> Charter:
    """Publish a draft (the founder). Only a draft may be published: otherwise a 409."""
    return fleet.publish(ports, org_id, actor, agent_id, version)


@router.post("/orgs/{org_id}/agents/{agent_id}/versions/{version}/rollout")
def roll_out(
    org_id: str, agent_id: str, version: int, body: ShareBody, ports: PortsDep, actor: Actor
) -> Rollout:
    """Give a share of the agent's new runs a published version (the founder)."""
    return fleet.roll_out(ports, org_id, actor, agent_id, version, body.share)


@router.post("/orgs/{org_id}/agents/{agent_id}/rollback")
def roll_back(org_id: str, agent_id: str, ports: PortsDep, actor: Actor) -> Rollout:
    """New runs stop getting the newest version (the founder); runs going keep theirs."""
    return fleet.roll_back(ports, org_id, actor, agent_id)


@router.post("/orgs/{org_id}/agents/{agent_id}/versions/{version}/retire")
def retire(org_id: str, agent_id: str, version: int, ports: PortsDep, actor: Actor) -> Charter:
    """Retire a version (the founder): the broker refuses intents of runs pinned to it."""
    return fleet.retire(ports, org_id, actor, agent_id, version)
