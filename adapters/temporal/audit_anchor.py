"""The anchor workflow (``verletica-audit-anchor``): started by every worker (the first
starts it, the others find it running), read and nudged by the API and command line."""

from __future__ import annotations

from datetime import timedelta

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowQueryFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from domain.audit.anchor import AnchorInput, AnchorReading
from workflows.audit_anchor import AuditAnchorWorkflow

WORKFLOW_ID = "verletica-audit-anchor"
QUERY_TIMEOUT = timedelta(seconds=2)
"""How long a verification waits for the anchor before saying it could not reach it."""


async def ensure_anchor(
    client: Client, task_queue: str, every: timedelta, workflow_id: str = WORKFLOW_ID
) -> None:
    """Start the anchor unless it runs. A run that ended (failed, terminated, timed out)
    hands on what it anchored: the new run starts from its state, read from its history."""
    carried: dict[str, str] = {}
    handle = client.get_workflow_handle_for(AuditAnchorWorkflow.run, workflow_id)
    try:
        described = await handle.describe()
        if described.status != WorkflowExecutionStatus.RUNNING:
            carried = await handle.query(AuditAnchorWorkflow.all_anchored)
    except (RPCError, WorkflowQueryFailedError):
        pass  # none yet, or its history is gone: the activity falls back on the anchor file
    await client.start_workflow(
        AuditAnchorWorkflow.run,
        AnchorInput(anchored=carried, every_seconds=max(1, int(every.total_seconds()))),
        id=workflow_id,
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary="audit anchor: every chain's newest checkpoint, outside the database",
    )


class TemporalAnchor:
    """The :class:`~domain.audit.anchor.AnchorGateway` over a Temporal client."""

    def __init__(self, client: Client | None, workflow_id: str = WORKFLOW_ID) -> None:
        self._client = client
        self._id = workflow_id

    def _handle(self) -> WorkflowHandle[AuditAnchorWorkflow, None] | None:
        if self._client is None:
            return None
        return self._client.get_workflow_handle_for(AuditAnchorWorkflow.run, self._id)

    async def anchored(self, org_id: str) -> AnchorReading:
        handle = self._handle()
        if handle is None:
            return AnchorReading(reached=False)
        try:
            note = await handle.query(
                AuditAnchorWorkflow.anchored, org_id, rpc_timeout=QUERY_TIMEOUT
            )
        except (RPCError, WorkflowQueryFailedError):
            return AnchorReading(reached=False)
        return AnchorReading(note=note)

    async def nudge(self) -> None:
        handle = self._handle()
        if handle is not None:
            try:
                await handle.signal(AuditAnchorWorkflow.nudge)
            except RPCError:
                pass
