"""Retrying a failed run, a command: the same agent and task started again, once, while
the class of its failure allows, on the record."""

from __future__ import annotations

from pydantic import BaseModel

from domain.errors import Conflict
from domain.needs_you.chain import read_chain, retry_draft
from domain.runs.failures import NEXT_STEP, RETRIES, retries_left
from domain.runs.run import RunStatus
from usecases.access import run_for
from usecases.context import Ports
from usecases.needs_you.answer import handed
from usecases.runs import RunStarted, StartRun, start_run

ENDED_BADLY = frozenset({"failed", "terminated", "timed_out", "canceled"})
"""Workflow statuses of a run that ended without finishing its work."""


class RunRetried(BaseModel):
    """A failed run started again: same agent, same task, on behalf of the retrier."""

    run_id: str
    """The run that failed."""
    retry: RunStarted


async def retry_run(ports: Ports, run_id: str, actor_id: str) -> RunRetried:
    """Start a failed run again, with its agent and task, on behalf of ``actor_id`` (who
    must be able to read it). Once per failed run: a second retry returns the first one
    (the new run's client key names the failed run), and the retry is on the record."""
    run = run_for(ports, run_id, actor_id)
    if run.client_key is not None and run.client_key.startswith(("deliberation:", "graph:")):
        # Its task is the deliberation's or the graph's, not one a plain run could redo.
        raise Conflict(f"run {run_id} belongs to a deliberation or a work graph: start that again")
    story = read_chain(ports.audit.entries(run.org_id))
    failed = story.failures.get(run_id) or story.run_refusals.get(run_id)
    if failed is not None and run_id not in story.retried:
        tries = story.tries(run_id)
        if not retries_left(failed.failure, tries):
            raise Conflict(
                f"run {run_id} failed ({failed.failure}) and has been retried {tries} "
                f"time(s): {RETRIES[failed.failure]} allowed; {NEXT_STEP[failed.failure]}"
            )
    if run_id not in {*story.failures, *story.run_refusals, *story.retried}:
        # A run terminated (it runs no code of its own), or one that failed before runs
        # recorded their failures, is on no chain entry: its workflow says it.
        status, state = await ports.gateway.state(run.workflow_id)
        ended = status in ENDED_BADLY or (state is not None and state.status is RunStatus.FAILED)
        if not ended:
            raise Conflict(f"run {run_id} did not fail: there is nothing to retry")
    # A retry of a run that answered a question knows what that question was asked from.
    given = handed(ports, story, run)
    started = await start_run(
        ports,
        run.org_id,
        actor_id,
        StartRun(
            run.agent_id,
            run.task,
            client_key=f"retry:{run_id}",
            read_refs=given.refs,
            read_reach=given.reach,
        ),
    )
    with ports.governance.unit(run.org_id, ports.clock()) as unit:
        unit.append(retry_draft(run_id, started.run_id, actor_id))
    return RunRetried(run_id=run_id, retry=started)
