"""The heartbeat on Temporal: its Schedule (created or updated when a worker starts) and
one heartbeat started now (``verletica heartbeat run``, ``POST …/heartbeat``)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
)
from temporalio.service import RPCError

from domain.errors import Unavailable
from domain.time.heartbeat import HeartbeatInput, HeartbeatRun
from workflows.heartbeat import HeartbeatWorkflow

SCHEDULE_ID = "verletica-heartbeat"
WORKFLOW_ID = "verletica-heartbeat-run"
"""The scheduled workflows' id prefix (the server appends the scheduled time)."""


def heartbeat_schedule(task_queue: str, every: timedelta) -> Schedule:
    """Every ``every``, one heartbeat over every organization; a heartbeat still running
    when the next is due makes the next one skip (they would find the same things)."""
    return Schedule(
        action=ScheduleActionStartWorkflow(
            HeartbeatWorkflow.run,
            HeartbeatInput(),
            id=WORKFLOW_ID,
            task_queue=task_queue,
            static_summary="heartbeat: every organization",
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create the heartbeat's Schedule, or bring an existing one to this task queue and
    interval: idempotent, so every worker may call it when it starts."""
    schedule = heartbeat_schedule(task_queue, every)
    try:
        await client.create_schedule(SCHEDULE_ID, schedule)
    except ScheduleAlreadyRunningError:

        async def updated(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(SCHEDULE_ID).update(updated)


class TemporalHeartbeats:
    """:class:`~domain.time.ports.HeartbeatGateway` over a Temporal client."""

    def __init__(self, client: Client | None, task_queue: str) -> None:
        self._client = client
        self._task_queue = task_queue

    async def run_now(self, org_id: str | None) -> list[HeartbeatRun]:
        if self._client is None:
            raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
        try:
            report = await self._client.execute_workflow(
                HeartbeatWorkflow.run,
                HeartbeatInput(org_id=org_id),
                id=f"heartbeat-now-{uuid.uuid4()}",
                task_queue=self._task_queue,
                static_summary=f"heartbeat now: {org_id or 'every organization'}",
            )
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc
        return list(report.runs)
