"""A run whose last workflow task failed is still a running run.

On a starved machine the SDK fails a workflow task that does not yield within two
seconds (its deadlock detector); Temporal retries the task, and until then it refuses
every query ("Workflow Task in failed state"). Reading such a run must show it running,
from the record, not answer 503: the run has not failed, it is late."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from temporalio import workflow
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from adapters.temporal.runs import TemporalRuns
from domain.runs.run import RunInput, RunState, RunStatus
from tests.support import until
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal

BROKEN = {"task": True}
"""While set, every workflow task of the stand-in run fails (as a deadlocked one does)."""


@workflow.defn(name="AgentRunWorkflow")
class FailingTaskRun:
    """Stands in for the agent run under its name: its task fails until told not to."""

    def __init__(self) -> None:
        self._state = RunState(run_id="")

    @workflow.run
    async def run(self, run: RunInput) -> RunState:
        if BROKEN["task"]:
            raise RuntimeError("a task that did not yield in time")
        self._state = RunState(run_id=run.run_id, summary="recovered")
        await workflow.wait_condition(lambda: False)
        return self._state

    @workflow.query
    def state(self) -> RunState:
        return self._state


async def test_a_run_whose_task_failed_reads_as_running_and_recovers(
    temporal_env: WorkflowEnvironment,
) -> None:
    queue = f"failed-task-{uuid.uuid4().hex[:8]}"
    gateway = TemporalRuns(temporal_env.client, queue, "http://ui", "default")
    run = RunInput(run_id=str(uuid.uuid4()), org_id="o", agent_id="a", task="t")
    workflow_id = f"agent-run-{run.run_id}"
    BROKEN["task"] = True
    async with Worker(
        temporal_env.client,
        task_queue=queue,
        workflows=[FailingTaskRun],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        await gateway.start(run, workflow_id, "agent")
        handle = temporal_env.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)

        async def refusal() -> str:
            try:
                await handle.query(AgentRunWorkflow.state, rpc_timeout=timedelta(seconds=2))
            except RPCError as exc:
                return exc.message if exc.status is RPCStatusCode.FAILED_PRECONDITION else ""
            return ""

        refused = await until(refusal, what="Temporal refuses queries for the failed task")
        assert "Workflow Task in failed state" in refused
        assert await gateway.state(workflow_id) == ("running", None)
        BROKEN["task"] = False
        status, state = await until(
            lambda: gateway.state(workflow_id),
            accept=lambda got: got[1] is not None,
            timeout=60,
            what="the retried task succeeds",
        )
        assert status == "running" and state is not None and state.summary == "recovered"
        assert state.status is RunStatus.RUNNING
        await handle.terminate("test over")
