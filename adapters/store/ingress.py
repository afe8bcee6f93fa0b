"""What the front door remembers in the database, so that every API process agrees:
the nonces it has seen (a repeat is a replay), the requests and model spend counted
against budget ceilings, and the requests it refused."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from adapters.store.session import Database
from adapters.store.tables import IngressNonceRow, IngressRefusalRow, IngressUsageRow, table_of
from domain.ingress import BudgetCeilings, Refusal, RefusedRequest, Unauthenticated

_nonces, _usage = table_of(IngressNonceRow), table_of(IngressUsageRow)
_refusals = table_of(IngressRefusalRow)
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
    """Requests and reserved model spend, per principal and per organization, per period."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def charge(
        self,
        org_id: str,
        principal_id: str,
        now: datetime,
        ceilings: BudgetCeilings,
        *,
        requests: int = 1,
        model_cents: int = 0,
    ) -> None:
        """Count ``requests`` of ``principal_id`` (and reserve ``model_cents``) in the
        period of ``now``, or refuse it (:class:`Unauthenticated`, over budget) when a
        ceiling would be passed; nothing is counted then. Concurrent charges never pass a
        ceiling: each is a conditional increment, and a refusal rolls back both."""
        period = ceilings.period_of(now)
        with self._db.transaction() as s:
            c = s.connection()
            for who, most, cents in (
                (principal_id, ceilings.requests_per_principal, ceilings.model_cents_per_principal),
                (ORG_WIDE, ceilings.requests_per_org, ceilings.model_cents_per_org),
            ):
                whose = "the organization's" if who == ORG_WIDE else "this principal's"
                if model_cents > cents:
                    raise Unauthenticated(
                        Refusal.OVER_BUDGET,
                        f"a run reserving {model_cents} cents of model spend exceeds "
                        f"{whose} {cents} cents per {ceilings.period}",
                    )
                if not self._increment(
                    c, org_id, who, period, (requests, most), (model_cents, cents)
                ):
                    raise Unauthenticated(
                        Refusal.OVER_BUDGET,
                        f"{whose} budget for {period} is spent "
                        f"({most} requests, {cents} cents of model spend)",
                    )

    @staticmethod
    def _increment(
        c: Connection,
        org_id: str,
        who: str,
        period: str,
        requests: tuple[int, int],
        cents: tuple[int, int],
    ) -> bool:
        """Add ``requests[0]`` requests and ``cents[0]`` cents for ``who`` unless that
        passes a ceiling (``requests[1]``, ``cents[1]``); whether it was added."""
        (count, most), (spend, ceiling) = requests, cents
        if count > most or spend > ceiling:
            return False
        key = (
            (_usage.c.org_id == org_id)
            & (_usage.c.principal_id == who)
            & (_usage.c.period == period)
        )
        for _ in range(2):
            done = c.execute(
                update(_usage)
                .where(
                    key,
                    _usage.c.requests + count <= most,
                    _usage.c.model_cents + spend <= ceiling,
                )
                .values(
                    requests=_usage.c.requests + count,
                    model_cents=_usage.c.model_cents + spend,
                )
            )
            if done.rowcount:
                return True
            try:
                with c.begin_nested():
                    c.execute(
                        insert(_usage),
                        [
                            {
                                "org_id": org_id,
                                "principal_id": who,
                                "period": period,
                                "requests": count,
                                "model_cents": spend,
                            }
                        ],
                    )
                return True
            except IntegrityError:
                continue  # the row exists (at its ceiling, or just made by another): update
        return False


class Refusals:
    """The log of refused requests."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def refused(self, request: RefusedRequest) -> None:
        with self._db.transaction() as s:
            s.connection().execute(
                insert(_refusals),
                [
                    {
                        "at": request.at,
                        "channel": request.channel,
                        "reason": request.reason.value,
                        "detail": request.detail[:500],
                        "path": request.path[:500],
                        "org_id": request.org_id,
                        "principal_id": request.principal_id,
                    }
                ],
            )

    def refusals(self, limit: int = 100, org_id: str | None = None) -> list[RefusedRequest]:
        query = select(_refusals).order_by(_refusals.c.id.desc()).limit(limit)
        if org_id is not None:
            query = query.where(_refusals.c.org_id == org_id)
        with self._db.transaction() as s:
            rows = s.connection().execute(query)
            return [
                RefusedRequest(
                    at=r.at,
                    channel=r.channel,
                    reason=Refusal(r.reason),
                    detail=r.detail,
                    path=r.path,
                    org_id=r.org_id,
                    principal_id=r.principal_id,
                )
                for r in rows
            ]


class SqlFrontDoor(Nonces, Budgets, Refusals):
    """Everything the front door keeps, on one database (:class:`FrontDoor`). Every ten
    minutes of use, the first nonce it sees sweeps out the expired ones."""

    SWEEP_EVERY = timedelta(minutes=10)

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self._swept: datetime | None = None

    def first_use(self, channel: str, nonce: str, expires_at: datetime, now: datetime) -> None:
        if self._swept is None or now - self._swept >= self.SWEEP_EVERY:
            self._swept = now
            self.forget_expired(now)
        super().first_use(channel, nonce, expires_at, now)
