"""What a queue item is, what it allows, and how urgent it is."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field

from domain.organization.contracts import Frozen, UtcInstant
from domain.organization.visibility import may_read
from domain.words import Severity


class ItemKind(StrEnum):
    """What waits for a human. Sources that do not exist yet have their kind already, so
    that adding them changes no consumer of the queue."""

    HELD_INTENT = "held_intent"
    STANDING_HOLD = "standing_hold"
    COMMITMENT = "commitment"
    FAILED_RUN = "failed_run"
    FINDING = "finding"
    DRIFT_FINDING = "drift_finding"
    PROCESS_OFFER = "process_offer"
    AGENT_REPLY = "agent_reply"


class ActionKind(StrEnum):
    """What a human may do with an item."""

    APPROVE = "approve"
    ESTABLISH = "establish"
    """Approve, and establish where it goes (its new recipient, payee or bank details)
    for its projects: the founder's, on a hold for a new destination."""
    DENY = "deny"
    CONFIRM = "confirm"
    REJECT = "reject"
    RESOLVE = "resolve"
    RETRY = "retry"
    RELEASE = "release"
    ANSWER = "answer"


class ItemAction(Frozen):
    """One action an item allows, and the endpoint that takes it (brokered and audited
    there, never here)."""

    kind: ActionKind
    method: Literal["POST"] = "POST"
    path: str
    """The HTTP path, e.g. ``/v1/intents/{id}/approve``."""
    cli: str = ""
    """The same action on the command line."""
    needs: tuple[str, ...] = ()
    """Fields the request body must carry (a rejection says why: ``reason``)."""


class Evidence(Frozen):
    """One piece of what an item rests on: a reason, a rule, a record."""

    label: str
    """What it is: ``reason``, ``release``, ``rule``, ``refused review``, ``source``…"""
    detail: str
    ref: str | None = None
    """Where to find it: an audit sequence (``audit#12``), an intent or a run id."""
    severity: Severity | None = None
    """For a cause of a hold: how much it should worry the owner (the console colours
    it); None for the rest."""


class QueueItem(Frozen):
    """Something that needs a human, with what it rests on and what may be done."""

    kind: ItemKind
    subject_id: str
    """The intent, commitment, run or finding this item is about."""
    title: str
    waiting_since: UtcInstant
    """When it started waiting for a human."""
    due: UtcInstant | None = None
    """When it stops waiting on its own (a hold expires): urgency grows towards it."""
    money_cents: int | None = Field(default=None, ge=0)
    """Money at stake (a held payment's amount)."""
    reach: tuple[str, ...] = ()
    """The projects it concerns: only a reader of all of them sees the item (none: it
    concerns the whole organization, and every member sees it)."""
    evidence: tuple[Evidence, ...] = ()
    actions: tuple[ItemAction, ...] = ()
    hold_seq: int | None = None
    """For a held intent: the audit entry of the hold shown, which an approve or deny from
    this item names (so it answers this hold and no later one)."""
    urgency: int = 0
    """Set by :func:`rank`; higher is more urgent."""

    @property
    def key(self) -> str:
        """Unique across the queue: kind and subject."""
        return f"{self.kind.value}:{self.subject_id}"


class WithheldItem(Frozen):
    """An item on projects the reader may not read: that it exists, nothing of it."""

    kind: Literal["withheld"] = "withheld"
    reason: str = "it concerns projects outside yours"


BASE: dict[ItemKind, int] = {
    ItemKind.HELD_INTENT: 500,
    ItemKind.STANDING_HOLD: 450,
    ItemKind.FINDING: 400,
    ItemKind.DRIFT_FINDING: 400,
    ItemKind.FAILED_RUN: 300,
    ItemKind.AGENT_REPLY: 300,
    ItemKind.COMMITMENT: 200,
    ItemKind.PROCESS_OFFER: 100,
}
"""Where each kind starts: a hold blocks work now (and may expire); a standing hold makes
every payment on its projects wait for a human; a finding says the
foundation may be wrong; a failed run did nothing; a commitment binds nothing until
confirmed; an offer is an improvement."""
PRESSURE = 200
"""The most that time adds: a hold at its expiry gains all of it."""
AGE_STEP, AGE_DAYS = 10, 14
"""Without a deadline, each day waited adds 10, for at most 14 days."""
STALE_DAYS, STALE = 7, 100
"""Waiting longer than 7 days (the heartbeat's pending rule) adds 100 more."""
MONEY_STEP, MONEY_MOST = 20, 200
"""Each tenfold of dollars at stake adds 20, at most 200 ($10^10)."""


def time_pressure(waiting_since: datetime, due: datetime | None, now: datetime) -> int:
    """How much waiting adds: the elapsed share of the time to ``due``, or the days
    waited when nothing is due. Never negative, never more than :data:`PRESSURE` (plus
    :data:`STALE` for an item pending over a week)."""
    waited = max((now - waiting_since).total_seconds(), 0.0)
    if due is not None:
        span = (due - waiting_since).total_seconds()
        share = 1.0 if span <= 0 else min(waited / span, 1.0)
        return int(PRESSURE * share)
    days = waited / 86_400
    return min(int(days), AGE_DAYS) * AGE_STEP + (STALE if days > STALE_DAYS else 0)


def money_weight(cents: int | None) -> int:
    """How much money at stake adds: logarithmic in dollars, capped."""
    if not cents:
        return 0
    return min(int(MONEY_STEP * math.log10(1 + cents / 100)), MONEY_MOST)


def urgency(item: QueueItem, now: datetime) -> int:
    """The item's urgency at ``now``: its kind, the time pressure and the money at stake."""
    return (
        BASE[item.kind]
        + time_pressure(item.waiting_since, item.due, now)
        + money_weight(item.money_cents)
    )


def rank(items: Iterable[QueueItem], now: datetime) -> list[QueueItem]:
    """The items with their urgency, most urgent first. Ties go to the one waiting
    longest, then by key, so that the order never depends on the order given."""
    scored = [i.model_copy(update={"urgency": urgency(i, now)}) for i in items]
    return sorted(scored, key=lambda i: (-i.urgency, i.waiting_since, i.key))


def for_reader(
    ranked: Sequence[QueueItem], readable: frozenset[str] | None
) -> list[QueueItem | WithheldItem]:
    """``ranked`` as a reader of ``readable`` projects (None: all) sees it: the items on
    its projects in their order, then one :class:`WithheldItem` per other item. Withheld
    items come last, for their place in the ranking would tell their urgency."""
    visible: list[QueueItem | WithheldItem] = [
        item for item in ranked if may_read(readable, item.reach)
    ]
    hidden = len(ranked) - len(visible)
    return [*visible, *(WithheldItem() for _ in range(hidden))]
