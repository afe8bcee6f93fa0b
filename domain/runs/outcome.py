"""How a run came out, in one word an owner reads at a glance: from what the record says
of its intents (their latest outcomes), whether it ended badly, and whether Temporal
still runs it."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from domain.organization.contracts import Frozen


class RunOutcome(StrEnum):
    """A run's state as the runs list shows it (the first that holds, in this order)."""

    WAITING = "waiting"
    """An intent of it waits for a human's decision."""
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    """The broker refused something it proposed."""
    DENIED = "denied"
    """A human denied something it proposed."""
    EXPIRED = "expired"
    """A hold of it waited past its deadline."""
    RUNNING = "running"
    DONE = "done"
    """It ended, and what it proposed was carried out."""
    COMPLETED = "completed"
    """It ended without proposing anything (a summary, an answer)."""
    UNKNOWN = "unknown"
    """Nothing on the record, and Temporal could not be asked."""

    @property
    def words(self) -> str:
        """The badge's word."""
        return _WORDS[self]


_WORDS = {
    RunOutcome.WAITING: "Waits for you",
    RunOutcome.FAILED: "Failed",
    RunOutcome.CANCELLED: "Cancelled",
    RunOutcome.REFUSED: "Refused",
    RunOutcome.DENIED: "Denied",
    RunOutcome.EXPIRED: "Expired",
    RunOutcome.RUNNING: "Running",
    RunOutcome.DONE: "Done",
    RunOutcome.COMPLETED: "Completed",
    RunOutcome.UNKNOWN: "Unknown",
}


class RunEnd(Frozen):
    """What the record holds of a run's course: its intents' latest outcomes and the rule
    of its bad end (``run_failed``, ``run_cancelled``), if it had one."""

    statuses: tuple[str, ...] = ()
    ended_badly: str | None = None


def outcome_of(end: RunEnd, workflow_status: str | None) -> RunOutcome:
    """The run's outcome: what waits for a human first, then how it ended badly, then
    what the broker or a human refused, then whether it still runs.

    ``workflow_status`` is Temporal's word for the execution (``running``, ``completed``,
    ``failed``…) or None when Temporal was not asked or did not answer."""
    statuses = set(end.statuses)
    if "hold" in statuses:
        return RunOutcome.WAITING
    if end.ended_badly == "run_cancelled" or workflow_status in ("canceled", "terminated"):
        return RunOutcome.CANCELLED
    if end.ended_badly is not None or workflow_status in ("failed", "timed_out"):
        return RunOutcome.FAILED
    for status, outcome in _REFUSALS:
        if status in statuses:
            return outcome
    if workflow_status == "running":
        return RunOutcome.RUNNING
    if statuses & {"allow", "approved"}:
        return RunOutcome.DONE
    if workflow_status is None:
        return RunOutcome.UNKNOWN
    return RunOutcome.COMPLETED


def settled(end: RunEnd) -> RunOutcome | None:
    """The outcome the record alone settles (a hold, a bad end, a refusal), whatever
    Temporal says; None when it turns on whether the run still runs. The runs list and a
    run's page both read it first, so they never disagree."""
    found = outcome_of(end, "completed")
    return None if found in (RunOutcome.DONE, RunOutcome.COMPLETED) else found


_REFUSALS = (
    ("reject", RunOutcome.REFUSED),
    ("denied", RunOutcome.DENIED),
    ("expired", RunOutcome.EXPIRED),
)


def matches(outcome: RunOutcome, wanted: Iterable[RunOutcome]) -> bool:
    """Whether a filter that asks for ``wanted`` (empty: everything) shows ``outcome``."""
    chosen = set(wanted)
    return not chosen or outcome in chosen


class Spent(Frozen):
    """Money one let-through intent moved: whose, where (its reach), how much (cents, in
    its currency)."""

    agent_id: str
    reach: tuple[str, ...]
    cents: int
    currency: str = "USD"


class PartOf(Frozen):
    """The larger work a run is part of: a step of a work graph, or a deliberation's
    synthesis (its client key says which)."""

    kind: str
    """``graph`` or ``deliberation``."""
    id: str
    step: str = ""


def part_of(client_key: str | None) -> PartOf | None:
    """What a run's client key says it is part of (``graph:<id>:<step>``,
    ``deliberation:<id>``); None for a run started on its own."""
    if client_key is None:
        return None
    kind, _, rest = client_key.partition(":")
    if kind == "graph" and ":" in rest:
        graph_id, _, step = rest.rpartition(":")
        return PartOf(kind="graph", id=graph_id, step=step)
    if kind == "deliberation" and rest:
        return PartOf(kind="deliberation", id=rest)
    return None
