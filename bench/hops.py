"""An approval's hops, read off the run's history: from the approve request to the signal
on the server, to the workflow task that reviews it, to the write, to the run's end."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory

HOPS = (
    "request → signal recorded",
    "signal → workflow task started",
    "workflow task (the review)",
    "write scheduled → started",
    "write (activity)",
    "write done → run completed",
    "run completed → client told",
)
"""Each hop's name, in order; a bare approval has the same hops (its workflow task has no
review in it)."""


@dataclass(frozen=True)
class Hops:
    """Milliseconds of each hop of one approval, in the order of :data:`HOPS`."""

    ms: tuple[float, ...]


def hops(history: WorkflowHistory, asked_at: float, told_at: float) -> Hops:
    """The hops of the last signal in ``history``; ``asked_at`` and ``told_at`` are wall
    clock seconds (the server stamps its events with the same machine's clock)."""
    events = list(history.events)
    signalled = max(
        i
        for i, e in enumerate(events)
        if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    )

    def first(kind: int, after: int) -> tuple[int, float]:
        for i in range(after + 1, len(events)):
            if events[i].event_type == kind:
                return i, events[i].event_time.ToMicroseconds() / 1e6
        raise ValueError(f"no event of type {kind} after #{after}")

    signal_at = events[signalled].event_time.ToMicroseconds() / 1e6
    i, task_started = first(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, signalled)
    i, task_done = first(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, i)
    i, scheduled = first(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, i)
    j, started = first(EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, i)
    j, written = first(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, i)
    _, ended = first(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, j)
    return Hops(
        tuple(
            (b - a) * 1e3
            for a, b in (
                (asked_at, signal_at),
                (signal_at, task_started),
                (task_started, task_done),
                (scheduled, started),  # scheduled as the task completed
                (started, written),
                (written, ended),
                (ended, told_at),
            )
        )
    )


def median_hops(samples: Sequence[Hops]) -> Hops:
    """Each hop's median over ``samples``."""
    return Hops(tuple(statistics.median(s.ms[k] for s in samples) for k in range(len(HOPS))))
