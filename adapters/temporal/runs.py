"""The :class:`~domain.runs.ports.RunGateway` over a Temporal client."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
)
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from domain.errors import Conflict, Unavailable
from domain.governance.intents import ApprovalVerdict
from domain.runs.run import ApprovalSignal, RunInput, RunState
from workflows import search_attributes as sa
from workflows.runs import AgentRunWorkflow

WORKFLOW_TASK_TIMEOUT = timedelta(seconds=3)
QUERY_TIMEOUT = timedelta(seconds=10)
"""How long a run's view waits for its workflow to answer before reading the record."""


class TemporalRuns:
    """Starts, reads and signals agent runs; every RPC failure is :class:`Unavailable`."""

    def __init__(self, client: Client | None, task_queue: str, ui_url: str, namespace: str) -> None:
        self._client_or_none = client
        self._task_queue = task_queue
        self._ui = f"{ui_url}/namespaces/{namespace}/workflows"

    def _client(self) -> Client:
        if self._client_or_none is None:
            raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
        return self._client_or_none

    def ui_url(self, workflow_id: str) -> str:
        return f"{self._ui}/{workflow_id}"

    async def statuses(self, workflow_ids: Sequence[str]) -> dict[str, str]:
        """One visibility query for a page of runs; Temporal out of reach answers
        nothing (the page then says what the record knows)."""
        if not workflow_ids or self._client_or_none is None:
            return {}
        quoted = ", ".join("'" + w.replace("'", "") + "'" for w in workflow_ids)
        found: dict[str, str] = {}
        try:
            async for execution in self._client_or_none.list_workflows(
                f"WorkflowId IN ({quoted})", page_size=len(workflow_ids)
            ):
                status = execution.status or WorkflowExecutionStatus.RUNNING
                found.setdefault(execution.id, status.name.lower())
        except RPCError:
            return {}
        return found

    async def start(
        self, run: RunInput, workflow_id: str, agent_handle: str, projects: tuple[str, ...] = ()
    ) -> None:
        try:
            await self._client().start_workflow(
                AgentRunWorkflow.run,
                run,
                id=workflow_id,
                task_queue=self._task_queue,
                search_attributes=sa.for_run(run.org_id, agent_handle, projects),
                static_summary=f"{agent_handle}: {run.task[:80]}",
                # A workflow task lost with its worker is retried after this, not after
                # the default 10 s (local activities extend it while they run).
                task_timeout=WORKFLOW_TASK_TIMEOUT,
                # A finished run is never executed again under its id: a retried start
                # with the same client key must not repeat its writes.
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            pass
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc

    async def state(self, workflow_id: str) -> tuple[str, RunState | None]:
        handle = self._client().get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
        try:
            status = (await handle.describe()).status or WorkflowExecutionStatus.RUNNING
            if status is WorkflowExecutionStatus.COMPLETED:
                return status.name.lower(), await handle.result()
            if status is WorkflowExecutionStatus.RUNNING:
                return status.name.lower(), await self._state_if_answered(handle)
            return status.name.lower(), None
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                # recorded, not started yet (a deliberation's run before its synthesis),
                # or no longer kept by Temporal
                return "not_found", None
            raise Unavailable(f"Temporal: {exc.message}") from exc

    @staticmethod
    async def _state_if_answered(handle: WorkflowHandle[Any, RunState]) -> RunState | None:
        """The running run's state, or None when it cannot answer now. A run whose last
        workflow task failed (on a starved machine the SDK fails a task that does not
        yield within two seconds) is refused every query until Temporal retries the
        task, and a run whose workers are all down answers nothing: either way it is
        running, late, and its view is read from the record. A query handler that fails
        is a defect, not lateness, and still raises."""
        try:
            return await handle.query(AgentRunWorkflow.state, rpc_timeout=QUERY_TIMEOUT)
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                raise
            return None

    async def status(self, workflow_id: str) -> str:
        """The workflow's status only (no query: a held run's worker need not answer);
        ``not_found`` when Temporal no longer knows it."""
        handle = self._client().get_workflow_handle(workflow_id)
        try:
            status = (await handle.describe()).status or WorkflowExecutionStatus.RUNNING
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                return "not_found"
            raise Unavailable(f"Temporal: {exc.message}") from exc
        return status.name.lower()

    async def result(self, workflow_id: str) -> RunState:
        handle = self._client().get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
        return await handle.result()

    async def signal(self, workflow_id: str, approve: bool, signal: ApprovalSignal) -> None:
        """Send ``signal`` (with its proof) as ``approve`` or ``deny``: the run's dynamic
        signal handler reads a verdict's value as its signal's name."""
        handle = self._client().get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
        verdict = ApprovalVerdict.APPROVE if approve else ApprovalVerdict.DENY
        try:
            await handle.signal(verdict.value, signal)
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                raise Conflict("the run holding this intent has ended") from exc
            raise Unavailable(f"Temporal: {exc.message}") from exc
