"""Agent runs and the humans' decisions on their holds."""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import Actor, PortsDep
from api.http.schemas import DecisionBody, RunBody
from usecases import runs
from usecases.runs import HoldSignalled, RunStarted, RunView

router = APIRouter(tags=["runs"])


@router.post("/orgs/{org_id}/runs", status_code=201)
async def start_run(org_id: str, body: RunBody, ports: PortsDep, actor: Actor) -> RunStarted:
    return await runs.start_run(
        ports,
        org_id,
        actor,
        runs.StartRun(
            body.agent_id,
            body.task,
            scripted_reply=body.scripted_reply,
            client_key=body.client_key,
            hold_timeout_seconds=body.hold_timeout_seconds,
        ),
    )


@router.get("/runs/{run_id}")
async def run(run_id: str, ports: PortsDep, actor: Actor) -> RunView:
    return await runs.run_view(ports, run_id, actor)


@router.post("/intents/{intent_id}/approve", status_code=202)
async def approve(
    intent_id: str, body: DecisionBody, ports: PortsDep, actor: Actor
) -> HoldSignalled:
    return await runs.decide_hold(
        ports,
        intent_id,
        actor,
        body.approver_id or actor,
        approve=True,
        reason=body.reason,
        hold_seq=body.hold_seq,
        establish=body.establish,
        again=body.again,
    )


@router.post("/intents/{intent_id}/deny", status_code=202)
async def deny(intent_id: str, body: DecisionBody, ports: PortsDep, actor: Actor) -> HoldSignalled:
    return await runs.decide_hold(
        ports,
        intent_id,
        actor,
        body.approver_id or actor,
        approve=False,
        reason=body.reason,
        hold_seq=body.hold_seq,
    )
