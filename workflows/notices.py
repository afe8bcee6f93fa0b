"""NoticesWorkflow: one pass of the notices (a Temporal Schedule runs it while a channel
is configured): write what is new for every person, then deliver what waits."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.notices import NoticeActivities
    from domain.notices import NoticesInput, NoticesReport
    from workflows.policies import HEARTBEAT
    from workflows.relay import RELAY_RETRY


@workflow.defn
class NoticesWorkflow:
    """Tell each person what is new for them; a pass that fails is tried a few times,
    and the next pass starts over (what was written stays written, once)."""

    @workflow.run
    async def run(self, start: NoticesInput) -> NoticesReport:
        written = await workflow.execute_activity_method(
            NoticeActivities.write,
            start,
            start_to_close_timeout=timedelta(minutes=10),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=RELAY_RETRY,
            summary="notices: write what is new for each person",
        )
        delivered = await workflow.execute_activity_method(
            NoticeActivities.deliver,
            start,
            start_to_close_timeout=timedelta(minutes=10),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=RELAY_RETRY,
            summary=f"notices: deliver up to {start.limit}",
        )
        return NoticesReport(written=written.written, attempts=delivered.attempts)
