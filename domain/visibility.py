"""Who may read what a run did: the same walls that bind agents bind human readers.

A human reads a run (its task, its intents, their payloads) only when staffed on every
project it reaches; the founder, who answers for the whole organization, reads all; so
does whoever started it. In the audit trail the same rule withholds an entry's payload
(its hashes, stage, rule and outcome stay visible, and verification is unaffected).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from domain.model import Organization, Principal, Staffing


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
