"""Temporal Schedules for the fleet's periodic passes (the heartbeat, the learning pass):
one workflow over every organization at an interval, created or brought up to date by
every worker as it starts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

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


def every_interval(
    run: Callable[..., Any],
    arg: Any,
    *,
    workflow_id: str,
    task_queue: str,
    every: timedelta,
    summary: str,
) -> Schedule:
    """Every ``every``, one ``run(arg)``; one still running when the next is due makes the
    next skip (it would do the same work)."""
    return Schedule(
        action=ScheduleActionStartWorkflow(
            run, arg, id=workflow_id, task_queue=task_queue, static_summary=summary
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


async def ensure(client: Client, schedule_id: str, schedule: Schedule) -> None:
    """Create ``schedule_id``, or bring an existing one to ``schedule``: idempotent, so
    every worker may call it when it starts."""
    try:
        await client.create_schedule(schedule_id, schedule)
    except ScheduleAlreadyRunningError:

        async def updated(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(schedule_id).update(updated)
