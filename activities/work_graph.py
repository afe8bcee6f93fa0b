"""The work graph's one activity: prepare a step's run (its task, with the outputs of the
steps before it that the memory gate lets its agent read, and its run record)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeat import in_thread
from domain.errors import NotFound
from domain.ports import Directory, RunRecords
from domain.runs import RunRecord
from domain.visibility import gated_projects, on_behalf, readable_projects
from domain.workgraph import PreparedStep, StepRequest, released, step_task

CONFLICT = "Conflict"


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
            raise ApplicationError(str(exc), type="NotFound", non_retryable=True) from exc
        staffing = self._directory.staffing(org_id)
        allowed = gated_projects(agent.id, staffing, self._directory.barriers(org_id), now)
        readable = on_behalf(allowed, readable_projects(requester, org, staffing, now))
        shown, hidden = released(request.earlier, readable)
        run_id = str(uuid.uuid4())
        # Keyed by graph and step: a retried activity finds the run it recorded before.
        run, _ = self._runs.create(
            RunRecord(
                id=run_id,
                org_id=org_id,
                agent_id=agent.id,
                task=step_task(step.task, shown, hidden),
                workflow_id=f"run-{agent.handle}-{run_id}",
                client_key=f"graph:{request.graph_id}:{step.id}",
                started_by=request.requested_by,
                projects=tuple(
                    sorted(
                        s.project
                        for s in staffing
                        if s.principal_id == agent.id and s.active_at(now)
                    )
                ),
                hold_timeout_seconds=request.hold_timeout_seconds,
                created_at=now,
            )
        )
        if (run.org_id, run.agent_id, run.started_by) != (org_id, agent.id, requester.id):
            raise ApplicationError(
                f"the key of step {step.id!r} names another run", type=CONFLICT, non_retryable=True
            )
        return PreparedStep(
            run_id=run.id,
            workflow_id=run.workflow_id,
            handle=agent.handle,
            task=run.task,
            projects=run.projects,
            released=tuple(o.step_id for o in shown),
            withheld=tuple(o.step_id for o in hidden),
        )

    @activity.defn(name="graph_prepare_step")
    async def prepare_step(self, request: StepRequest) -> PreparedStep:
        """Record a step's run, with the task its agent may see."""
        return await in_thread(self._prepare, request)
