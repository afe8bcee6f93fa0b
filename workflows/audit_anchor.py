"""AuditAnchorWorkflow: the anchor, one long-running workflow for the deployment. Its
history holds every organization's anchored checkpoint (Temporal's own store, which the
application's database cannot rewrite); each run hands the newest on to the next."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.audit_anchor import AnchorActivities
    from domain.audit.anchor import AnchorInput
    from workflows.policies import HEARTBEAT

ANCHOR_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=3,
)
"""A pass that fails (the database away) is tried a few times; the next pass starts over."""
PASSES_PER_RUN = 500
"""Passes before the workflow continues as new, keeping its history short."""


@workflow.defn
class AuditAnchorWorkflow:
    """Anchors checkpoints every ``every_seconds``, or at once when nudged."""

    def __init__(self) -> None:
        self._anchored: dict[str, str] = {}
        self._nudged = False

    @workflow.run
    async def run(self, start: AnchorInput) -> None:
        self._anchored = dict(start.anchored)
        for _ in range(PASSES_PER_RUN):
            self._nudged = False
            try:
                report = await workflow.execute_activity_method(
                    AnchorActivities.anchor,
                    AnchorInput(anchored=self._anchored, every_seconds=start.every_seconds),
                    start_to_close_timeout=timedelta(minutes=10),
                    heartbeat_timeout=HEARTBEAT,
                    retry_policy=ANCHOR_RETRY,
                    summary="anchor: checkpoint every chain that grew",
                )
                self._anchored.update(report.anchored)
            except ActivityError:
                workflow.logger.warning("an anchor pass failed; the next one starts over")
            try:
                await workflow.wait_condition(
                    lambda: self._nudged, timeout=timedelta(seconds=start.every_seconds)
                )
            except TimeoutError:  # the interval ran out: the next pass is due
                pass
            if workflow.info().is_continue_as_new_suggested():
                break
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(
            AnchorInput(anchored=self._anchored, every_seconds=start.every_seconds)
        )

    @workflow.query
    def anchored(self, org_id: str) -> str | None:
        """The organization's newest anchored checkpoint."""
        return self._anchored.get(org_id)

    @workflow.query
    def all_anchored(self) -> dict[str, str]:
        """Every organization's newest anchored checkpoint (what a new run starts from)."""
        return dict(self._anchored)

    @workflow.signal
    def nudge(self) -> None:
        """Pass now."""
        self._nudged = True
