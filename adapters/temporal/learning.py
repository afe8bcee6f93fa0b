"""The learning pass on Temporal: its Schedule (created or updated when a worker starts)
and one pass started now (``verletica learn run``, ``POST …/learning``)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio.client import Client, Schedule
from temporalio.service import RPCError

from adapters.temporal import schedules
from domain.errors import Unavailable
from domain.learning.records import LearningInput, LearningPass
from workflows.learning import LearningWorkflow

SCHEDULE_ID = "verletica-learning"
WORKFLOW_ID = "verletica-learning-run"
"""The scheduled workflows' id prefix (the server appends the scheduled time)."""


def learning_schedule(task_queue: str, every: timedelta) -> Schedule:
    """Every ``every``, one learning pass over every organization."""
    return schedules.every_interval(
        LearningWorkflow.run,
        LearningInput(),
        workflow_id=WORKFLOW_ID,
        task_queue=task_queue,
        every=every,
        summary="learning pass: every organization",
    )


async def ensure_learning_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create this Schedule, or bring an existing one to this task queue and interval."""
    await schedules.ensure(client, SCHEDULE_ID, learning_schedule(task_queue, every))


class TemporalLearning:
    """:class:`~domain.learning.ports.LearningGateway` over a Temporal client."""

    def __init__(self, client: Client | None, task_queue: str) -> None:
        self._client = client
        self._task_queue = task_queue

    async def run_now(
        self, org_id: str | None, requested_by: str | None, scripted_reply: str | None = None
    ) -> list[LearningPass]:
        if self._client is None:
            raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
        try:
            report = await self._client.execute_workflow(
                LearningWorkflow.run,
                LearningInput(
                    org_id=org_id, requested_by=requested_by, scripted_reply=scripted_reply
                ),
                id=f"learning-now-{uuid.uuid4()}",
                task_queue=self._task_queue,
                static_summary=f"learning pass now: {org_id or 'every organization'}",
            )
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc
        return list(report.passes)
