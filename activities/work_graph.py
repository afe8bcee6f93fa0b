"""The work graph's one activity: prepare a step's run (its task, with the outputs of the
steps before it that the memory gate lets its agent read, and its run record)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.off_loop import in_thread
from domain.errors import Conflict, NotFound
from domain.organization.ports import Directory
from domain.organization.visibility import gated_projects, on_behalf, readable_projects
from domain.runs.failures import ErrorType
from domain.runs.ports import RunRecords
from domain.work_graph.graph import PreparedStep, StepRequest, released, step_task
from usecases.runs import new_run, record_system_run


class GraphActivities:
    """Reads the directory and records runs; never decides anything."""

    def __init__(
        self, directory: Directory, runs: RunRecords, clock: Callable[[], datetime]
    ) -> None:
        self._directory = directory
        self._runs = runs
        self._clock = clock

    def _prepare(self, request: StepRequest) -> PreparedStep:
        now, org_id, step = self._clock(), request.org_id, request.step
        try:
            org = self._directory.org(org_id)
            agent = self._directory.principal(org_id, step.agent)
            requester = self._directory.principal(org_id, request.requested_by)
        except NotFound as exc:  # gone since the graph started: retrying cannot help
            raise ApplicationError(str(exc), type=ErrorType.NOT_FOUND, non_retryable=True) from exc
        staffing = self._directory.staffing(org_id)
        allowed = gated_projects(agent.id, staffing, self._directory.barriers(org_id), now)
        readable = on_behalf(allowed, readable_projects(requester, org, staffing, now))
        shown, hidden = released(request.earlier, readable)
        # Keyed by graph and step: a retried activity finds the run it recorded before.
        record = new_run(
            agent,
            step_task(step.task, shown, hidden),
            staffing,
            started_by=requester.id,
            client_key=f"graph:{request.graph_id}:{step.id}",
            hold_timeout_seconds=request.hold_timeout_seconds,
            now=now,
        )
        try:
            run = record_system_run(self._runs, record)
        except Conflict as exc:
            raise ApplicationError(str(exc), type=ErrorType.CONFLICT, non_retryable=True) from exc
        return PreparedStep(
            run_id=run.id,
            workflow_id=run.workflow_id,
            handle=agent.handle,
            task=run.task,
            projects=run.projects,
            released=tuple(o.step_id for o in shown),
            withheld=tuple(o.step_id for o in hidden),
            read_reach=tuple(sorted({p for o in shown for p in o.projects})),
            read_refs=tuple(sorted({r for o in shown for r in o.read_refs})),
        )

    @activity.defn(name="graph_prepare_step")
    async def prepare_step(self, request: StepRequest) -> PreparedStep:
        """Record a step's run, with the task its agent may see."""
        return await in_thread(self._prepare, request)
