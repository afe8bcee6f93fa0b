"""How the workflows call their activities: the heartbeat timeout and the retry policies
that several workflows share, and how an activity's failure reads on the record.

A workflow's own policies (the relay's, a deliberation's, a work graph's, an extraction's)
stay beside it. The error types a retry cannot cure are :class:`ErrorType`'s, the names
the activities raise them under.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from domain.runs.failures import ErrorType

HEARTBEAT = timedelta(seconds=2)
"""Regular activities heartbeat twice a second while they work: a worker that dies
mid-step is noticed within two seconds, and the step runs again on another worker."""

STEP_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=500),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=10),
    maximum_attempts=8,
    non_retryable_error_types=[ErrorType.POLICY_VIOLATION, ErrorType.MODEL_UNAVAILABLE],
)
"""A step of a run, a heartbeat or a learning pass: retried a few times, unless the
agent may not act (a retry is refused the same way) or the model cannot answer."""
BROKER_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    maximum_interval=timedelta(seconds=5),
    maximum_attempts=10,
)
"""A broker decision, review or re-check (local activities): fast, bounded retries."""
CLEANUP_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=0,
)
"""Closing what a run leaves open is retried until the database answers: a run that gave
up here would strand its holds and operation keys."""
DISPATCH_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    maximum_attempts=10,
    non_retryable_error_types=[ErrorType.BROKER_POISONED, ErrorType.DISPATCH_REFUSED],
)
"""About four minutes of retries. Bounded: a write that never succeeds is recorded as
failed and its operation key released, instead of holding the key for ever."""


def describe(err: BaseException) -> str:
    """The message an operator needs: an activity's own failure, not its wrapper."""
    if isinstance(err, ActivityError) and isinstance(err.cause, ApplicationError):
        return err.cause.message
    if isinstance(err, ActivityError) and err.cause is not None:
        return str(err.cause)
    return f"{type(err).__name__}: {err}"
