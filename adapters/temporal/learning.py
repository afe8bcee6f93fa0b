"""The learning pass on Temporal: its Schedule (created or updated when a worker starts)
and one pass started now (``verletica learn run``, ``POST …/learning``)."""

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
from domain.time.learning import LearningInput, LearningPass
from workflows.learning import LearningWorkflow

SCHEDULE_ID = "verletica-learning"
WORKFLOW_ID = "verletica-learning-run"
"""The scheduled workflows' id prefix (the server appends the scheduled time)."""


def learning_schedule(task_queue: str, every: timedelta) -> Schedule:
    """Every ``every``, one pass over every organization; a pass still running when the
    next is due makes the next one skip."""
    return Schedule(
        action=ScheduleActionStartWorkflow(
            LearningWorkflow.run,
            LearningInput(),
            id=WORKFLOW_ID,
            task_queue=task_queue,
            static_summary="learning pass: every organization",
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure_learning_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create the learning pass's Schedule, or bring an existing one to this task queue and
    interval: idempotent, so every worker may call it when it starts."""
    schedule = learning_schedule(task_queue, every)
    try:
        await client.create_schedule(SCHEDULE_ID, schedule)
    except ScheduleAlreadyRunningError:

        async def updated(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(SCHEDULE_ID).update(updated)


class TemporalLearning:
    """:class:`~domain.time.ports.LearningGateway` over a Temporal client."""

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
