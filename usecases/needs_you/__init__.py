"""The needs-you queue and what is done from it.

:mod:`~usecases.needs_you.queue` builds the queue for one reader.
"""

from usecases.needs_you.queue import (
    ENDED_BADLY,
    MAX_ANSWER,
    NOT_WIRED,
    SOURCES,
    FailedRunView,
    ItemSource,
    NeedsYou,
    QueueContext,
    RunAnswered,
    RunRetried,
    SourceStatus,
    answer_run,
    answered_task,
    failed_runs,
    metrics,
    needs_you,
    retry_run,
)

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
    "answered_task",
    "failed_runs",
    "metrics",
    "needs_you",
    "retry_run",
]
