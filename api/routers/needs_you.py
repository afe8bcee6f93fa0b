"""The needs-you queue, the autonomy metrics, and retrying a failed run (the queue's
own action; its other actions are the approve, deny and confirm routes)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import Actor, PortsDep
from domain.needs_you.metrics import AutonomyMetrics
from usecases import needs_you
from usecases.needs_you import NeedsYou, RunRetried

router = APIRouter(tags=["needs-you"])


@router.get("/v1/orgs/{org_id}/needs-you")
def queue(org_id: str, ports: PortsDep, actor: Actor) -> NeedsYou:
    """What waits for you, most urgent first, each item with its evidence and the
    actions it allows; items on projects you may not read are withheld."""
    return needs_you.needs_you(ports, org_id, actor)


@router.get("/v1/orgs/{org_id}/metrics")
def metrics(org_id: str, ports: PortsDep, actor: Actor) -> AutonomyMetrics:
    """Work done without a human, escalations, blocked violations by stage, time to
    resolve holds and drift findings, repeated-process precision; a metric with no data
    yet says why."""
    return needs_you.metrics(ports, org_id, actor)


@router.post("/v1/runs/{run_id}/retry", status_code=201)
async def retry(run_id: str, ports: PortsDep, actor: Actor) -> RunRetried:
    """Start a failed run again (same agent and task), once, on the record."""
    return await needs_you.retry_run(ports, run_id, actor)
