"""LearningWorkflow: per organization, ask (gather the 7-day window and earlier
experiences, one model call, the validator) then record (candidate experiences and the
audit entries of every acceptance and refusal).

A pass changes no policy: the only rows it writes are experiences, in state candidate,
and its own audit entries. An insight that would grant access, change policy or assume
approval authority is refused by the validator, with its rule, on the record.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.learning import LearningActivities
    from domain.learning.records import LearningInput, LearningPass, LearningReport, LearnRequest
    from domain.learning.validator import WINDOW
    from workflows.policies import CLEANUP_RETRY, HEARTBEAT, STEP_RETRY, describe


@workflow.defn
class LearningWorkflow:
    """One learning pass over one or every organization; its result is every pass."""

    @workflow.run
    async def run(self, start: LearningInput) -> LearningReport:
        orgs = await workflow.execute_activity_method(
            LearningActivities.orgs,
            start,
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=STEP_RETRY,
            summary="learning: which organizations",
        )
        passes: list[LearningPass] = []
        for org_id in orgs.org_ids:
            passes.append(await self._learn(start, org_id))
        return LearningReport(passes=tuple(passes))

    async def _learn(self, start: LearningInput, org_id: str) -> LearningPass:
        pass_id = str(workflow.uuid4())
        now = workflow.now()
        try:
            learned = await workflow.execute_activity_method(
                LearningActivities.ask,
                LearnRequest(
                    org_id=org_id,
                    pass_id=pass_id,
                    workflow_id=workflow.info().workflow_id,
                    now=now,
                    requested_by=start.requested_by,
                    scripted_reply=start.scripted_reply,
                ),
                start_to_close_timeout=timedelta(seconds=120),
                heartbeat_timeout=HEARTBEAT,
                retry_policy=STEP_RETRY,
                summary=f"learning: window, one model call, the validator ({org_id[:8]})",
            )
        except ActivityError as err:
            # One organization's trouble does not stop the others' pass.
            return LearningPass(
                id=pass_id,
                org_id=org_id,
                workflow_id=workflow.info().workflow_id,
                window_from=now - WINDOW,
                window_to=now,
                requested_by=start.requested_by,
                error=describe(err),
            )
        if learned.accepted or learned.refused:
            await workflow.execute_activity_method(
                LearningActivities.record,
                learned,
                start_to_close_timeout=timedelta(seconds=30),
                heartbeat_timeout=HEARTBEAT,
                retry_policy=CLEANUP_RETRY,
                summary=f"learning: {len(learned.accepted)} candidate(s), "
                f"{len(learned.refused)} refusal(s) on the record",
            )
        return learned
