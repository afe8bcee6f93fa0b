"""The needs-you queue and what is done from it, one module a job.

Reads: :mod:`~usecases.needs_you.queue` (the queue as one reader sees it, built from the
item sources in :mod:`~usecases.needs_you.sources` and :mod:`~usecases.needs_you.findings`),
:mod:`~usecases.needs_you.failures` (the failed runs) and
:mod:`~usecases.needs_you.autonomy` (the autonomy metrics). Commands:
:mod:`~usecases.needs_you.retry` (retrying a failed run) and
:mod:`~usecases.needs_you.answer` (answering a run's question).
"""

from usecases.needs_you.answer import MAX_ANSWER, RunAnswered, answer_run, answered_task
from usecases.needs_you.autonomy import metrics
from usecases.needs_you.failures import FailedRunView, failed_runs
from usecases.needs_you.queue import (
    NOT_WIRED,
    SOURCES,
    NeedsYou,
    SourceStatus,
    held_item,
    needs_you,
)
from usecases.needs_you.retry import ENDED_BADLY, RunRetried, retry_run
from usecases.needs_you.sources import ItemSource, QueueContext

__all__ = [
    "ENDED_BADLY",
    "MAX_ANSWER",
    "NOT_WIRED",
    "SOURCES",
    "FailedRunView",
    "ItemSource",
    "NeedsYou",
    "QueueContext",
    "RunAnswered",
    "RunRetried",
    "SourceStatus",
    "answer_run",
    "held_item",
    "answered_task",
    "failed_runs",
    "metrics",
    "needs_you",
    "retry_run",
]
