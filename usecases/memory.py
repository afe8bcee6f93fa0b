"""Memory as its human readers see it: similarity queries, one record, its links and
where it came from, the read log; and the links between records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from domain.errors import NotFound, Refused, Unavailable
from domain.memory.adapter import DERIVED_FROM, Embedding
from domain.memory.compaction import DEFAULT_CHARS, MAX_SOURCES, CompactionSource
from domain.memory.ingest import redaction_draft, reembed_draft, refusal_draft
from domain.memory.judge import second_opinion
from domain.memory.pii import remove_never_kept
from domain.memory.ports import (
    EmbedPurpose,
    Explanation,
    MemoryRead,
    Neighbours,
    ProcedureView,
    QueryResult,
)
from domain.memory.release import NodeView, Release, Span
from domain.memory.screen import ScreenResult, screen
from domain.organization import configuration as rules
from domain.organization.kinds import (
    PrincipalKind,
)
from usecases.access import founder, member
from usecases.context import Ports
from usecases.organization import check_placement

MAX_HITS = 50


def _visible(view: NodeView, unknown: str) -> None:
    """A withheld answer looks like an unknown one: both are :class:`NotFound`."""
    if view.release is Release.WITHHELD:
        raise NotFound(unknown)


def query(ports: Ports, org_id: str, actor_id: str, text: str, k: int = 10) -> QueryResult:
    """The nodes most similar to ``text`` that the acting human may read (logged)."""
    member(ports, org_id, actor_id)
    if not text.strip():
        raise ValueError("a query needs text")
    if not 1 <= k <= MAX_HITS:
        raise ValueError(f"k must lie between 1 and {MAX_HITS}")
    return ports.memory.query(
        asker_principal_id=actor_id, org_id=org_id, text=text, now=ports.clock(), k=k
    )


def get(ports: Ports, org_id: str, actor_id: str, ref: str) -> NodeView:
    """One node as the acting human may see it; withheld and unknown look the same."""
    member(ports, org_id, actor_id)
    view = ports.memory.get(asker_principal_id=actor_id, org_id=org_id, ref=ref, now=ports.clock())
    _visible(view, f"no memory record {ref}")
    return view


@dataclass(frozen=True)
class AddLink:
    """A typed link from one memory record to another (``span``: the characters of
    ``src`` that say it)."""

    src: str
    dst: str
    kind: str
    span: tuple[int, int] | None = None


def link(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: AddLink,
) -> str:
    """Link two records (the founder's): a relation, or ``derived_from`` with the span
    of ``dst`` that ``src`` drew on. A link may not join two sides of a barrier. Recorded
    in the audit chain."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        records = change.records()
        problem = rules.link_problem(
            command.kind,
            records.get(command.src),
            records.get(command.dst),
            change.record_length(command.dst),
            command.span,
            change.barriers(),
        )
        if problem is not None:
            raise ValueError(problem)
        link_id = change.add_link(command.src, command.dst, command.kind, command.span)
    return link_id


def neighbours(ports: Ports, org_id: str, actor_id: str, ref: str) -> Neighbours:
    """The records linked to ``ref`` that the acting human may see."""
    member(ports, org_id, actor_id)
    found = ports.memory.neighbours(
        asker_principal_id=actor_id, org_id=org_id, ref=ref, now=ports.clock()
    )
    _visible(found.of, f"no memory record {ref}")
    return found


def explain(ports: Ports, org_id: str, actor_id: str, ref: str) -> Explanation:
    """Where ``ref`` came from, as the acting human may see it."""
    member(ports, org_id, actor_id)
    found = ports.memory.explain(
        asker_principal_id=actor_id, org_id=org_id, ref=ref, now=ports.clock()
    )
    _visible(found.of, f"no memory record {ref}")
    return found


def publish_procedure(
    ports: Ports,
    org_id: str,
    actor_id: str,
    name: str,
    projects: tuple[str, ...],
    steps: tuple[str, ...],
) -> int:
    """Publish the next version of a procedure (the founder's): a workflow definition or
    playbook that belongs to ``projects`` like a record. Its version number."""
    founder(ports, org_id, actor_id)
    if not steps or any(not step.strip() for step in steps):
        raise ValueError("a procedure needs steps, none of them empty")
    if any("\n" in step or "\r" in step for step in steps):
        # one line each: the chain records the steps joined by line breaks, which must
        # not let two steps pass for one
        raise ValueError("a step is one line; give each line as a step of its own")
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        check_placement(change, projects)
        version = change.add_procedure(name, projects, steps)
    return version


def procedure(
    ports: Ports, org_id: str, actor_id: str, name: str, version: int | None = None
) -> ProcedureView:
    """A procedure as the acting human may see it (its newest version by default)."""
    member(ports, org_id, actor_id)
    found = ports.memory.procedure(
        asker_principal_id=actor_id, org_id=org_id, name=name, now=ports.clock(), version=version
    )
    _visible(found.view, f"no procedure {name}")
    return found


REEMBED_BATCH = 64


def reembed(ports: Ports, org_id: str, actor_id: str) -> int:
    """Embed again, with this process's embedder, every record another model embedded
    (or none did): after a change of embedder, so that similarity finds them all. The
    founder's; recorded in the audit chain. How many records were embedded.

    A batch at a time: read under the organization's lock, embedded outside it (a model
    call never holds the lock), written under it again."""
    founder(ports, org_id, actor_id)
    embedder = ports.embedder
    count = 0
    while True:
        with ports.configuration.change(org_id, actor_id, ports.clock) as change:
            batch = change.unembedded(embedder.name, REEMBED_BATCH)
        if not batch:
            break
        vectors = embedder.embed([node.text for node in batch], EmbedPurpose.DOCUMENT)
        with ports.configuration.change(org_id, actor_id, ports.clock) as change:
            for node, vector in zip(batch, vectors, strict=True):
                change.embed_again(node.ref, Embedding(embedder=embedder.name, vector=vector))
        count += len(batch)
    if count:
        with ports.configuration.change(org_id, actor_id, ports.clock) as change:
            change.note(reembed_draft(actor_id, embedder.name, count))
    return count


def reads(ports: Ports, org_id: str, actor_id: str) -> list[MemoryRead]:
    """Every read of the organization's memory, oldest first: who asked, on whose behalf,
    what was released and how much was withheld. The log names records of every project,
    so it is the founder's to read (until roles arrive with the ingress)."""
    founder(ports, org_id, actor_id)
    return ports.memory.reads(org_id)


class Compacted(BaseModel):
    """A compact record written from older ones, linked back to each."""

    ref: str
    engine: str
    sources: list[str]
    projects: list[str]
    chars: int


@dataclass(frozen=True)
class Compact:
    """Records to compact into one: the agent whose reading it is, the records, the
    new record's reference and its length bound."""

    agent_id: str
    refs: Sequence[str]
    ref: str
    max_chars: int = DEFAULT_CHARS


def compact(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: Compact,
) -> Compacted:
    """Summarise records ``refs`` into a new record ``ref``: the founder asks (every
    memory write is the founder's), an agent reads. The records are read through the
    memory gate as that agent, on the founder's behalf, so the engine sees only what the
    agent may see (its masks included: a summary never carries a detail the agent could
    not read), and a record withheld from it is not compacted. The summary belongs to all
    their projects, which must lie on one side of every barrier; it is ingested like any
    record (screened, identifying detail tagged again) and linked back to each record it
    replaces (``derived_from``, the whole text)."""
    founder(ports, org_id, actor_id)
    if ports.directory.principal(org_id, command.agent_id).kind is not PrincipalKind.AGENT:
        raise ValueError("records are compacted as an agent reads them: name an agent")
    if ports.compactor is None:
        raise Unavailable("this process has no compaction engine")
    wanted = list(dict.fromkeys(command.refs))
    if not 1 <= len(wanted) <= MAX_SOURCES:
        raise ValueError(f"compact between 1 and {MAX_SOURCES} records")
    if not 1 <= command.max_chars <= 20_000:
        raise ValueError("max_chars must lie between 1 and 20000")
    now = ports.clock()
    sources: list[CompactionSource] = []
    projects: set[str] = set()
    for wanted_ref in wanted:
        view = ports.memory.get(
            asker_principal_id=command.agent_id,
            org_id=org_id,
            ref=wanted_ref,
            now=now,
            on_behalf_of=actor_id,
        )
        _visible(view, f"no memory record {wanted_ref} that this agent may read")
        if view.text is None:
            raise ValueError(f"record {wanted_ref} has no text this agent may read")
        sources.append(CompactionSource(ref=wanted_ref, text=view.text))
        projects.update(view.projects)
    text = ports.compactor.compact(sources, command.max_chars)
    placed = tuple(sorted(projects))
    remember(
        ports,
        org_id,
        actor_id,
        Remember(
            command.ref,
            placed,
            text,
            kind="summary",
            source=f"compaction ({ports.compactor.name}) of {', '.join(wanted)}",
        ),
    )
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        # The whole stored text of each source (what the agent read may be masked).
        lengths = {source.ref: change.record_length(source.ref) for source in sources}
    for source in sources:
        span = (0, lengths[source.ref])
        link(ports, org_id, actor_id, AddLink(command.ref, source.ref, DERIVED_FROM, span=span))
    return Compacted(
        ref=command.ref,
        engine=ports.compactor.name,
        sources=wanted,
        projects=list(placed),
        chars=len(text),
    )


def screen_text(ports: Ports, text: str) -> ScreenResult:
    """The ingestion screen with every layer this process has: the rules, the trained
    classifier and entity tagger, and the model's second opinion when a provider is
    configured."""
    first = screen(text, ports.screen_classifier, ports.entity_finder)
    return second_opinion(first, text, ports.screen_judge, ports.screen_judge_from)


@dataclass(frozen=True)
class Remember:
    """A record to keep in memory: its reference, the projects it belongs to, its
    text, what kind of record it is and where it came from."""

    ref: str
    projects: tuple[str, ...]
    text: str
    kind: str = "note"
    source: str | None = None


class Remembered(BaseModel):
    """What keeping a record did to its text: the identifying detail removed (never
    kept) and the detail tagged (kept, masked for readers who may not see it), by kind."""

    ref: str
    removed: dict[str, int]
    tagged: dict[str, int]


def _counted(spans: Sequence[Span]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for span in spans:
        counts[span.kind] = counts.get(span.kind, 0) + 1
    return counts


def remember(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: Remember,
) -> Remembered:
    """Ingest a record into memory (the founder's, until roles arrive with the ingress):
    ``text`` of document ``kind`` (``note``, ``email``, ``contract``…) from ``source``.
    The text is screened first: instruction-like text is refused (:class:`Refused`) and
    the refusal recorded; card numbers and national ids are removed and the rest of the
    identifying detail tagged, with a record of what was done (never the values). A
    record belongs to one side of every barrier."""
    founder(ports, org_id, actor_id)
    screened = screen_text(ports, command.text)
    if screened.refused:
        with ports.configuration.change(org_id, actor_id, ports.clock) as change:
            change.note(
                refusal_draft(
                    actor_id, command.ref, command.projects, command.text, screened.reasons
                )
            )
        raise Refused("the text reads as instructions: " + "; ".join(screened.reasons))
    kept_text, kept, removed = remove_never_kept(command.text, screened.spans)
    # Embedded before the organization's lock is taken: a model call never holds it.
    (vector,) = ports.embedder.embed([kept_text], EmbedPurpose.DOCUMENT)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        check_placement(change, command.projects)
        embedding = Embedding(embedder=ports.embedder.name, vector=vector)
        change.add_record(
            command.ref, command.projects, kept_text, kept, embedding, command.kind, command.source
        )
        if removed or kept:
            change.note(redaction_draft(actor_id, command.ref, removed, kept))
    return Remembered(ref=command.ref, removed=_counted(removed), tagged=_counted(kept))
