"""The runs list: the runs a reader may read, newest first, each with how it came out
(:class:`~domain.runs.outcome.RunOutcome`), who ran it and who asked, found by words of
its task or its agent's name and filtered by outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime, timedelta

from pydantic import BaseModel

from domain.organization.contracts import Principal
from domain.runs.outcome import (
    PartOf,
    RunEnd,
    RunOutcome,
    matches,
    outcome_of,
    part_of,
    settled,
)
from domain.runs.run import CANCELLED_ERROR, RunRecord, RunStatus
from usecases.context import Ports
from usecases.runs import RECENT_SCANNED, RunView, recent_runs

PAGE = 50
ENDS_READ = 500
"""Runs whose record one read covers while a filter by outcome looks for a page."""
"""How many runs the list shows at most."""
JUST_STARTED = timedelta(minutes=2)
"""A run this young that Temporal's list does not show yet is running (its list lags)."""


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
    now = ports.clock()
    words = " ".join(text.casefold().split())

    def scanned() -> tuple[dict[str, str], list[RunRecord]]:
        who = names(ports.directory.principals(org_id))
        return who, [
            run
            for run in recent_runs(ports, org_id, actor_id, RECENT_SCANNED)
            if not words or words in f"{run.task} {who.get(run.agent_id, '')}".casefold()
        ]

    who, candidates = await asyncio.to_thread(scanned)
    found: list[RunLine] = []
    # A filter by outcome may pass over many runs before it fills a page: the record is
    # read for ENDS_READ of them at once (off the event loop), Temporal asked a page at a time.
    for start in range(0, len(candidates), ENDS_READ if wanted else limit):
        read = candidates[start : start + (ENDS_READ if wanted else limit)]
        ends = await asyncio.to_thread(ports.runs.ends, org_id, [r.id for r in read])
        for at in range(0, len(read), limit):
            chunk = read[at : at + limit]
            line = await _lines(ports, chunk, ends, who, wanted, now, limit - len(found))
            found += line
            if len(found) == limit:
                return found
    return found


async def _lines(
    ports: Ports,
    chunk: list[RunRecord],
    ends: dict[str, RunEnd],
    who: dict[str, str],
    wanted: tuple[RunOutcome, ...],
    now: datetime,
    room: int,
) -> list[RunLine]:
    """The lines of ``chunk`` whose outcome is wanted, at most ``room``."""
    found: list[RunLine] = []
    open_ = [r.workflow_id for r in chunk if settled(ends.get(r.id, RunEnd())) is None]
    statuses = await ports.gateway.statuses(open_) if open_ else {}
    for run in chunk:
        end = ends.get(run.id, RunEnd())
        status = statuses.get(run.workflow_id)
        if status is None and run.created_at > now - JUST_STARTED:
            status = "running"  # Temporal's list has not caught up with it yet
        outcome = settled(end) or outcome_of(end, status)
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
        if len(found) == room:
            return found
    return found


def view_outcome(view: RunView) -> RunOutcome:
    """How the run a reader opened came out: what its record and its workflow say."""
    failed = view.state is not None and view.state.status is RunStatus.FAILED
    cancelled = failed and view.state is not None and view.state.error == CANCELLED_ERROR
    end = RunEnd(
        statuses=tuple(i.status for i in view.intents),
        ended_badly=("run_cancelled" if cancelled else "run_failed") if failed else None,
    )
    status = None if view.workflow_status == "not_found" else view.workflow_status
    return settled(end) or outcome_of(end, status)
