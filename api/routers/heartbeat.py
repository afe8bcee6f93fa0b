"""The heartbeat: run one now (the founder), and read the recent ones."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import Actor, PortsDep
from domain.time.heartbeat import HeartbeatRun
from usecases import heartbeat
from usecases.heartbeat import MAX_LISTED

router = APIRouter(tags=["heartbeat"])


@router.post("/v1/orgs/{org_id}/heartbeat")
async def run_now(org_id: str, ports: PortsDep, actor: Actor) -> list[HeartbeatRun]:
    """Run the heartbeat over the organization now and wait for it: its checks, its
    findings and what the broker made of Sentinel's proposals."""
    return await heartbeat.run_now(ports, org_id, actor)


@router.get("/v1/orgs/{org_id}/heartbeat/runs")
def runs(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 20,
) -> list[HeartbeatRun]:
    """The organization's recent heartbeats, newest first."""
    return heartbeat.recent(ports, org_id, actor, limit)
