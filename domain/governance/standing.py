"""Standing that is not a person's: what work a schedule starts, and what a diagnostic
agent, may have done in the firm's name.

A run a human asked for acts where that human stands (the broker's requester check).
Work nobody in particular asked for still has someone behind it: the schedule that
started it. Its standing is written down here, explicitly, rather than borrowed from
whatever the agent happens to be staffed on: the heartbeat files findings, places
standing holds and closes what ended runs left open; it moves no money and writes to no
one. The diagnostic agent's standing is narrowing too, whoever asks: it reports to the
firm's own people and holds; it never pays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SCHEDULE = "schedule:"
"""How an intent's ``requested_by`` names a schedule rather than a person."""

DIAGNOSTIC_KIND = "diagnostic"
"""The ``agent_kind`` of a diagnostic agent (the starter fleet's Sentinel)."""

_NARROWING = frozenset({"findings.file", "holds.place", "keys.close"})


@dataclass(frozen=True, slots=True)
class Standing:
    """What a principal that is not a person may have done: these tools, no money, and
    (``writes``) email only to the firm's own people."""

    words: str
    """Who it is, in an owner's words: ``the heartbeat (a schedule)``."""
    tools: frozenset[str]
    writes: bool = False
    """Whether it may send email at all (always only to the firm's own people)."""

    def what(self) -> str:
        """What it may do, in an owner's words."""
        done = "file findings, place standing holds and close what ended runs left open"
        return done + (", and write to the firm's own people" if self.writes else "")


SCHEDULES: Mapping[str, Standing] = {
    f"{SCHEDULE}heartbeat": Standing("the heartbeat (a schedule)", _NARROWING),
}
"""Every schedule that starts work, by the requester id its intents carry."""

HEARTBEAT = f"{SCHEDULE}heartbeat"
"""The requester of the heartbeat's proposals."""

DIAGNOSTIC = Standing("a diagnostic agent", _NARROWING | {"email.send"}, writes=True)
"""A diagnostic agent's standing, whoever asks: it reports (to the firm's people, by their
own addresses) and narrows; it never pays."""


def scheduled(requested_by: str | None) -> Standing | None:
    """The standing of the schedule ``requested_by`` names; None for a person (or for a
    schedule that has none: the broker rejects its work)."""
    if requested_by is None or not requested_by.startswith(SCHEDULE):
        return None
    return SCHEDULES.get(requested_by)


def is_schedule(requested_by: str | None) -> bool:
    """Whether ``requested_by`` names a schedule (known or not), not a person."""
    return requested_by is not None and requested_by.startswith(SCHEDULE)


def requester_words(requested_by: str, handles: Mapping[str, str]) -> str:
    """Who asked, as an owner reads it: a person's handle, or the schedule's name."""
    if is_schedule(requested_by):
        standing = scheduled(requested_by)
        return standing.words if standing is not None else requested_by
    return handles.get(requested_by, requested_by)
