"""The heartbeat on Temporal: its Schedule (created or updated when a worker starts) and
one heartbeat started now (``verletica heartbeat run``, ``POST …/heartbeat``)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio.client import Client, Schedule
from temporalio.service import RPCError

from adapters.temporal import schedules
from domain.errors import Unavailable
from domain.heartbeat.checks import HeartbeatInput, HeartbeatRun
from workflows.heartbeat import HeartbeatWorkflow

SCHEDULE_ID = "verletica-heartbeat"
WORKFLOW_ID = "verletica-heartbeat-run"
"""The scheduled workflows' id prefix (the server appends the scheduled time)."""


def heartbeat_schedule(task_queue: str, every: timedelta) -> Schedule:
    """Every ``every``, one heartbeat over every organization."""
    return schedules.every_interval(
        HeartbeatWorkflow.run,
        HeartbeatInput(),
        workflow_id=WORKFLOW_ID,
        task_queue=task_queue,
        every=every,
        summary="heartbeat: every organization",
    )


async def ensure_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create this Schedule, or bring an existing one to this task queue and interval."""
    await schedules.ensure(client, SCHEDULE_ID, heartbeat_schedule(task_queue, every))


class TemporalHeartbeats:
    """:class:`~domain.heartbeat.ports.HeartbeatGateway` over a Temporal client."""

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
