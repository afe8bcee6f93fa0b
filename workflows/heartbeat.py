"""HeartbeatWorkflow: per organization, inspect (gather, check, record), then Sentinel's
proposals through the broker, then the run's final record.

The heartbeat mutates nothing in an organization itself: the only row it writes is its
own HeartbeatRun. Everything else is a proposal of the diagnostic agent, built without a
model from each finding, decided by the broker (a local activity, as in an agent run),
and dispatched only when allowed. The heartbeat never waits for a human: a proposal the
broker holds is closed on the record, and shows in the run as held.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.governance import BrokerActivities
    from activities.heartbeat import HeartbeatActivities
    from domain.governance.intents import Decision, Intent, Outcome
    from domain.governance.standing import HEARTBEAT as HEARTBEAT_SCHEDULE
    from domain.heartbeat.checks import (
        HEARTBEAT_RUN_PREFIX,
        Finding,
        HeartbeatInput,
        HeartbeatReport,
        HeartbeatRun,
        Inspection,
        InspectRequest,
        ProposalOutcome,
        proposals,
    )
    from domain.runs.run import BrokerRequest, DispatchRequest, ExpireRequest
    from workflows.policies import (
        BROKER_RETRY,
        CLEANUP_RETRY,
        DISPATCH_RETRY,
        HEARTBEAT,
        STEP_RETRY,
        describe,
    )

DOES_NOT_WAIT = "heartbeat_does_not_wait"
"""The rule a held proposal is closed under: the heartbeat waits for no human (the hold
is on the record, and the finding comes up again at the next heartbeat)."""

SCHEDULE_STANDING = "heartbeat-schedule-standing"
"""Patch: Sentinel's proposals carry the heartbeat schedule as who asked
(``Intent.requested_by``, in the digest): they stand on the schedule's written standing
(:mod:`domain.governance.standing`), not on Sentinel's staffing alone. Histories that
proposed before the patch rebuild their intents without it, as they were decided."""


@workflow.defn
class HeartbeatWorkflow:
    """One heartbeat over one or every organization; its result is every run it made."""

    @workflow.run
    async def run(self, start: HeartbeatInput) -> HeartbeatReport:
        orgs = await workflow.execute_activity_method(
            HeartbeatActivities.orgs,
            start,
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=STEP_RETRY,
            summary="heartbeat: which organizations",
        )
        runs: list[HeartbeatRun] = []
        for org_id in orgs.org_ids:
            runs.append(await self._beat(org_id))
        return HeartbeatReport(runs=tuple(runs))

    async def _beat(self, org_id: str) -> HeartbeatRun:
        run_id = str(workflow.uuid4())
        try:
            inspection = await workflow.execute_activity_method(
                HeartbeatActivities.inspect,
                InspectRequest(
                    org_id=org_id,
                    run_id=run_id,
                    workflow_id=workflow.info().workflow_id,
                    now=workflow.now(),
                ),
                start_to_close_timeout=timedelta(seconds=120),
                heartbeat_timeout=HEARTBEAT,
                retry_policy=STEP_RETRY,
                summary=f"heartbeat: gather and check {org_id[:8]}",
            )
        except ActivityError as err:
            # One organization's trouble does not stop the others' heartbeat.
            return HeartbeatRun(
                id=run_id,
                org_id=org_id,
                workflow_id=workflow.info().workflow_id,
                started_at=workflow.now(),
                ended_at=workflow.now(),
                error=describe(err),
            )
        outcomes: list[ProposalOutcome] = []
        if inspection.snapshot.sentinel_id is not None:
            for finding in inspection.run.findings:
                outcomes.extend(await self._propose(inspection, finding))
        final = inspection.run.model_copy(
            update={"proposals": tuple(outcomes), "ended_at": workflow.now()}
        )
        await workflow.execute_activity_method(
            HeartbeatActivities.record,
            final,
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=CLEANUP_RETRY,
            summary="heartbeat: record the run",
        )
        return final

    async def _propose(self, inspection: Inspection, finding: Finding) -> list[ProposalOutcome]:
        snap, run = inspection.snapshot, inspection.run
        assert snap.sentinel_id is not None
        outcomes = []
        for action in proposals(finding, snap):
            asked = workflow.patched(SCHEDULE_STANDING)
            intent = Intent.from_proposal(
                action,
                intent_id=str(workflow.uuid4()),
                org_id=snap.org_id,
                run_id=f"{HEARTBEAT_RUN_PREFIX}{run.id}",
                principal_id=snap.sentinel_id,
                requested_by=HEARTBEAT_SCHEDULE if asked else None,
            )
            decision = await workflow.execute_local_activity_method(
                BrokerActivities.decide,
                BrokerRequest(intent=intent),
                start_to_close_timeout=timedelta(seconds=30),
                retry_policy=BROKER_RETRY,
                summary=f"broker: sentinel {intent.tool} ({finding.kind})",
            )
            dispatched = False
            if decision.outcome.may_dispatch:
                try:
                    await workflow.execute_activity_method(
                        BrokerActivities.dispatch,
                        DispatchRequest(
                            org_id=snap.org_id,
                            intent_id=intent.id,
                            decision=decision,
                            intent=intent,
                        ),
                        start_to_close_timeout=timedelta(seconds=15),
                        heartbeat_timeout=HEARTBEAT,
                        retry_policy=DISPATCH_RETRY,
                        summary=f"action: sentinel {intent.tool} (intent {intent.id[:8]})",
                    )
                    dispatched = True
                except ActivityError as err:
                    decision = await self._close(
                        snap.org_id, intent, "dispatch_failed", describe(err)
                    )
            elif decision.outcome is Outcome.HOLD:
                decision = await self._close(
                    snap.org_id,
                    intent,
                    DOES_NOT_WAIT,
                    f"the heartbeat waits for no human; it was held: {decision.reason}",
                    held=decision,
                )
            outcomes.append(
                ProposalOutcome(
                    subject=finding.subject,
                    tool=intent.tool,
                    intent_id=intent.id,
                    outcome=decision.outcome,
                    rule=decision.rule,
                    reason=decision.reason,
                    dispatched=dispatched,
                )
            )
        return outcomes

    async def _close(
        self, org_id: str, intent: Intent, rule: str, reason: str, held: Decision | None = None
    ) -> Decision:
        """Close a proposal that will not be dispatched; a held one keeps its hold's rule
        in the run's record (the close is in the chain after it)."""
        closed = await workflow.execute_local_activity_method(
            BrokerActivities.expire,
            ExpireRequest(org_id=org_id, intent_id=intent.id, rule=rule, reason=reason),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=CLEANUP_RETRY,
            summary=f"broker: close ({rule})",
        )
        return held or closed
