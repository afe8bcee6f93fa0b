"""The heartbeat: run one now (the founder), read the recent ones, and the standing holds
Sentinel placed (release one, with a reason)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.http.deps import Actor, PortsDep
from api.http.schemas import ReasonBody
from domain.heartbeat.checks import HeartbeatRun
from domain.organization.contracts import StandingHold
from usecases import heartbeat
from usecases.heartbeat import MAX_LISTED

router = APIRouter(tags=["heartbeat"])


@router.post("/orgs/{org_id}/heartbeat")
async def run_now(org_id: str, ports: PortsDep, actor: Actor) -> list[HeartbeatRun]:
    """Run the heartbeat over the organization now and wait for it: its checks, its
    findings and what the broker made of Sentinel's proposals."""
    return await heartbeat.run_now(ports, org_id, actor)


@router.get("/orgs/{org_id}/heartbeat/runs")
def runs(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 20,
) -> list[HeartbeatRun]:
    """The organization's recent heartbeats, newest first."""
    return heartbeat.recent(ports, org_id, actor, limit)


@router.get("/orgs/{org_id}/holds")
def standing_holds(org_id: str, ports: PortsDep, actor: Actor) -> list[StandingHold]:
    """The standing holds placed in the organization (open and released) that you may
    read: while one is open, every payment on its projects waits for a human."""
    return heartbeat.standing_holds(ports, org_id, actor)


@router.post("/holds/{hold_id}/release")
def release_hold(hold_id: str, body: ReasonBody, ports: PortsDep, actor: Actor) -> StandingHold:
    """Release a standing hold with a reason (the founder, or an approver on every project
    it holds), once: a second release is a 409 and never replaces the first."""
    return heartbeat.release_hold(ports, hold_id, actor, body.reason)
