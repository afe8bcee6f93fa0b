"""Autonomy metrics: how much work the fleet did without a human, and how long humans
took when it needed one. Computed from the chain's story; a metric whose source does not
exist yet says so, and is never a made-up number."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

from pydantic import Field

from domain.governance.intents import Outcome
from domain.needs_you.chain import ChainStory
from domain.organization.contracts import Frozen


class NotAvailable(Frozen):
    """A metric that cannot be computed yet, and why."""

    available: bool = False
    reason: str


class ResolutionTimes(Frozen):
    """How long things waited for a human before they were resolved."""

    resolved: int = Field(ge=0)
    open: int = Field(ge=0)
    by_outcome: dict[str, int] = Field(default_factory=dict)
    median_seconds: float | None = None
    p90_seconds: float | None = None
    mean_seconds: float | None = None
    max_seconds: float | None = None
    oldest_open_seconds: float | None = None
    """How long the oldest thing still open has waited."""


class WorkWithoutHuman(Frozen):
    """Work the fleet completed with no human in the loop."""

    runs: int = Field(ge=0)
    """Runs whose every intent was allowed and dispatched with no hold."""
    runs_with_intents: int = Field(ge=0)
    intents: int = Field(ge=0)
    """Intents allowed at once and dispatched."""
    intents_dispatched: int = Field(ge=0)
    """Every intent dispatched, with or without a human."""
    share: float | None = None
    """``runs / runs_with_intents``; None when no run proposed anything."""


class Escalations(Frozen):
    """Decisions the broker handed to a human."""

    held: int = Field(ge=0)
    """Intents held at least once."""
    decided: int = Field(ge=0)
    """Intents decided at all."""
    share: float | None = None


class AutonomyMetrics(Frozen):
    """What ``GET /v1/orgs/{org}/metrics`` answers."""

    work_without_human: WorkWithoutHuman
    escalated: Escalations
    blocked_by_stage: dict[str, int]
    """Rejections by the stage that made them (the broker's, and runs refused at resolve
    or by the parser)."""
    hold_resolution: ResolutionTimes
    finding_resolution: ResolutionTimes | NotAvailable
    """Time from a finding's flagging or filing (drift, or the heartbeat's) to its resolution."""
    repeated_process_precision: ProcessPrecision | NotAvailable


class ProcessPrecision(Frozen):
    """How many of the repeated processes the fleet offered a human took as a playbook.

    Nothing dismisses an offer yet: the only human decision on one is to confirm it. So
    an offer counts as *offered* once it has at least :data:`REPEATED` episodes (the
    fleet saw the process repeat), or once a human confirmed it; precision is
    ``confirmed / offered``. An offer still open counts against it, as a miss."""

    confirmed: int = Field(ge=0)
    offered: int = Field(ge=1)
    share: float = Field(ge=0.0, le=1.0)


def _percentile(ordered: Sequence[float], share: float) -> float:
    """The nearest-rank percentile of sorted values."""
    index = max(math.ceil(share * len(ordered)) - 1, 0)
    return ordered[index]


def resolution_times(
    spans: Sequence[tuple[datetime, datetime | None, str | None]], now: datetime
) -> ResolutionTimes:
    """Statistics of ``(opened, resolved or None, outcome)`` spans at ``now``."""
    done = sorted(
        max((end - start).total_seconds(), 0.0) for start, end, _ in spans if end is not None
    )
    waiting = [max((now - start).total_seconds(), 0.0) for start, end, _ in spans if end is None]
    outcomes = Counter(outcome for _, end, outcome in spans if end is not None and outcome)
    return ResolutionTimes(
        resolved=len(done),
        open=len(waiting),
        by_outcome=dict(sorted(outcomes.items())),
        median_seconds=_percentile(done, 0.5) if done else None,
        p90_seconds=_percentile(done, 0.9) if done else None,
        mean_seconds=sum(done) / len(done) if done else None,
        max_seconds=done[-1] if done else None,
        oldest_open_seconds=max(waiting) if waiting else None,
    )


NO_FINDINGS = NotAvailable(
    reason="no findings are recorded yet (a drift review or a heartbeat files them)"
)
NO_OFFERS = NotAvailable(
    reason="no process offers exist yet: precision needs offers of a repeated process"
)
REPEATED = 2
"""Episodes that make an offer a repeated process."""


def finding_resolution(
    spans: Sequence[tuple[datetime, datetime | None]], now: datetime
) -> ResolutionTimes | NotAvailable:
    """Time to resolution of findings, as ``(flagged, resolved or None)`` spans at
    ``now``; not available when there is no finding at all."""
    if not spans:
        return NO_FINDINGS
    return resolution_times([(flagged, resolved, None) for flagged, resolved in spans], now)


def process_precision(offers: Sequence[tuple[bool, int]]) -> ProcessPrecision | NotAvailable:
    """Repeated-process precision of ``(confirmed, episodes)`` offers (see
    :class:`ProcessPrecision`); not available when none was offered."""
    offered = [confirmed for confirmed, episodes in offers if confirmed or episodes >= REPEATED]
    if not offered:
        return NO_OFFERS
    confirmed = sum(offered)
    return ProcessPrecision(
        confirmed=confirmed, offered=len(offered), share=confirmed / len(offered)
    )


def autonomy(
    story: ChainStory,
    now: datetime,
    findings: ResolutionTimes | NotAvailable = NO_FINDINGS,
    process_precision: ProcessPrecision | NotAvailable = NO_OFFERS,
) -> AutonomyMetrics:
    """The autonomy metrics of what ``story`` tells. Findings and process offers come
    from their own stores (:func:`finding_resolution`, :func:`process_precision`); when
    there are none their metrics say why they are missing."""
    by_run: defaultdict[str, list[bool]] = defaultdict(list)
    blocked: Counter[str] = Counter()
    spans: list[tuple[datetime, datetime | None, str | None]] = []
    alone = dispatched = held = 0
    for s in story.intents.values():
        unattended = s.first == Outcome.ALLOW and s.held_at is None and s.dispatched
        by_run[s.run_id].append(unattended)
        alone += unattended
        dispatched += s.dispatched
        if s.first == Outcome.REJECT:
            blocked[s.first_stage] += 1
        if s.held_at is not None:
            held += 1
            spans.append((s.held_at, s.resolved_at, s.resolution))
    for refusal in story.run_refusals.values():
        blocked[refusal.stage] += 1
    runs = sum(all(flags) for flags in by_run.values())
    decided = len(story.intents)
    return AutonomyMetrics(
        work_without_human=WorkWithoutHuman(
            runs=runs,
            runs_with_intents=len(by_run),
            intents=alone,
            intents_dispatched=dispatched,
            share=runs / len(by_run) if by_run else None,
        ),
        escalated=Escalations(
            held=held, decided=decided, share=held / decided if decided else None
        ),
        blocked_by_stage=dict(sorted(blocked.items())),
        hold_resolution=resolution_times(spans, now),
        finding_resolution=findings,
        repeated_process_precision=process_precision,
    )
