"""MemoryBank: the one gated path to stored memory, a use case over a memory unit.

Every read path names its asker (and, for a run a human started, the human it acts
for). Each read is one :class:`~domain.memory.ports.MemoryUnit`: the organization's
directory as of now, its stores inside the unit's transaction, and the read log. The
bank resolves the reader from the directory (:func:`domain.memory.readers.reader_of`)
and, for each node it would return, asks the release rule (domain.memory.release):
whole, a redacted view computed for this reader (never written back), or withheld.
Every read is logged in its unit, empty and failed ones too (a failed one in a
transaction of its own).

Read paths: ``recall`` (a run's context), ``query`` (similarity over embeddings),
``get`` (one node by reference), ``neighbours`` (the relational store), ``explain``
(the causal store: derivations walked back) and ``procedure`` (the procedural store).

The stores sit behind a :class:`~domain.memory.adapter.MemoryAdapter` (the shipped one
is :mod:`adapters.memory.sql`), which answers for an organization, never for a reader.
Similarity search takes the reader's projects as a mask so that the top hits are the
top hits the reader may see, and the bank still asks the release rule about each of
them. The units over SQL are :class:`adapters.memory.units.SqlMemoryUnits`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from domain.memory.adapter import (
    DERIVED_FROM,
    Embedding,
    MemoryAdapter,
    MemoryLink,
    Procedure,
    Similar,
)
from domain.memory.ports import (
    Embedder,
    EmbedPurpose,
    Explanation,
    ExplanationStep,
    MemoryHit,
    MemoryRead,
    MemoryUnits,
    Neighbour,
    Neighbours,
    ProcedureView,
    QueryResult,
    RecallResult,
)
from domain.memory.readers import reader_of
from domain.memory.release import (
    WITHHELD,
    NodeView,
    Reader,
    Release,
    StoredNode,
    excerpt,
    release,
)

T = TypeVar("T")

RECALL_FLOOR = 0.2
"""The least cosine similarity for a run's context to take a node in: a task recalls
nothing rather than unrelated records (the model sees only what bears on the task).
With the local embedder, a paraphrased question scores 0.47 or more against its record
in 95 % of the evaluation's pairs, a long record about the same deal about 0.25, and
questions about something else entirely at most 0.16."""


class _Nothing:
    """The memory a reader of another organization reads: none."""

    def joined(self, unit: object) -> MemoryAdapter:
        return self

    def store(
        self, node: StoredNode, *, author_id: str, at: datetime, embedding: Embedding | None = None
    ) -> None:
        raise PermissionError("nothing is written through a stranger's view")

    def retrieve(self, org_id: str, refs: Sequence[str]) -> list[StoredNode]:
        return []

    def nodes(self, org_id: str) -> list[StoredNode]:
        return []

    def search(
        self,
        org_id: str,
        vector: bytes,
        *,
        embedder: str,
        k: int,
        allowed: frozenset[str],
        min_score: float | None = None,
    ) -> Similar:
        return Similar()

    def unembedded(self, org_id: str, embedder: str, limit: int) -> list[StoredNode]:
        return []

    def embed_again(self, org_id: str, ref: str, embedding: Embedding) -> None:
        raise PermissionError("nothing is written through a stranger's view")

    def link(self, org_id: str, link: MemoryLink, *, author_id: str, at: datetime) -> None:
        raise PermissionError("nothing is written through a stranger's view")

    def links(self, org_id: str, ref: str | None = None) -> list[MemoryLink]:
        return []

    def publish(
        self,
        org_id: str,
        name: str,
        projects: tuple[str, ...],
        steps: tuple[str, ...],
        *,
        author_id: str,
        at: datetime,
    ) -> Procedure:
        raise PermissionError("nothing is written through a stranger's view")

    def procedures(self, org_id: str, name: str | None = None) -> list[Procedure]:
        return []


NOTHING: MemoryAdapter = _Nothing()


def _read(
    path: str,
    asker: str,
    on_behalf_of: str | None,
    query: str,
    now: datetime,
    released: Sequence[str] = (),
    withheld: int = 0,
    outcome: str = "failed",
) -> MemoryRead:
    """A read-log entry (by default, of a read that failed)."""
    return MemoryRead(
        at=now,
        asker_id=asker,
        on_behalf_of=on_behalf_of,
        path=path,
        query=query,
        released=tuple(released),
        withheld=withheld,
        outcome=outcome,
    )


def _outcome(released: int, withheld: int) -> str:
    return "released" if released else ("withheld" if withheld else "empty")


class MemoryBank:
    """The gate over stored memory; the only way agent-facing code reads it."""

    def __init__(self, units: MemoryUnits, embedder: Embedder) -> None:
        self._units = units
        self.embedder = embedder

    def _logged(
        self,
        path: str,
        org_id: str,
        asker: str,
        on_behalf_of: str | None,
        query: str,
        now: datetime,
        read: Callable[[MemoryAdapter, Reader], tuple[T, list[str], int]],
    ) -> T:
        """Run ``read`` for the asker in one unit and log it there; a read that fails is
        logged as failed, in a transaction of its own."""
        failed = _read(path, asker, on_behalf_of, query, now)  # built first: never lost
        try:
            with self._units.unit(org_id) as unit:
                reader = reader_of(unit.directory, org_id, asker, on_behalf_of, now)
                # A reader of another organization reads nothing of this one, not even
                # how much there is.
                stores = unit.stores if reader.org_id == org_id else NOTHING
                result, released, withheld = read(stores, reader)
                outcome = _outcome(len(released), withheld)
                entry = _read(path, asker, on_behalf_of, query, now, released, withheld, outcome)
                unit.log(org_id, entry)
                return result
        except Exception:
            self._units.log_failed(org_id, failed)
            raise

    def _embedded(
        self, path: str, org_id: str, asker: str, on_behalf_of: str | None, text: str, now: datetime
    ) -> bytes:
        """``text`` embedded as a query, outside any transaction (a model call never holds
        a lock); an embedder that fails makes a failed read, logged as such."""
        failed = _read(path, asker, on_behalf_of, text, now)
        try:
            (vector,) = self.embedder.embed([text], EmbedPurpose.QUERY)
        except Exception:
            self._units.log_failed(org_id, failed)
            raise
        return vector

    # ------------------------------------------------------------------------ recall
    def recall(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        query: str,
        now: datetime,
        limit: int = 5,
        on_behalf_of: str | None = None,
        within: frozenset[str] | None = None,
    ) -> RecallResult:
        """A run's context: the ``limit`` nodes most similar to the task (and similar
        enough: :data:`RECALL_FLOOR`) that the asker (and, for a run a human started,
        that human) may read, as the release rule shows them; with ``within``, only of
        those projects (what the run's record says it reaches)."""
        vector = self._embedded("recall", org_id, asker_principal_id, on_behalf_of, query, now)
        embedder = self.embedder.name

        def read(store: MemoryAdapter, reader: Reader) -> tuple[RecallResult, list[str], int]:
            if within is not None:
                reader = reader.model_copy(update={"projects": reader.projects & within})
            found = store.search(
                org_id,
                vector,
                embedder=embedder,
                k=limit,
                allowed=reader.projects,
                min_score=RECALL_FLOOR,
            )
            views, withheld = self._released(store, org_id, found, reader)
            refs = [view.ref for view, _ in views if view.ref is not None]
            result = RecallResult(
                released=tuple(f"[{view.ref}] {view.text}" for view, _ in views),
                released_refs=tuple(refs),
                released_projects=tuple(sorted({p for view, _ in views for p in view.projects})),
                withheld=withheld,
            )
            return result, refs, withheld

        return self._logged("recall", org_id, asker_principal_id, on_behalf_of, query, now, read)

    @staticmethod
    def _released(
        store: MemoryAdapter, org_id: str, found: Similar, reader: Reader
    ) -> tuple[list[tuple[NodeView, float]], int]:
        """The hits of a search as the reader may see them (the release rule is asked
        about each: the backend's mask is not trusted), and the backend's withheld count."""
        nodes = {n.ref: n for n in store.retrieve(org_id, [ref for ref, _ in found.hits])}
        views: list[tuple[NodeView, float]] = []
        for ref, score in found.hits:
            node = nodes.get(ref)
            if node is None:  # kept after this read began: not part of it
                continue
            view = release(node, reader)
            if view.release is not Release.WITHHELD:
                views.append((view, score))
        return views, found.withheld

    # ------------------------------------------------------------------------ similarity
    def query(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        text: str,
        now: datetime,
        k: int = 10,
        on_behalf_of: str | None = None,
    ) -> QueryResult:
        """The ``k`` nodes most similar to ``text`` among those the asker may read, each
        as the release rule shows it, and how many records it may not see."""
        vector = self._embedded("similarity", org_id, asker_principal_id, on_behalf_of, text, now)
        embedder = self.embedder.name

        def read(store: MemoryAdapter, reader: Reader) -> tuple[QueryResult, list[str], int]:
            found = store.search(org_id, vector, embedder=embedder, k=k, allowed=reader.projects)
            views, withheld = self._released(store, org_id, found, reader)
            hits = tuple(MemoryHit(view=view, score=score) for view, score in views)
            released = [h.view.ref for h in hits if h.view.ref is not None]
            return QueryResult(hits=hits, withheld=withheld), released, withheld

        return self._logged("similarity", org_id, asker_principal_id, on_behalf_of, text, now, read)

    # ------------------------------------------------------------------------ by reference
    def get(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> NodeView:
        """One node as the asker may see it; an unknown reference and a withheld node
        look the same."""

        def read(store: MemoryAdapter, reader: Reader) -> tuple[NodeView, list[str], int]:
            _, view, withheld = self._seen(store, org_id, ref, reader)
            return view, [] if view.ref is None else [view.ref], withheld

        return self._logged("get", org_id, asker_principal_id, on_behalf_of, ref, now, read)

    # ------------------------------------------------------------------------ links
    @staticmethod
    def _node(store: MemoryAdapter, org_id: str, ref: str) -> StoredNode | None:
        found = store.retrieve(org_id, [ref])
        return found[0] if found else None

    def _seen(
        self, store: MemoryAdapter, org_id: str, ref: str, reader: Reader
    ) -> tuple[StoredNode | None, NodeView, int]:
        """A record, the reader's view of it, and 1 when it exists but is withheld."""
        node = self._node(store, org_id, ref)
        view = WITHHELD if node is None else release(node, reader)
        return node, view, int(node is not None and view.release is Release.WITHHELD)

    def neighbours(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> Neighbours:
        """The records linked to ``ref``, either way, that the asker may see; nothing
        when ``ref`` itself is not theirs to see."""

        def read(store: MemoryAdapter, reader: Reader) -> tuple[Neighbours, list[str], int]:
            _, start, hidden = self._seen(store, org_id, ref, reader)
            if start.release is Release.WITHHELD:
                return Neighbours(of=WITHHELD), [], hidden
            links = store.links(org_id, ref)
            others = sorted({link.dst if link.src == ref else link.src for link in links})
            nodes = {n.ref: n for n in store.retrieve(org_id, others)}
            found: list[Neighbour] = []
            withheld = 0
            for link in links:
                outgoing = link.src == ref
                other = nodes.get(link.dst if outgoing else link.src)
                view = WITHHELD if other is None else release(other, reader)
                if view.release is Release.WITHHELD:
                    withheld += 1
                else:
                    found.append(Neighbour(kind=link.kind, outgoing=outgoing, view=view))
            released = [ref, *(n.view.ref for n in found if n.view.ref is not None)]
            return (
                Neighbours(of=start, neighbours=tuple(found), withheld=withheld),
                released,
                withheld,
            )

        return self._logged("neighbours", org_id, asker_principal_id, on_behalf_of, ref, now, read)

    def explain(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
        depth: int = 5,
    ) -> Explanation:
        """Where ``ref`` came from: its derivations walked back (breadth first, at most
        ``depth`` steps deep), each step as the asker may see it. A step the asker may
        not see is shown as withheld, with neither its content nor its source span, and
        its own sources are not followed: the explanation is then redacted."""

        def read(store: MemoryAdapter, reader: Reader) -> tuple[Explanation, list[str], int]:
            _, start, hidden = self._seen(store, org_id, ref, reader)
            if start.release is Release.WITHHELD:
                return Explanation(of=WITHHELD), [], hidden
            steps: list[ExplanationStep] = []
            frontier, seen = [ref], {ref}
            withheld = 0
            for level in range(1, depth + 1):
                following: list[str] = []
                for here in frontier:
                    for link in store.links(org_id, here):
                        if link.kind != DERIVED_FROM or link.src != here or link.dst in seen:
                            continue
                        seen.add(link.dst)
                        source = self._node(store, org_id, link.dst)
                        view = WITHHELD if source is None else release(source, reader)
                        if view.release is Release.WITHHELD or source is None:
                            withheld += 1
                            steps.append(ExplanationStep(depth=level, view=WITHHELD))
                            continue
                        shown = excerpt(source, view, link.span_start or 0, link.span_end or 0)
                        steps.append(ExplanationStep(depth=level, view=view, source=shown))
                        following.append(link.dst)
                frontier = following
                if not frontier:
                    break
            redacted = withheld > 0 or any(st.view.release is Release.REDACTED for st in steps)
            released = [ref, *(st.view.ref for st in steps if st.view.ref is not None)]
            result = Explanation(of=start, steps=tuple(steps), redacted=redacted)
            return result, released, withheld

        return self._logged("explain", org_id, asker_principal_id, on_behalf_of, ref, now, read)

    # ------------------------------------------------------------------------ procedures
    def procedure(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        name: str,
        now: datetime,
        version: int | None = None,
        on_behalf_of: str | None = None,
    ) -> ProcedureView:
        """A procedure (its newest version, or ``version``) as the asker may see it; an
        unknown one and a withheld one look the same."""

        def read(store: MemoryAdapter, reader: Reader) -> tuple[ProcedureView, list[str], int]:
            versions = store.procedures(org_id, name)
            row = next((p for p in versions if version is None or p.version == version), None)
            if row is None:
                return ProcedureView(view=WITHHELD), [], 0
            steps = row.steps
            node = StoredNode(org_id=org_id, ref=name, projects=row.projects, text="\n".join(steps))
            view = release(node, reader)
            if view.release is Release.WITHHELD:
                return ProcedureView(view=WITHHELD), [], 1
            found = ProcedureView(name=name, version=row.version, view=view, steps=steps)
            return found, [f"{name}@{row.version}"], 0

        return self._logged("procedure", org_id, asker_principal_id, on_behalf_of, name, now, read)

    # ------------------------------------------------------------------------ the log
    def reads(self, org_id: str) -> list[MemoryRead]:
        """The read log of an organization, oldest first."""
        return self._units.reads(org_id)
