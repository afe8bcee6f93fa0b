"""The notices' Temporal Schedule (``verletica-notices``): a pass at an interval, while
a channel (email, Slack or Teams) is configured."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import Client

from adapters.temporal import schedules
from domain.notices import NoticesInput
from workflows.notices import NoticesWorkflow

SCHEDULE_ID = "verletica-notices"
WORKFLOW_ID = "verletica-notices-run"


async def ensure_notices_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create this Schedule, or bring an existing one to this task queue and interval."""
    await schedules.ensure(
        client,
        SCHEDULE_ID,
        schedules.every_interval(
            NoticesWorkflow.run,
            NoticesInput(),
            workflow_id=WORKFLOW_ID,
            task_queue=task_queue,
            every=every,
            summary="notices: tell each person what waits for them",
        ),
    )
