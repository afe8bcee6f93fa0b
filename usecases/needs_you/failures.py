"""The failed runs, a read model: the organization's runs that failed, were refused or
had every intent stopped, each with its class and the retries it has left (retrying one
is :mod:`~usecases.needs_you.retry`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from domain.needs_you.chain import read_chain
from domain.organization.visibility import may_read
from domain.runs.failures import FailureClass, retries_left
from usecases.access import member, readable
from usecases.context import Ports


class FailedRunView(BaseModel):
    """A failed run in the list: what stopped it, its class, and what may be done."""

    run_id: str
    agent: str
    task: str
    failure: FailureClass
    stage: str
    rule: str
    reason: str
    failed_at: datetime
    retries_left: int
    retried_by: str | None = None
    """The run that retried it, if any."""
    stopped_by_broker: bool
    """True when every intent it proposed was stopped (rejected, denied, expired) rather
    than the run failing: the broker's record is the item (such runs are not queued)."""


def failed_runs(
    ports: Ports, org_id: str, actor_id: str, failure: FailureClass | None = None
) -> list[FailedRunView]:
    """The organization's failed runs that ``actor_id`` may read, newest first, of one
    class or all: runs that failed or were refused, and runs whose every intent the
    broker or a human stopped."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    run_reach, _ = ports.runs.reaches(org_id)
    story = read_chain(ports.audit.entries(org_id))
    handles = {p.id: p.handle for p in ports.directory.principals(org_id)}
    found: list[FailedRunView] = []
    listed = [
        *((f, False) for f in {**story.failures, **story.run_refusals}.values()),
        *((f, True) for f in story.stopped_runs()),
    ]
    for failed, stopped in listed:
        run = ports.runs.get(failed.run_id)
        if run is None or run.org_id != org_id:
            continue
        if not may_read(projects, tuple(run_reach.get(run.id, set()) | set(run.projects))):
            continue
        if failure is not None and failed.failure is not failure:
            continue
        found.append(
            FailedRunView(
                run_id=run.id,
                agent=handles.get(run.agent_id, run.agent_id),
                task=run.task,
                failure=failed.failure,
                stage=failed.stage,
                rule=failed.rule,
                reason=failed.reason,
                failed_at=failed.failed_at,
                # A run the broker stopped did not fail: it is not retried as it is.
                retries_left=0
                if stopped or run.id in story.retried
                else retries_left(failed.failure, story.tries(run.id)),
                retried_by=story.retried.get(run.id),
                stopped_by_broker=stopped,
            )
        )
    return sorted(found, key=lambda f: (f.failed_at, f.run_id), reverse=True)
