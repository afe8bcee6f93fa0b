"""Claiming outbox rows under a lease: the mail relay's emails and the notices.

A row is free when it waits (``pending``) or when the pass that claimed it (``sending``)
let its lease run out (it died). Claiming is conditional, so of two passes reaching one
row, one claims it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from domain.relay import LEASE, DeliveryState

Row = TypeVar("Row")


def claim(s: Session, table: type[Row], key: str, limit: int, now: datetime) -> list[Row]:
    """Up to ``limit`` free rows of ``table`` (oldest first, then by ``key``), each now
    claimed (``sending`` from ``now``)."""
    t: Any = table
    free = or_(
        t.delivery_state == DeliveryState.PENDING.value,
        and_(t.delivery_state == DeliveryState.SENDING.value, t.claimed_at < now - LEASE),
    )
    rows = s.execute(
        select(table).where(free).order_by(t.created_at, getattr(t, key)).limit(limit)
    ).scalars()
    claimed: list[Row] = []
    for r in list(rows):
        got = s.execute(
            update(table)
            .where(getattr(t, key) == getattr(r, key), free)
            .values(delivery_state=DeliveryState.SENDING.value, claimed_at=now)
        )
        if got.rowcount == 1:  # type: ignore[attr-defined]
            claimed.append(r)
    return claimed


def settle(
    s: Session,
    table: type[Row],
    key: str,
    value: str,
    state: DeliveryState,
    attempt: int,
    code: int | None,
    detail: str,
    now: datetime,
) -> None:
    """Keep an attempt's outcome on the row it claimed (only while it is still the
    claimed one: ``sending``)."""
    t: Any = table
    s.execute(
        update(table)
        .where(getattr(t, key) == value, t.delivery_state == DeliveryState.SENDING.value)
        .values(
            delivery_state=state.value,
            attempts=attempt,
            last_code=code,
            last_detail=detail[:200],
            delivered_at=now if state is DeliveryState.DELIVERED else None,
        )
    )
