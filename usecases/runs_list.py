"""The runs list: the runs a reader may read, newest first, each with how it came out
(:class:`~domain.runs.outcome.RunOutcome`), who ran it and who asked, found by words of
its task or its agent's name and filtered by outcome."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from domain.organization.contracts import Principal
from domain.runs.outcome import PartOf, RunEnd, RunOutcome, matches, outcome_of, part_of
from domain.runs.run import CANCELLED_ERROR, RunRecord, RunStatus
from usecases.context import Ports
from usecases.runs import RECENT_SCANNED, RunView, recent_runs

PAGE = 50
"""How many runs the list shows at most."""


class RunLine(BaseModel):
    """One run of the list, in the owner's words."""

    run: RunRecord
    outcome: RunOutcome
    agent: str
    """The agent's name."""
    asked_by: str | None
    """Who asked for it, by name (None: no person, a schedule or the system)."""
    part_of: PartOf | None = None
    """The work graph or deliberation it is part of."""


def names(people: Iterable[Principal]) -> dict[str, str]:
    """Each principal's name, by id: their display name, else their handle."""
    return {p.id: p.display_name or p.handle for p in people}


async def listed_runs(
    ports: Ports,
    org_id: str,
    actor_id: str,
    *,
    outcomes: Iterable[RunOutcome] = (),
    text: str = "",
    limit: int = PAGE,
) -> list[RunLine]:
    """The newest runs ``actor_id`` may read whose task or agent holds ``text`` and whose
    outcome is one of ``outcomes`` (empty: any), at most ``limit``.

    The record says most of an outcome in one read; Temporal is asked (one visibility
    query per page) only for the runs the record cannot place: still running or not."""
    wanted = tuple(outcomes)
    who = names(ports.directory.principals(org_id))
    words = " ".join(text.casefold().split())
    candidates = [
        run
        for run in recent_runs(ports, org_id, actor_id, RECENT_SCANNED)
        if not words or words in f"{run.task} {who.get(run.agent_id, '')}".casefold()
    ]
    found: list[RunLine] = []
    for start in range(0, len(candidates), limit):
        chunk = candidates[start : start + limit]
        ends = ports.runs.ends(org_id, [r.id for r in chunk])
        open_ = [r.workflow_id for r in chunk if _needs_temporal(ends.get(r.id))]
        statuses = await ports.gateway.statuses(open_) if open_ else {}
        for run in chunk:
            status = statuses.get(run.workflow_id)
            outcome = outcome_of(ends.get(run.id, RunEnd()), status)
            if not matches(outcome, wanted):
                continue
            found.append(
                RunLine(
                    run=run,
                    outcome=outcome,
                    agent=who.get(run.agent_id, run.agent_id),
                    asked_by=None if run.started_by is None else who.get(run.started_by),
                    part_of=part_of(run.client_key),
                )
            )
            if len(found) == limit:
                return found
    return found


def _needs_temporal(end: RunEnd | None) -> bool:
    """Whether the record alone leaves the run's outcome open (it may still run)."""
    if end is None:
        return True
    settled = outcome_of(end, "completed")
    return settled in (RunOutcome.DONE, RunOutcome.COMPLETED)


def view_outcome(view: RunView) -> RunOutcome:
    """How the run a reader opened came out: what its record and its workflow say."""
    failed = view.state is not None and view.state.status is RunStatus.FAILED
    cancelled = failed and view.state is not None and view.state.error == CANCELLED_ERROR
    end = RunEnd(
        statuses=tuple(i.status for i in view.intents),
        ended_badly=("run_cancelled" if cancelled else "run_failed") if failed else None,
    )
    return outcome_of(end, None if view.workflow_status == "not_found" else view.workflow_status)
