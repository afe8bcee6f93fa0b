"""What a person decided: each approval or denial they gave (or tried to give) on the
chain, newest first, with what became of it (paid once, nothing sent, refused by the
broker), read as they may read it. The console's "What you decided" page, and the
confirmations that stay on the queue until they are dismissed."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from domain.audit.chain import AuditEntry
from domain.needs_you.chain import IntentStory
from domain.words import action, done_words, tool_words
from usecases import audit
from usecases.access import member, readable
from usecases.audit import WITHHELD
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


def _line(entry: AuditEntry, story: IntentStory | None) -> DecidedLine:
    intent = story.intent if story is not None else {}
    tool = str(intent.get("tool", ""))
    payload = intent.get("payload")
    what = (
        action(tool, payload if isinstance(payload, dict) else {}, _int(intent, "cost_cents"))
        if tool
        else "an action of a project you may no longer read"
    )
    done = story is not None and story.dispatched
    # closed without its write (its run cancelled or ended first): nothing happened
    closed = story is not None and story.expired
    verdict = VERDICTS[entry.decision]
    noun = tool_words(tool).removeprefix("a ").removeprefix("an ")
    if verdict == "tried to decide":
        became = f"the broker refused your decision: {entry.payload.get('reason', entry.rule)}"
    elif done:
        became = done_words(tool)
    elif verdict == "approved" and not closed:
        became = f"the {noun} goes ahead: its run carries it out"
    else:
        became = f"nothing was {done_words(tool)}"
    return DecidedLine(
        intent_id=entry.intent_id or "",
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
    """``actor_id``'s own decisions on held intents, newest first (at most ``limit``),
    from the organization's folded chain (no read of the whole trail). What concerns a
    project the person may no longer read is withheld as the audit trail withholds it."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    with ports.stories.story(ports.audit, org_id) as story:
        mine = list(reversed(story.reviews.get(actor_id, [])))[:limit]
        stories = {e.intent_id: story.intents.get(e.intent_id or "") for e in mine}
    if projects is not None and mine:
        reach = audit.chain_reach(ports, org_id, mine)
        mine = [audit.for_reader(e, projects, reach) for e in mine]
    return [
        _line(entry, None if entry.payload == WITHHELD else stories[entry.intent_id])
        for entry in mine
    ]
