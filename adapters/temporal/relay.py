"""The mail relay's Temporal Schedule (``verletica-relay``): a pass over the outbox at an
interval, while an SMTP server is configured."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import Client

from adapters.temporal import schedules
from domain.relay import RelayInput
from workflows.relay import RelayWorkflow

SCHEDULE_ID = "verletica-relay"
WORKFLOW_ID = "verletica-relay-run"


async def ensure_relay_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create this Schedule, or bring an existing one to this task queue and interval."""
    await schedules.ensure(
        client,
        SCHEDULE_ID,
        schedules.every_interval(
            RelayWorkflow.run,
            RelayInput(),
            workflow_id=WORKFLOW_ID,
            task_queue=task_queue,
            every=every,
            summary="mail relay: deliver the outbox",
        ),
    )
