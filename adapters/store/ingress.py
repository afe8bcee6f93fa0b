"""What the front door remembers in the database, so that every API process agrees:
the nonces it has seen (a repeat is a replay) and the requests counted against budget
ceilings."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, delete, insert, update
from sqlalchemy.exc import IntegrityError

from adapters.store.session import Database
from adapters.store.tables import IngressNonceRow, IngressUsageRow, table_of
from domain.ingress import Refusal, Unauthenticated

_nonces, _usage = table_of(IngressNonceRow), table_of(IngressUsageRow)
ORG_WIDE = "*"
"""The usage row of the whole organization."""


class Nonces:
    """Nonces seen, each until it expires."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def first_use(self, channel: str, nonce: str, expires_at: datetime, now: datetime) -> None:
        """Remember ``nonce`` until ``expires_at``; :class:`Unauthenticated` (replayed)
        when it was seen before and has not expired. Of two processes that race with one
        nonce, exactly one gets through (the primary key decides)."""
        with self._db.transaction() as s:
            c = s.connection()
            # what expired can never be replayed (its request is stale): forget it
            c.execute(
                delete(_nonces).where(
                    _nonces.c.channel == channel,
                    _nonces.c.nonce == nonce,
                    _nonces.c.expires_at < now,
                )
            )
            try:
                with c.begin_nested():
                    c.execute(
                        insert(_nonces),
                        [
                            {
                                "channel": channel,
                                "nonce": nonce,
                                "expires_at": expires_at,
                                "seen_at": now,
                            }
                        ],
                    )
            except IntegrityError as exc:
                raise Unauthenticated(
                    Refusal.REPLAYED, f"this {channel} request was seen before"
                ) from exc

    def forget_expired(self, now: datetime) -> int:
        """Drop every nonce past its window; how many."""
        with self._db.transaction() as s:
            done = s.connection().execute(delete(_nonces).where(_nonces.c.expires_at < now))
            return int(done.rowcount or 0)


class Budgets:
    """Requests counted per principal and per organization, per period."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def charge(
        self, org_id: str, principal_id: str, period: str, per_principal: int, per_org: int
    ) -> None:
        """Count one request of ``principal_id`` in ``period``, or refuse it
        (:class:`Unauthenticated`, over budget) when either ceiling is reached; nothing
        is counted then. Concurrent charges never pass a ceiling: each is a conditional
        increment, and a refusal rolls back both."""
        with self._db.transaction() as s:
            c = s.connection()
            for who, ceiling in ((principal_id, per_principal), (ORG_WIDE, per_org)):
                if not self._increment(c, org_id, who, period, ceiling):
                    whose = "the organization's" if who == ORG_WIDE else "this principal's"
                    raise Unauthenticated(
                        Refusal.OVER_BUDGET, f"{whose} {ceiling} requests for {period} are used"
                    )

    @staticmethod
    def _increment(c: Connection, org_id: str, who: str, period: str, ceiling: int) -> bool:
        """Count one more for ``who`` unless it is at ``ceiling``; whether it was."""
        key = (
            (_usage.c.org_id == org_id)
            & (_usage.c.principal_id == who)
            & (_usage.c.period == period)
        )
        for _ in range(2):
            done = c.execute(
                update(_usage)
                .where(key, _usage.c.requests < ceiling)
                .values(requests=_usage.c.requests + 1)
            )
            if done.rowcount:
                return True
            if ceiling < 1:
                return False
            try:
                with c.begin_nested():
                    c.execute(
                        insert(_usage),
                        [{"org_id": org_id, "principal_id": who, "period": period, "requests": 1}],
                    )
                return True
            except IntegrityError:
                continue  # the row exists (at its ceiling, or just made by another): update
        return False
