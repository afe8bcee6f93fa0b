"""Who may read what: the same walls that bind agents bind human readers.

A human reads a run (its task, its intents, their payloads) only when staffed on every
project it reaches; the founder, who answers for the whole organization, reads all.
Starting a run grants nothing more: a run started by a human acts on that human's
behalf, so it recalls only memory both its agent and that human may read, and what it
produced is shown only to those allowed to see what went into it. In the audit trail
the same rule withholds an entry's payload (its hashes, stage, rule and outcome stay
visible, and verification is unaffected).

Through the memory gate a principal reads the records of the projects it is currently
staffed on, except that someone staffed on both sides of a barrier (only a human can
be) reads neither side.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from domain.model import Barrier, Organization, Principal, Staffing


def readable_projects(
    reader: Principal, org: Organization, staffing: Iterable[Staffing], now: datetime
) -> frozenset[str] | None:
    """The projects ``reader`` may read, or None for all of them (the founder)."""
    if reader.id == org.founder_id:
        return None
    return frozenset(
        s.project for s in staffing if s.principal_id == reader.id and s.active_at(now)
    )


def may_read(readable: frozenset[str] | None, reach: Iterable[str]) -> bool:
    """True when a reader with ``readable`` projects may read something reaching ``reach``."""
    return readable is None or set(reach) <= readable


def gated_projects(
    principal_id: str, staffing: Iterable[Staffing], barriers: Iterable[Barrier], now: datetime
) -> frozenset[str]:
    """The projects whose memory records ``principal_id`` may read through the gate."""
    allowed = {s.project for s in staffing if s.principal_id == principal_id and s.active_at(now)}
    for barrier in barriers:
        if len(barrier.groups_touched(frozenset(allowed))) > 1:
            allowed -= {p for group in barrier.groups for p in group}
    return frozenset(allowed)


def on_behalf(allowed: frozenset[str], requester: frozenset[str] | None) -> frozenset[str]:
    """What a run may recall: what its agent may read (``allowed``), narrowed to what the
    human it acts for may read (``requester``, None for all: the founder)."""
    return allowed if requester is None else allowed & requester
