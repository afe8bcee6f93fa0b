"""RelayWorkflow: one pass of the mail relay over every organization's outbox (a Temporal
Schedule runs it while an SMTP server is configured; the activity records each attempt)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.relay import RelayActivities
    from domain.relay import RelayInput, RelayReport
    from workflows.policies import HEARTBEAT

RELAY_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=3,
)
"""A pass that fails (the database away) is tried a few times; the next pass starts over."""


@workflow.defn
class RelayWorkflow:
    """Deliver what the outbox holds: each email delivered, bounced, or retried next pass."""

    @workflow.run
    async def run(self, start: RelayInput) -> RelayReport:
        return await workflow.execute_activity_method(
            RelayActivities.deliver,
            start,
            start_to_close_timeout=timedelta(minutes=10),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=RELAY_RETRY,
            summary=f"relay: deliver up to {start.limit} outbox emails",
        )
