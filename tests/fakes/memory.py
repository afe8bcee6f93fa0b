"""The memory gate's units in memory: :class:`FakeMemoryUnits` is a
:class:`~domain.memory.ports.MemoryUnits` over dictionaries, so the MemoryBank use case
gets fast unit tests. Like :mod:`adapters.memory.units`, a unit's log entries are kept
only when the unit ends without an error, and a failed read is logged on its own.

:class:`FakeStores` keeps nodes, embeddings, links and procedures of one organization,
counts every call (a stranger's read must make none), can ignore the reader's mask in a
search (a leaky backend: the gate must not trust it) and can fail on a named method.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from domain.memory.adapter import MemoryAdapter, MemoryLink, Procedure, Similar
from domain.memory.ports import EmbedPurpose, MemoryRead
from domain.memory.release import StoredNode
from domain.organization.contracts import Barrier, Organization, Principal, Staffing

DIMENSIONS = 64


class WordsEmbedder:
    """A deterministic embedder for unit tests: hashed words, L2-normalised."""

    name = "fake-words-64"
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str], purpose: EmbedPurpose) -> list[bytes]:
        out = []
        for text in texts:
            v = np.zeros(DIMENSIONS, dtype="<f4")
            for word in text.lower().split():
                v[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
            norm = float(np.linalg.norm(v)) or 1.0
            out.append((v / norm).astype("<f4").tobytes())
        return out


@dataclass
class FakeDirectory:
    """What resolving a reader needs of an organization (a
    :class:`~domain.memory.readers.ReaderDirectory`)."""

    org: Organization | None
    principals: Mapping[str, Principal]
    staffing: Mapping[str, tuple[Staffing, ...]]
    barriers: tuple[Barrier, ...]

    @classmethod
    def of(
        cls,
        org: Organization,
        principals: Sequence[Principal],
        staffing: Sequence[Staffing],
        barriers: Sequence[Barrier] = (),
    ) -> FakeDirectory:
        by_principal: dict[str, list[Staffing]] = defaultdict(list)
        for row in staffing:
            by_principal[row.principal_id].append(row)
        return cls(
            org=org,
            principals={p.id: p for p in principals},
            staffing={k: tuple(v) for k, v in by_principal.items()},
            barriers=tuple(barriers),
        )


class StoreDown(RuntimeError):
    """What a :class:`FakeStores` told to fail raises."""


@dataclass
class FakeStores:
    """One organization's memory, ungated, in dictionaries (the part of a
    :class:`~domain.memory.adapter.MemoryAdapter` the read paths use)."""

    nodes: dict[str, StoredNode] = field(default_factory=dict)
    vectors: dict[str, bytes] = field(default_factory=dict)
    edges: list[MemoryLink] = field(default_factory=list)
    versions: list[Procedure] = field(default_factory=list)
    leaky: bool = False
    """Ignore the reader's mask in a search, as a careless backend might."""
    fail_on: str | None = None
    calls: int = 0

    def _called(self, name: str) -> None:
        self.calls += 1
        if self.fail_on == name:
            raise StoreDown(f"{name} failed")

    def keep(self, node: StoredNode, embedder: WordsEmbedder) -> None:
        self.nodes[node.ref] = node
        (self.vectors[node.ref],) = embedder.embed([node.text], EmbedPurpose.DOCUMENT)

    def joined(self, unit: object) -> MemoryAdapter:
        self._called("joined")
        return self  # type: ignore[return-value] # the read paths' part of the protocol

    def retrieve(self, org_id: str, refs: Sequence[str]) -> list[StoredNode]:
        self._called("retrieve")
        return [self.nodes[r] for r in refs if r in self.nodes and self.nodes[r].org_id == org_id]

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
        self._called("search")
        query = np.frombuffer(vector, dtype="<f4")
        mine = [n for n in self.nodes.values() if n.org_id == org_id]
        visible = [n for n in mine if self.leaky or set(n.projects) <= allowed]
        scored = [
            (n.ref, float(np.dot(query, np.frombuffer(self.vectors[n.ref], dtype="<f4"))))
            for n in visible
        ]
        scored = [h for h in scored if min_score is None or h[1] >= min_score]
        scored.sort(key=lambda h: -h[1])
        outside = sum(1 for n in mine if not set(n.projects) <= allowed)
        return Similar(hits=tuple(scored[:k]), withheld=outside)

    def links(self, org_id: str, ref: str | None = None) -> list[MemoryLink]:
        self._called("links")
        return [e for e in self.edges if ref is None or ref in (e.src, e.dst)]

    def procedures(self, org_id: str, name: str | None = None) -> list[Procedure]:
        self._called("procedures")
        found = [p for p in self.versions if name is None or p.name == name]
        return sorted(found, key=lambda p: -p.version)


@dataclass
class FakeMemoryUnit:
    """One read's unit; its log entries are kept when it ends without an error. The
    stores are joined on first use, as the SQL unit does."""

    directory: FakeDirectory | None
    backend: FakeStores
    pending: list[tuple[str, MemoryRead]] = field(default_factory=list)

    @property
    def stores(self) -> MemoryAdapter:
        return self.backend.joined(None)

    def log(self, org_id: str, read: MemoryRead) -> None:
        self.pending.append((org_id, read))


@dataclass
class FakeMemoryUnits:
    """:class:`~domain.memory.ports.MemoryUnits` in memory, for one or more
    organizations."""

    directories: dict[str, FakeDirectory] = field(default_factory=dict)
    stores: dict[str, FakeStores] = field(default_factory=dict)
    logged: list[tuple[str, MemoryRead]] = field(default_factory=list)

    @contextmanager
    def unit(self, org_id: str) -> Iterator[FakeMemoryUnit]:
        stores = self.stores.setdefault(org_id, FakeStores())
        unit = FakeMemoryUnit(self.directories.get(org_id), stores)
        yield unit  # an error raised in the block leaves the pending entries behind
        self.logged.extend(unit.pending)

    def log_failed(self, org_id: str, read: MemoryRead) -> None:
        self.logged.append((org_id, read))

    def reads(self, org_id: str) -> list[MemoryRead]:
        return [read for org, read in self.logged if org == org_id]
