"""The email outbox as the mail relay reads and updates it."""

from __future__ import annotations

from datetime import datetime

from adapters.store import leases
from adapters.store.audit import ChainWriter, lock
from adapters.store.session import Database
from adapters.store.tables import EmailRow
from domain.audit.chain import ChainKeys
from domain.relay import (
    Attempt,
    OutboundEmail,
    attempt_draft,
    state_after,
)


class SqlOutbox:
    """:class:`~domain.relay.Outbox` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

    def claim(self, limit: int, now: datetime) -> list[OutboundEmail]:
        with self._db.transaction() as s:
            return [
                OutboundEmail(
                    intent_id=r.intent_id,
                    org_id=r.org_id,
                    to=r.to,
                    subject=r.subject,
                    body=r.body,
                    attempts=r.attempts,
                )
                for r in leases.claim(s, EmailRow, "intent_id", limit, now)
            ]

    def record(self, attempt: Attempt, now: datetime) -> None:
        draft = attempt_draft(attempt)
        with self._db.transaction() as s:
            # Under the organization's lock; a recording retried after a crash finds its
            # entry (same key), and the row was updated with it.
            writer = ChainWriter(s, attempt.org_id, self._keys, lock(s, attempt.org_id))
            if writer.recorded(draft.event_key) is not None:
                return
            writer.append(draft, now)
            writer.flush()
            leases.settle(
                s,
                EmailRow,
                "intent_id",
                attempt.intent_id,
                state_after(attempt.outcome),
                attempt.attempt,
                attempt.code,
                attempt.detail,
                now,
            )
