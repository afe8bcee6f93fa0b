"""Adapters that must not pass: one that breaks the contract, one that is not an adapter.

``Leaky`` is the SQL backend with two faults a hurried third-party backend might have:
its search ignores the reader's projects (so the gate's mask is lost), and it lists a
procedure's versions oldest first. ``Incomplete`` lacks most of the protocol; a process
configured with it must refuse to start.
"""

from __future__ import annotations

from datetime import datetime

from adapters.memory.sql import SqlMemoryAdapter
from domain.memory.adapter import Procedure, Similar
from domain.memory.release import StoredNode


class Leaky(SqlMemoryAdapter):
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
        everything = frozenset(p for node in self.nodes(org_id) for p in node.projects)
        return super().search(
            org_id, vector, embedder=embedder, k=k, allowed=everything, min_score=min_score
        )

    def procedures(self, org_id: str, name: str | None = None) -> list[Procedure]:
        return list(reversed(super().procedures(org_id, name)))


class Incomplete:
    """Stores and retrieves, and nothing else."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._nodes: dict[tuple[str, str], StoredNode] = {}

    def store(self, node: StoredNode, *, author_id: str, at: datetime) -> None:
        self._nodes[(node.org_id, node.ref)] = node

    def retrieve(self, org_id: str, refs: list[str]) -> list[StoredNode]:
        return [self._nodes[(org_id, r)] for r in refs if (org_id, r) in self._nodes]


class Sloppy(SqlMemoryAdapter):
    """Has every method, but not as the protocol calls them."""

    def search(  # type: ignore[override]
        self,
        *,
        org_id: str,
        vector: bytes,
        embedder: str,
        k: int,
        allowed: frozenset[str],
        min_score: float,
        tenant: str,
    ) -> Similar:
        raise NotImplementedError

    async def retrieve(self, org_id: str, refs: list[str]) -> list[StoredNode]:  # type: ignore[override]
        return []
