"""What has been spent, as the broker counts it: one rule for the live decision and for
the counterfactual's replay, so the two can never disagree about a cap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from domain.governance.addresses import fold_name
from domain.organization.contracts import Commitment, SpendCap, ToolSpec

SPLIT_WINDOW = timedelta(days=7)
"""How far back what one payee was paid is added up against a tool's approval threshold:
payments that each stay under it but together pass it within this window are held."""


class Spending(NamedTuple):
    """An intent that counts against budgets and caps (allowed or approved, moving
    money): its run, reach, amount, when it was recorded (UTC) and who it pays."""

    id: str
    run_id: str
    reach: frozenset[str]
    spend_cents: int
    created_at: datetime
    payee: str = ""
    """:func:`payee_of` its payload; empty for a tool that names none."""
    paid_at: datetime | None = None
    """When it was let through (its allow, or a human's approval, which may come days
    after it was proposed); None: when it was recorded."""


def payee_of(tool: ToolSpec | None, payload: Mapping[str, object]) -> str:
    """Who ``payload`` pays, as its name compares: compatibility forms folded (NFKC),
    invisible format characters and punctuation dropped, spacing and case ignored. Empty
    when the tool names no payee (or the payload names none)."""
    if tool is None or tool.payee_param is None:
        return ""
    payee = payload.get(tool.payee_param)
    return fold_name(payee) if isinstance(payee, str) else ""


def paid_to(spending: Iterable[Spending], payee: str, now: datetime) -> tuple[int, tuple[str, ...]]:
    """What ``payee`` was paid (allowed or approved) since :data:`SPLIT_WINDOW` before
    ``now``, counted from when each payment was let through, and by which intents,
    oldest first. A payment recorded after ``now`` counts
    too: concurrent decisions each read the clock before they take the organization's
    lock, so the one decided second may have the earlier ``now``."""
    if not payee:
        return 0, ()
    since = now - SPLIT_WINDOW
    found = sorted(
        (s for s in spending if s.payee == payee and since <= (s.paid_at or s.created_at)),
        key=lambda s: (s.paid_at or s.created_at, s.id),
    )
    return sum(s.spend_cents for s in found), tuple(s.id for s in found)


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
