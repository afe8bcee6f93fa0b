"""The mail relay's one activity: deliver what the outbox holds, recording each attempt."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from temporalio import activity

from activities.off_loop import in_thread
from activities.tracing import span
from domain.relay import (
    MAX_ATTEMPTS,
    Attempt,
    Mailer,
    Outbox,
    RelayInput,
    RelayReport,
    outcome_of,
)


class RelayActivities:
    """Reads the outbox, hands each pending email to the mailer, records the outcome."""

    def __init__(
        self,
        outbox: Outbox,
        mailer: Mailer | None,
        clock: Callable[[], datetime],
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        self._outbox = outbox
        self._mailer = mailer
        self._clock = clock
        self._max_attempts = max_attempts

    def _deliver(self, request: RelayInput) -> RelayReport:
        if self._mailer is None:  # no SMTP server configured: the outbox is the record
            return RelayReport()
        done: list[Attempt] = []
        for email in self._outbox.claim(request.limit, self._clock()):
            with span("relay", org=email.org_id, intent=email.intent_id, tool="email.send"):
                code, words = self._mailer.send(email)
            number = email.attempts + 1
            attempt = Attempt(
                intent_id=email.intent_id,
                org_id=email.org_id,
                attempt=number,
                outcome=outcome_of(code, number, self._max_attempts),
                code=code,
                detail=words,
            )
            self._outbox.record(attempt, self._clock())
            done.append(attempt)
        return RelayReport(attempts=tuple(done))

    @activity.defn(name="relay_deliver")
    async def deliver(self, request: RelayInput) -> RelayReport:
        """One pass over the outbox: delivered, bounced, or retried at the next pass."""
        return await in_thread(self._deliver, request)
