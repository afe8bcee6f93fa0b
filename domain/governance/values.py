"""The values the broker and its ports share.

A unit of work loads a :class:`BrokerSnapshot`, the broker turns it into a
:class:`Verdict`, and :func:`effects_of` says what the verdict does to stored state
(the intent's status, its hold, its operation key), so that an adapter records a
decision without knowing what decisions mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from domain.governance.destinations import Counterparties, Source
from domain.governance.index import PolicyIndex
from domain.governance.intents import BrokerMode, Decision, Intent, Outcome
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Frozen,
    Principal,
    Staffing,
    StandingHold,
    ToolSpec,
)
from domain.tools import REGISTRY

__all__ = [
    "BrokerMode",
    "BrokerSnapshot",
    "Effects",
    "StoredIntent",
    "HoldState",
    "InFlight",
    "ReviewResult",
    "Verdict",
    "effects_of",
    "in_flight_by_key",
]


class InFlight(Frozen):
    """Another intent holding an operation key: a write not yet done."""

    key: str
    intent_id: str
    status: Outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerSnapshot:
    """Everything the broker reads, loaded at one moment, inside the decision's transaction.

    A plain frozen dataclass, not a validated model: it is built for every decision from
    values that were validated when they were stored, and never leaves the process.
    """

    now: datetime
    principal: Principal | None
    definition: AgentDefinition | None
    charter: Charter | None
    projects: frozenset[str]
    staffing: tuple[Staffing, ...]
    """The acting principal's staffing rows (current or not; the stage filters by time)."""
    project_names: Mapping[str, str] = field(default_factory=dict)
    """Each project's name, by slug: reasons name projects as their owner does (a slug
    missing here is said as it is)."""
    requester: Principal | None = None
    """The human the intent's run acts for (``Intent.requested_by``), None when unknown,
    when a schedule asked, or when nobody did."""
    requester_staffing: tuple[Staffing, ...] = ()
    """The requester's staffing rows (current or not)."""
    barriers: tuple[Barrier, ...] = ()
    commitments: tuple[Commitment, ...] = ()
    index: PolicyIndex | None = None
    """``barriers`` and ``commitments`` indexed by project, when the caller has it built
    (the store keeps one per configuration); otherwise the stages build it."""
    records: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Projects of each referenced record, by reference; missing means unknown."""
    run_spent_cents: int = 0
    """Spend of this run's intents already allowed or approved."""
    committed_spend: Mapping[str, int] = field(default_factory=dict)
    """Spend already counted against each binding commitment, by commitment id."""
    paid_to_payee: int = 0
    """What the intent's payee was paid within the split window (allowed or approved,
    this intent aside): :func:`~domain.governance.spend.paid_to`."""
    payee_payments: tuple[str, ...] = ()
    """The intents that paid it."""
    standing_holds: tuple[StandingHold, ...] = ()
    """The organization's open standing holds (read for an intent that moves money)."""
    in_flight: Mapping[str, tuple[InFlight, ...]] = field(default_factory=dict)
    """Intents holding an operation key, by key: at least those on this intent's key and
    its operation's wildcard key, and (for an intent that names no resource) every key of
    the operation. More is harmless: the stage looks up only what it collides with."""
    completed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Operation keys of non-repeatable writes already done (a paid invoice), and the
    intents that did them."""
    counterparties: Counterparties | None = None
    """The destinations established for the projects and the firm's people, read for an
    intent whose tool sends or pays (:mod:`domain.governance.destinations`); None: nothing is
    established, and every destination is new."""
    sources: tuple[Source, ...] = ()
    """The records the intent's run read (``Intent.read_refs``), each marked outside or
    not, read for an intent whose tool sends or pays: where a new destination came from."""
    run_recipients: frozenset[str] = frozenset()
    """Addresses the run's other messages went to or wait to go to (let through or
    held), read for an intent whose tool sends: how many the run writes to."""
    tools: Mapping[str, ToolSpec] = field(default_factory=lambda: REGISTRY)

    def policy(self) -> PolicyIndex:
        """The barriers and spend caps indexed by project."""
        if self.index is not None:
            return self.index
        return PolicyIndex.of(self.barriers, self.commitments)


def in_flight_by_key(claims: Iterable[InFlight]) -> dict[str, tuple[InFlight, ...]]:
    """``claims`` grouped by key, each group in the order given."""
    grouped: dict[str, list[InFlight]] = {}
    for claim in claims:
        grouped.setdefault(claim.key, []).append(claim)
    return {key: tuple(group) for key, group in grouped.items()}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The broker's decision and the operation key the intent now holds, if any."""

    decision: Decision
    claim: str | None = None


class HoldState(StrEnum):
    """Where a hold stands."""

    OPEN = "open"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    RELEASED = "released"
    """Its reasons went away by themselves (the intents it collided with completed)."""
    REJECTED = "rejected"
    """Decided again by the broker, which now rejects it."""


class Effects(Frozen):
    """What recording a decision does to stored state besides the decision itself."""

    status: Outcome
    """The intent's new status."""
    claim: str | None = None
    """An operation key the intent now holds."""
    release: bool = False
    """Release every operation key the intent holds."""
    hold: HoldState | None = None
    """The intent's hold: opened (OPEN) or resolved to this state."""
    release_conditions: tuple[str, ...] = ()
    """For an open hold: what would release it."""
    resolved_by: str | None = None


def effects_of(
    decision: Decision, claim: str | None = None, by: str | None = None, held: bool = False
) -> Effects:
    """The effects of recording ``decision``, which registers the key ``claim``, is made
    by ``by``, and (``held``) re-decides an intent whose hold is open."""
    match decision.outcome:
        case Outcome.ALLOW:
            hold = HoldState.RELEASED if held else None
            return Effects(status=Outcome.ALLOW, claim=claim, hold=hold, resolved_by=by)
        case Outcome.HOLD:
            return Effects(
                status=Outcome.HOLD,
                claim=claim,
                hold=HoldState.OPEN,
                release_conditions=decision.release,
            )
        case Outcome.APPROVED:
            return Effects(
                status=Outcome.APPROVED, claim=claim, hold=HoldState.APPROVED, resolved_by=by
            )
        case Outcome.DENIED:
            return Effects(
                status=Outcome.DENIED, release=True, hold=HoldState.DENIED, resolved_by=by
            )
        case Outcome.EXPIRED:
            return Effects(status=Outcome.EXPIRED, release=True, hold=HoldState.EXPIRED)
        case _:
            hold = HoldState.REJECTED if held else None
            return Effects(status=Outcome.REJECT, release=True, hold=hold)


class StoredIntent(Frozen):
    """An intent as recorded: what a review, a re-check or a close works from."""

    intent: Intent
    run_id: str
    status: Outcome
    dispatched: bool
    hold: HoldState | None
    """None when the intent was never held."""
    latest: Decision
    reach: tuple[str, ...]

    @property
    def open(self) -> bool:
        """True while it may still be dispatched or decided: an open hold, or an allow
        or approval whose write has not happened."""
        return self.hold is HoldState.OPEN or (self.status.may_dispatch and not self.dispatched)


class ReviewResult(Frozen):
    """The broker's re-check of a human's approve/deny on a hold."""

    accepted: bool
    outcome: Outcome | None
    """APPROVED or DENIED when accepted; None when the request is refused."""
    rule: str
    reason: str
