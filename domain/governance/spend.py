"""What has been spent, as the broker counts it: one rule for the live decision and for
the counterfactual's replay, so the two can never disagree about a cap."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import NamedTuple

from domain.organization.contracts import Commitment, SpendCap


class Spending(NamedTuple):
    """An intent that counts against budgets and caps (allowed or approved, moving
    money): its run, reach, amount and when it was recorded (UTC)."""

    id: str
    run_id: str
    reach: frozenset[str]
    spend_cents: int
    created_at: datetime


def counted(
    caps: Iterable[Commitment], spending: Sequence[Spending], run_id: str, now: datetime
) -> tuple[int, dict[str, int]]:
    """What ``run_id`` has spent, and what each spend cap among ``caps`` that binds at
    ``now`` has committed: the spending it covers (by reach) recorded inside its validity
    window. ``caps`` may hold other commitments; only binding spend caps are counted."""
    committed: dict[str, int] = {}
    for cap in caps:
        if isinstance(cap.constraint, SpendCap) and cap.binds(now):
            committed[cap.id] = sum(
                s.spend_cents
                for s in spending
                if cap.covers(s.reach)
                and cap.valid_from <= s.created_at
                and (cap.valid_until is None or s.created_at < cap.valid_until)
            )
    return sum(s.spend_cents for s in spending if s.run_id == run_id), committed
