"""MemoryBank: the one gated path to stored memory.

Every read path names its asker (and, for a run a human started, the human it acts
for). For each node it would return, it asks the release rule (domain.memory.release):
whole, a redacted view computed for this reader (never written back), or withheld.
Every read is logged, empty and failed ones too.

Read paths so far: ``recall`` (a run's context: lexical overlap with the task),
``query`` (similarity over embeddings) and ``get`` (one node by reference). The
relational, causal and procedural stores arrive with the rest of the memory-bank issue.

Similarity is exact: each organization's vectors sit in a matrix in this process,
reloaded when its configuration sequence moves (every memory record is configuration),
and a query is one matrix product. The reader's gate is a mask over the matrix, so the
top hits are the top hits the reader may see; what scored higher but is not theirs is
only counted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, bindparam, insert, select
from sqlmodel import col

from adapters.store.org_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import (
    AuditHeadRow,
    MemoryLinkRow,
    MemoryNodeRow,
    MemoryProcedureRow,
    MemoryReadRow,
    table_of,
)
from domain.memory.release import (
    WITHHELD,
    NodeView,
    Reader,
    Release,
    Span,
    StoredNode,
    excerpt,
    release,
)
from domain.model import PrincipalKind
from domain.ports import (
    Embedder,
    EmbedPurpose,
    Explanation,
    ExplanationStep,
    MemoryHit,
    MemoryRead,
    Neighbour,
    Neighbours,
    ProcedureView,
    QueryResult,
    RecallResult,
)
from domain.visibility import gated_projects, on_behalf, readable_projects

_WORD = re.compile(r"[a-z0-9]+")

_nodes, _reads = table_of(MemoryNodeRow), table_of(MemoryReadRow)
_NODES = (
    select(_nodes.c.ref, _nodes.c.text, _nodes.c.projects, _nodes.c.spans)
    .where(_nodes.c.org_id == bindparam("org_id"))
    .order_by(_nodes.c.ref)
)
_VECTORS = (
    select(_nodes.c.ref, _nodes.c.projects, _nodes.c.embedding)
    .where(
        _nodes.c.org_id == bindparam("org_id"),
        _nodes.c.embedder == bindparam("embedder"),
        _nodes.c.embedding.is_not(None),
    )
    .order_by(_nodes.c.ref)
)
_BY_REFS = select(_nodes.c.ref, _nodes.c.text, _nodes.c.projects, _nodes.c.spans).where(
    _nodes.c.org_id == bindparam("org_id"), _nodes.c.ref.in_(bindparam("refs", expanding=True))
)
_links = table_of(MemoryLinkRow)
_LINKS_OF = (
    select(_links.c.src_ref, _links.c.dst_ref, _links.c.kind)
    .where(
        _links.c.org_id == bindparam("org_id"),
        (_links.c.src_ref == bindparam("ref")) | (_links.c.dst_ref == bindparam("ref")),
    )
    .order_by(_links.c.created_at, _links.c.id)
)
_SOURCES_OF = (
    select(_links.c.dst_ref, _links.c.span_start, _links.c.span_end)
    .where(
        _links.c.org_id == bindparam("org_id"),
        _links.c.src_ref == bindparam("ref"),
        _links.c.kind == "derived_from",
    )
    .order_by(_links.c.created_at, _links.c.id)
)
_procedures = table_of(MemoryProcedureRow)
_PROCEDURE = (
    select(_procedures.c.version, _procedures.c.projects, _procedures.c.steps)
    .where(_procedures.c.org_id == bindparam("org_id"), _procedures.c.name == bindparam("name"))
    .order_by(_procedures.c.version.desc())
)
_CONFIG_SEQ = select(col(AuditHeadRow.config_seq)).where(
    col(AuditHeadRow.org_id) == bindparam("org_id")
)
_LOG_READ = insert(_reads)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def _stored(org_id: str, row: Any) -> StoredNode:
    return StoredNode(
        org_id=org_id,
        ref=row.ref,
        projects=tuple(row.projects),
        text=row.text,
        spans=tuple(Span(**s) for s in row.spans or ()),
    )


def _outcome(released: int, withheld: int) -> str:
    return "released" if released else ("withheld" if withheld else "empty")


@dataclass(frozen=True)
class _Index:
    """One organization's vectors of one embedder, as of one configuration sequence."""

    config_seq: int
    refs: tuple[str, ...]
    matrix: Any
    """float32, one L2-normalised row per node."""
    groups: tuple[frozenset[str], ...]
    """The distinct project sets of the nodes."""
    group_of: Any
    """For each row, the index of its project set in ``groups``."""

    def eligible(self, allowed: frozenset[str]) -> Any:
        """A boolean mask of the rows a reader of ``allowed`` projects may see."""
        ok = [i for i, projects in enumerate(self.groups) if projects <= allowed]
        return np.isin(self.group_of, ok)


class MemoryBank:
    """Facade over stored memory; the only way agent-facing code reads it."""

    def __init__(self, db: Database, cache: OrgCache, embedder: Embedder) -> None:
        self._db = db
        self._cache = cache
        self.embedder = embedder
        self._indexes: dict[str, _Index] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------------ readers
    @staticmethod
    def _reader(
        policy: OrgPolicy | None, org_id: str, asker: str, on_behalf_of: str | None, now: datetime
    ) -> Reader:
        """Who reads, and the projects they may read right now (nothing for a stranger)."""
        principal = None if policy is None else policy.principals.get(asker)
        if policy is None or principal is None:
            # Not a principal of this organization: a reader of no organization here, so
            # that the rule's own organization check withholds too.
            return Reader(principal_id=asker, org_id="", is_agent=True, projects=frozenset())
        allowed = gated_projects(asker, policy.staffing.get(asker, ()), policy.barriers, now)
        if on_behalf_of is not None:
            human = policy.principals.get(on_behalf_of)
            if policy.org is None or human is None or human.kind is not PrincipalKind.HUMAN:
                allowed = frozenset()  # acting for someone unknown here: nothing
            else:
                staffing = policy.staffing.get(on_behalf_of, ())
                allowed = on_behalf(allowed, readable_projects(human, policy.org, staffing, now))
        return Reader(
            principal_id=asker,
            org_id=org_id,
            is_agent=principal.kind is PrincipalKind.AGENT,
            projects=allowed,
        )

    def _logged(
        self,
        path: str,
        org_id: str,
        asker: str,
        on_behalf_of: str | None,
        query: str,
        now: datetime,
        read: Callable[[Connection, Reader], tuple[Any, list[str], int]],
    ) -> Any:
        """Run ``read`` for the asker in one transaction and log it there; a read that
        fails is logged as failed, in a transaction of its own."""
        log = {
            "org_id": org_id,
            "asker_id": asker,
            "on_behalf_of": on_behalf_of,
            "path": path,
            "query": query,
            "at": now,
        }
        try:
            with self._db.transaction() as s:
                connection = s.connection()
                reader = self._reader(
                    self._cache.current(s, org_id), org_id, asker, on_behalf_of, now
                )
                result, released, withheld = read(connection, reader)
                connection.execute(
                    _LOG_READ,
                    [
                        {
                            **log,
                            "released": released,
                            "withheld": withheld,
                            "outcome": _outcome(len(released), withheld),
                        }
                    ],
                )
                return result
        except Exception:
            with self._db.transaction() as s:
                s.connection().execute(
                    _LOG_READ, [{**log, "released": [], "withheld": 0, "outcome": "failed"}]
                )
            raise

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
    ) -> RecallResult:
        """A run's context: nodes sharing words with ``query`` that the asker (and, for a
        run a human started, that human) may read, as the release rule shows them."""

        def read(c: Connection, reader: Reader) -> tuple[RecallResult, list[str], int]:
            return self._recall(c, org_id, query, limit, reader)

        result: RecallResult = self._logged(
            "recall", org_id, asker_principal_id, on_behalf_of, query, now, read
        )
        return result

    def _recall(
        self, c: Connection, org_id: str, query: str, limit: int, reader: Reader
    ) -> tuple[RecallResult, list[str], int]:
        wanted = _words(query)
        scored = sorted(
            (
                (len(wanted & _words(n.text + " " + n.ref)), n)
                for n in c.execute(_NODES, {"org_id": org_id})
            ),
            key=lambda pair: -pair[0],
        )
        views: list[NodeView] = []
        withheld = 0
        for score, row in scored:
            if score == 0 or len(views) >= limit:
                continue
            view = release(_stored(org_id, row), reader)
            if view.release is Release.WITHHELD:
                withheld += 1
            else:
                views.append(view)
        refs = [v.ref for v in views if v.ref is not None]
        result = RecallResult(
            released=tuple(f"[{v.ref}] {v.text}" for v in views),
            released_refs=tuple(refs),
            withheld=withheld,
        )
        return result, refs, withheld

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
        as the release rule shows it, and how many better matches were withheld."""
        (vector,) = self.embedder.embed([text], EmbedPurpose.QUERY)  # outside the lock
        q = np.frombuffer(vector, dtype="<f4")

        def read(c: Connection, reader: Reader) -> tuple[QueryResult, list[str], int]:
            index = self._index(c, org_id)
            if index is None or not index.refs:
                return QueryResult(), [], 0
            scores = index.matrix @ q
            mask = index.eligible(reader.projects)
            gated = np.where(mask, scores, -np.inf)
            n = min(k, int(mask.sum()))
            top = np.array([], dtype=int)
            if n:  # the n best in linear time, then in order (ties: stored order)
                best = np.argpartition(-gated, n - 1)[:n] if n < len(gated) else np.arange(n)
                top = best[np.lexsort((best, -gated[best]))]
            floor = float(gated[top[-1]]) if n else -np.inf
            withheld = int(np.count_nonzero(~mask & (scores > floor)))
            refs = [index.refs[i] for i in top]
            rows = {r.ref: r for r in c.execute(_BY_REFS, {"org_id": org_id, "refs": refs})}
            hits = []
            for i, ref in zip(top, refs, strict=True):
                row = rows.get(ref)
                view = WITHHELD if row is None else release(_stored(org_id, row), reader)
                if view.release is not Release.WITHHELD:
                    hits.append(MemoryHit(view=view, score=float(scores[i])))
            released = [h.view.ref for h in hits if h.view.ref is not None]
            return QueryResult(hits=tuple(hits), withheld=withheld), released, withheld

        result: QueryResult = self._logged(
            "similarity", org_id, asker_principal_id, on_behalf_of, text, now, read
        )
        return result

    def _index(self, c: Connection, org_id: str) -> _Index | None:
        seq = c.execute(_CONFIG_SEQ, {"org_id": org_id}).scalar_one_or_none()
        if seq is None:
            return None
        cached = self._indexes.get(org_id)
        if cached is not None and cached.config_seq == seq:
            return cached
        refs: list[str] = []
        vectors: list[bytes] = []
        groups: dict[frozenset[str], int] = {}
        group_of: list[int] = []
        for row in c.execute(_VECTORS, {"org_id": org_id, "embedder": self.embedder.name}):
            refs.append(row.ref)
            vectors.append(row.embedding)
            group_of.append(groups.setdefault(frozenset(row.projects), len(groups)))
        dims = self.embedder.dimensions
        matrix = (
            np.frombuffer(b"".join(vectors), dtype="<f4").reshape(len(vectors), dims)
            if vectors
            else np.zeros((0, dims), dtype="<f4")
        )
        index = _Index(
            config_seq=seq,
            refs=tuple(refs),
            matrix=matrix,
            groups=tuple(groups),
            group_of=np.asarray(group_of, dtype=np.int32),
        )
        with self._lock:
            current = self._indexes.get(org_id)
            if current is None or current.config_seq < seq:
                self._indexes[org_id] = index
        return index

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

        def read(c: Connection, reader: Reader) -> tuple[NodeView, list[str], int]:
            _, view, withheld = self._seen(c, org_id, ref, reader)
            return view, [] if view.ref is None else [view.ref], withheld

        view: NodeView = self._logged(
            "get", org_id, asker_principal_id, on_behalf_of, ref, now, read
        )
        return view

    # ------------------------------------------------------------------------ links
    def _node(self, c: Connection, org_id: str, ref: str) -> StoredNode | None:
        rows = list(c.execute(_BY_REFS, {"org_id": org_id, "refs": [ref]}))
        return _stored(org_id, rows[0]) if rows else None

    def _seen(
        self, c: Connection, org_id: str, ref: str, reader: Reader
    ) -> tuple[StoredNode | None, NodeView, int]:
        """A record, the reader's view of it, and 1 when it exists but is withheld."""
        node = self._node(c, org_id, ref)
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

        def read(c: Connection, reader: Reader) -> tuple[Neighbours, list[str], int]:
            _, start, hidden = self._seen(c, org_id, ref, reader)
            if start.release is Release.WITHHELD:
                return Neighbours(of=WITHHELD), [], hidden
            links = list(c.execute(_LINKS_OF, {"org_id": org_id, "ref": ref}))
            others = {link.dst_ref if link.src_ref == ref else link.src_ref for link in links}
            rows = {
                r.ref: r for r in c.execute(_BY_REFS, {"org_id": org_id, "refs": sorted(others)})
            }
            found: list[Neighbour] = []
            withheld = 0
            for link in links:
                outgoing = link.src_ref == ref
                other = rows.get(link.dst_ref if outgoing else link.src_ref)
                view = WITHHELD if other is None else release(_stored(org_id, other), reader)
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

        result: Neighbours = self._logged(
            "neighbours", org_id, asker_principal_id, on_behalf_of, ref, now, read
        )
        return result

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

        def read(c: Connection, reader: Reader) -> tuple[Explanation, list[str], int]:
            _, start, hidden = self._seen(c, org_id, ref, reader)
            if start.release is Release.WITHHELD:
                return Explanation(of=WITHHELD), [], hidden
            steps: list[ExplanationStep] = []
            frontier, seen = [ref], {ref}
            withheld = 0
            for level in range(1, depth + 1):
                following: list[str] = []
                for here in frontier:
                    for link in c.execute(_SOURCES_OF, {"org_id": org_id, "ref": here}):
                        if link.dst_ref in seen:
                            continue
                        seen.add(link.dst_ref)
                        source = self._node(c, org_id, link.dst_ref)
                        view = WITHHELD if source is None else release(source, reader)
                        if view.release is Release.WITHHELD or source is None:
                            withheld += 1
                            steps.append(ExplanationStep(depth=level, view=WITHHELD))
                            continue
                        shown = excerpt(source, view, link.span_start or 0, link.span_end or 0)
                        steps.append(ExplanationStep(depth=level, view=view, source=shown))
                        following.append(link.dst_ref)
                frontier = following
                if not frontier:
                    break
            redacted = withheld > 0 or any(st.view.release is Release.REDACTED for st in steps)
            released = [ref, *(st.view.ref for st in steps if st.view.ref is not None)]
            result = Explanation(of=start, steps=tuple(steps), redacted=redacted)
            return result, released, withheld

        result: Explanation = self._logged(
            "explain", org_id, asker_principal_id, on_behalf_of, ref, now, read
        )
        return result

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

        def read(c: Connection, reader: Reader) -> tuple[ProcedureView, list[str], int]:
            rows = list(c.execute(_PROCEDURE, {"org_id": org_id, "name": name}))
            row = next((r for r in rows if version is None or r.version == version), None)
            if row is None:
                return ProcedureView(view=WITHHELD), [], 0
            steps = tuple(row.steps)
            node = StoredNode(
                org_id=org_id, ref=name, projects=tuple(row.projects), text="\n".join(steps)
            )
            view = release(node, reader)
            if view.release is Release.WITHHELD:
                return ProcedureView(view=WITHHELD), [], 1
            found = ProcedureView(name=name, version=row.version, view=view, steps=steps)
            return found, [f"{name}@{row.version}"], 0

        result: ProcedureView = self._logged(
            "procedure", org_id, asker_principal_id, on_behalf_of, name, now, read
        )
        return result

    # ------------------------------------------------------------------------ the log
    def reads(self, org_id: str) -> list[MemoryRead]:
        """The read log of an organization, oldest first."""
        with self._db.read() as s:
            rows = s.execute(
                select(MemoryReadRow)
                .where(col(MemoryReadRow.org_id) == org_id)
                .order_by(col(MemoryReadRow.id))
            ).scalars()
            return [
                MemoryRead(
                    at=r.at,
                    asker_id=r.asker_id,
                    on_behalf_of=r.on_behalf_of,
                    path=r.path,
                    query=r.query,
                    released=tuple(r.released),
                    withheld=r.withheld,
                    outcome=r.outcome,
                )
                for r in rows
            ]
