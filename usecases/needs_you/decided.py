"""What a person decided: each approval or denial they gave (or tried to give) on the
chain, newest first, with what became of it (paid once, nothing sent, refused by the
broker), read as they may read it. The console's "What you decided" page, and the
confirmations that stay on the queue until they are dismissed."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from domain.audit.chain import AuditEntry
from domain.words import action, done_words, tool_words
from usecases import audit
from usecases.context import Ports

VERDICTS = {"approved": "approved", "denied": "denied", "review_refused": "tried to decide"}
"""The chain's review outcomes a person's decision reads as."""


class DecidedLine(BaseModel):
    """One decision of the person's, in their words."""

    intent_id: str
    seq: int
    """Its place on the chain (what a dismissal remembers)."""
    at: datetime
    verdict: str
    """``approved``, ``denied`` or ``tried to decide`` (the broker refused the decision)."""
    what: str
    """The action, as a line: ``A payment of $2,000.00 to Northwind``."""
    became: str
    """What became of it: ``paid``, ``nothing was paid``, ``waits to be paid``, or why the
    broker refused the decision."""
    done: bool
    """Whether its write happened."""
    said: str = ""
    """What the person wrote with it."""


def _line(
    entry: AuditEntry, written: set[str], closed: set[str], intent: dict[str, object]
) -> DecidedLine:
    tool = str(intent.get("tool", ""))
    payload = intent.get("payload")
    what = (
        action(tool, payload if isinstance(payload, dict) else {}, _int(intent, "cost_cents"))
        if tool
        else "an action of a project you may no longer read"
    )
    intent_id = entry.intent_id or ""
    done = intent_id in written
    verdict = VERDICTS[entry.decision]
    noun = tool_words(tool).removeprefix("a ").removeprefix("an ")
    if verdict == "tried to decide":
        became = f"the broker refused your decision: {entry.payload.get('reason', entry.rule)}"
    elif done:
        became = done_words(tool)
    elif verdict == "approved" and intent_id not in closed:
        became = f"the {noun} goes ahead: its run carries it out"
    else:
        became = f"nothing was {done_words(tool)}"
    return DecidedLine(
        intent_id=intent_id,
        seq=entry.seq,
        at=datetime.fromisoformat(entry.at),
        verdict=verdict,
        what=what,
        became=became,
        done=done,
        said=str(entry.payload.get("request_reason") or ""),
    )


def _int(values: dict[str, object], key: str) -> int:
    value = values.get(key)
    return value if isinstance(value, int) else 0


def decided_by(ports: Ports, org_id: str, actor_id: str, limit: int = 100) -> list[DecidedLine]:
    """``actor_id``'s own decisions on held intents, newest first (at most ``limit``)."""
    trail = audit.audit(ports, org_id, actor_id, verify=False)
    written = {e.intent_id for e in trail.entries if e.decision == "dispatched" and e.intent_id}
    # closed without its write (its run cancelled or ended first): nothing happened
    closed = {e.intent_id for e in trail.entries if e.decision == "expired" and e.intent_id}
    proposed: dict[str, dict[str, object]] = {}
    for entry in trail.entries:
        intent = entry.payload.get("intent")
        if entry.intent_id and isinstance(intent, dict) and entry.intent_id not in proposed:
            proposed[entry.intent_id] = intent
    lines = [
        _line(entry, written, closed, proposed.get(entry.intent_id or "", {}))
        for entry in reversed(trail.entries)
        if entry.actor == actor_id and entry.decision in VERDICTS and entry.intent_id
    ]
    return lines[:limit]
