"""The needs-you queue, a read model: what waits for a human, as one reader may see it.

The queue is built from item sources (:class:`~usecases.needs_you.sources.ItemSource`):
each turns what it knows into :class:`~domain.needs_you.items.QueueItem`\\ s, and the
queue ranks them, then shows each reader only the items on projects it may read (the
others as :class:`~domain.needs_you.items.WithheldItem`, nothing of them). A new kind of
work for humans (findings, process offers, agent replies) is a new source in
:data:`SOURCES`; the queue, its route and its command do not change. Every action an
item lists is taken at its own endpoint, where it is brokered and audited.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from domain.needs_you.chain import ChainStory
from domain.needs_you.items import QueueItem, WithheldItem, for_reader, rank
from usecases.access import member, readable
from usecases.context import Ports
from usecases.needs_you.findings import DriftFindings, FiledFindings, ProcessOffers
from usecases.needs_you.sources import (
    AgentReplies,
    FailedRuns,
    HeldIntents,
    ItemSource,
    PendingCommitments,
    QueueContext,
    StandingHolds,
)

SOURCES: tuple[ItemSource, ...] = (
    HeldIntents(),
    StandingHolds(),
    PendingCommitments(),
    FailedRuns(),
    AgentReplies(),
    ProcessOffers(),
    DriftFindings(),
    FiledFindings(),
)
"""The sources the queue reads. A new one is added here."""


class SourceStatus(BaseModel):
    """Whether a kind of work for humans reaches the queue yet."""

    name: str
    wired: bool
    note: str = ""


NOT_WIRED: tuple[SourceStatus, ...] = ()
"""Kinds of work the queue will show once their sources exist."""


class NeedsYou(BaseModel):
    """The queue as one reader sees it: visible items most urgent first, then the ones
    withheld from this reader (nothing of them but that they exist)."""

    org_id: str
    generated_at: datetime
    items: list[QueueItem | WithheldItem]
    withheld: int
    """How many items concern projects the reader may not read."""
    sources: list[SourceStatus]


def _context(
    ports: Ports, org_id: str, actor_id: str, story: ChainStory
) -> tuple[QueueContext, frozenset[str] | None]:
    org, actor = member(ports, org_id, actor_id)
    run_reach, intent_reach = ports.runs.reaches(org_id)
    context = QueueContext(
        ports=ports,
        org_id=org_id,
        actor_id=actor_id,
        founder=actor_id == org.founder_id,
        now=ports.clock(),
        story=story,
        run_reach=run_reach,
        intent_reach=intent_reach,
        handles={p.id: p.display_name or p.handle for p in ports.directory.principals(org_id)},
        readable=readable(ports, org, actor),
        held_runs=ports.runs.records(org_id, [h.run_id for h in story.open_holds()]),
    )
    return context, context.readable


def needs_you(
    ports: Ports, org_id: str, actor_id: str, sources: Sequence[ItemSource] = SOURCES
) -> NeedsYou:
    """What waits for a human in ``org_id``, as ``actor_id`` may see it."""
    member(ports, org_id, actor_id)  # a stranger learns nothing, and folds nothing
    with ports.stories.story(ports.audit, org_id) as story:
        context, projects = _context(ports, org_id, actor_id, story)
        found = [item for source in sources for item in source.items(context)]
    ranked = rank(found, context.now)
    items = for_reader(ranked, projects)
    return NeedsYou(
        org_id=org_id,
        generated_at=context.now,
        items=items,
        withheld=sum(isinstance(item, WithheldItem) for item in items),
        sources=[
            *(SourceStatus(name=source.name, wired=True) for source in sources),
            *(s for s in NOT_WIRED if s.name not in {source.name for source in sources}),
        ],
    )


def held_item(ports: Ports, org_id: str, actor_id: str, intent_id: str) -> QueueItem | None:
    """The queue's item for one held intent, as ``actor_id`` sees it in their queue (None:
    it no longer waits, or they may not read it): read from the held intents alone."""
    # its source yields that intent's item alone; withheld from this reader, it is not one
    view = needs_you(ports, org_id, actor_id, sources=(HeldIntents(intent_id),))
    return next((i for i in view.items if isinstance(i, QueueItem)), None)
