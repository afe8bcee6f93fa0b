"""The anchor workflow (``verletica-audit-anchor``): started by every worker (the first
starts it, the others find it running), read and nudged by the API and command line."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowQueryFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError

from domain.audit.anchor import AnchorInput, AnchorReading, AnchorReport
from workflows.audit_anchor import AuditAnchorWorkflow

WORKFLOW_ID = "verletica-audit-anchor"
QUERY_TIMEOUT = timedelta(seconds=2)
"""How long a verification waits for the anchor before saying it could not reach it."""


async def ensure_anchor(
    client: Client, task_queue: str, every: timedelta, workflow_id: str = WORKFLOW_ID
) -> None:
    """Start the anchor unless it runs. A run that ended (failed, terminated, timed out)
    hands on what it anchored: the new run starts from its state, read from its history
    (no worker is needed to read it: this runs before the worker polls)."""
    carried: dict[str, str] = {}
    handle = client.get_workflow_handle_for(AuditAnchorWorkflow.run, workflow_id)
    try:
        described = await handle.describe(rpc_timeout=QUERY_TIMEOUT)
        if described.status != WorkflowExecutionStatus.RUNNING:
            carried = await _state_in_history(client, handle)
    except RPCError:
        pass  # none yet, or its history is gone: the activity falls back on the anchor file
    await client.start_workflow(
        AuditAnchorWorkflow.run,
        AnchorInput(anchored=carried, every_seconds=max(1, int(every.total_seconds()))),
        id=workflow_id,
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary="audit anchor: every chain's newest checkpoint, outside the database",
    )


async def _state_in_history(client: Client, handle: WorkflowHandle[Any, Any]) -> dict[str, str]:
    """What a run had anchored: its start input, updated by each pass's report."""
    state: dict[str, str] = {}
    converter = client.data_converter
    async for event in handle.fetch_history_events():
        if event.HasField("workflow_execution_started_event_attributes"):
            payloads = event.workflow_execution_started_event_attributes.input.payloads
            (start,) = await converter.decode(payloads, [AnchorInput])
            state.update(start.anchored)
        elif event.HasField("activity_task_completed_event_attributes"):
            payloads = event.activity_task_completed_event_attributes.result.payloads
            (report,) = await converter.decode(payloads, [AnchorReport])
            state.update(report.anchored)
    return state


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
