"""WorkGraphWorkflow: a graph of agent runs, each a child AgentRunWorkflow, in dependency
order. Steps whose dependencies are done run side by side; each passes its released
output on (see :mod:`domain.work_graph.graph`); a step held for a human pauses only the steps
after it. Orchestration only: every decision is the child runs' broker's."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import (
    ActivityError,
    ChildWorkflowError,
    WorkflowAlreadyStartedError,
)
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.work_graph import GraphActivities
    from domain.runs.run import RunInput, RunState
    from domain.work_graph.graph import (
        STEP_HELD,
        GraphInput,
        GraphState,
        GraphStep,
        PreparedStep,
        StepHeld,
        StepOutput,
        StepRequest,
        StepState,
        StepStatus,
        graph_status,
        output_of,
        step_outcome,
    )
    from workflows import search_attributes as sa
    from workflows.runs import AgentRunWorkflow

STEP_TASK_TIMEOUT = timedelta(seconds=3)
"""As for runs started on their own: a workflow task lost with its worker is retried
after this, not after the default 10 s."""
PREPARE_RETRY = RetryPolicy(maximum_interval=timedelta(seconds=10))
"""Preparing a step reads the directory and records a run: retried until the database
answers (keyed by graph and step, so a retry records nothing twice)."""


@workflow.defn
class WorkGraphWorkflow:
    """A graph of agent runs; its ``state`` query shows every step."""

    def __init__(self) -> None:
        self._graph_id = ""
        self._org_id = ""
        self._name = ""
        self._steps: dict[str, StepState] = {}
        self._outputs: dict[str, StepOutput] = {}
        self._flagged = False

    @workflow.query
    def state(self) -> GraphState:
        """Each step's status, run and summary; the graph's status."""
        return GraphState(
            graph_id=self._graph_id,
            org_id=self._org_id,
            name=self._name,
            status=graph_status({k: s.status for k, s in self._steps.items()}),
            steps=tuple(self._steps.values()),
        )

    @workflow.signal(name=STEP_HELD)
    def step_held(self, news: StepHeld) -> None:
        """A step's run opened a hold (``held``) or closed its last one."""
        for key, step in self._steps.items():
            if step.run_id == news.run_id and not step.status.final:
                status = StepStatus.HELD if news.held else StepStatus.RUNNING
                self._steps[key] = step.model_copy(update={"status": status})
        self._flag()

    def _flag(self) -> None:
        held = any(s.status is StepStatus.HELD for s in self._steps.values())
        if held != self._flagged:
            workflow.upsert_search_attributes([sa.NEEDS_HUMAN.value_set(held)])
            self._flagged = held

    def _set(self, step_id: str, **update: object) -> None:
        self._steps[step_id] = self._steps[step_id].model_copy(update=update)
        self._flag()

    @workflow.run
    async def run(self, start: GraphInput) -> GraphState:
        self._graph_id, self._org_id, self._name = start.graph_id, start.org_id, start.graph.name
        self._steps = {
            s.id: StepState(
                id=s.id, agent=start.handles.get(s.agent, s.agent), task=s.task, after=s.after
            )
            for s in start.graph.steps
        }
        await asyncio.gather(*(self._step(start, step) for step in start.graph.steps))
        return self.state()

    async def _step(self, start: GraphInput, step: GraphStep) -> None:
        await workflow.wait_condition(
            lambda: all(self._steps[d].status.final for d in step.after),
            timeout_summary=f"{step.id} waits for {', '.join(step.after)}",
        )
        if any(self._steps[d].status is not StepStatus.DONE for d in step.after):
            self._set(step.id, status=StepStatus.SKIPPED, summary="a step before it did not finish")
            return
        try:
            prepared = await self._prepare(start, step)
        except ActivityError as err:
            self._set(step.id, status=StepStatus.FAILED, summary=str(err.cause or err)[:300])
            return
        self._set(
            step.id,
            status=StepStatus.RUNNING,
            run_id=prepared.run_id,
            workflow_id=prepared.workflow_id,
        )
        try:
            result = await self._child(start, step, prepared)
        except (ChildWorkflowError, WorkflowAlreadyStartedError) as err:
            self._set(step.id, status=StepStatus.FAILED, summary=str(err.cause or err)[:300])
            return
        status, summary = step_outcome(result)
        self._outputs[step.id] = output_of(step.id, prepared, result)
        self._set(step.id, status=status, summary=summary)

    async def _prepare(self, start: GraphInput, step: GraphStep) -> PreparedStep:
        return await workflow.execute_activity_method(
            GraphActivities.prepare_step,
            StepRequest(
                graph_id=start.graph_id,
                org_id=start.org_id,
                requested_by=start.requested_by,
                step=step,
                earlier=tuple(self._outputs[d] for d in step.after),
                hold_timeout_seconds=start.hold_timeout_seconds,
            ),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=PREPARE_RETRY,
            summary=f"prepare {step.id}: its task and the outputs released to it",
        )

    async def _child(self, start: GraphInput, step: GraphStep, prepared: PreparedStep) -> RunState:
        return await workflow.execute_child_workflow(
            AgentRunWorkflow.run,
            RunInput(
                run_id=prepared.run_id,
                org_id=start.org_id,
                agent_id=step.agent,
                task=prepared.task,
                requested_by=start.requested_by,
                read_reach=prepared.read_reach,
                read_refs=prepared.read_refs,
                scripted_reply=start.scripted_replies.get(step.id),
                hold_timeout_seconds=start.hold_timeout_seconds,
            ),
            id=prepared.workflow_id,
            search_attributes=sa.for_run(start.org_id, prepared.handle, prepared.projects),
            static_summary=f"{self._name} / {step.id}: {prepared.handle}",
            task_timeout=STEP_TASK_TIMEOUT,
            # Cancelling the graph cancels its runs, which close their holds on the record.
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
        )
