"""The memory backend port: what a store of memory must do, whatever holds it.

A :class:`MemoryAdapter` keeps the four stores of an organization's memory: nodes with
their text, tagged spans and embedding (semantic), typed links between nodes
(relational), ``derived_from`` links with the source span (causal), and versioned
procedures (procedural). It is ungated on purpose: it answers for an organization, not
for a reader. The gate is :class:`usecases.memory_bank.MemoryBank`, the only module
that reads an adapter, which asks :func:`domain.memory.release.release` about every
node it would hand out. The one concession to the gate is :meth:`MemoryAdapter.search`:
it takes the projects a reader may see, so that the top hits are the top hits that
reader may see (the bank still checks each one).

The shipped backends are SQL (SQLite, the embedded default, and PostgreSQL); the
contract suite in ``tests/contracts`` runs against each of them and against any class
named by import path (``make contracts ADAPTER=pkg.mod:Class``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import Field

from domain.memory.release import StoredNode
from domain.organization.contracts import Frozen

DERIVED_FROM = "derived_from"
"""The causal link kind: ``src`` was derived from ``dst``."""


class Embedding(Frozen):
    """A node's vector: L2-normalised little-endian float32, and the model that made it
    (vectors of different models are never compared)."""

    embedder: str = Field(min_length=1)
    vector: bytes


class MemoryLink(Frozen):
    """A typed link from one node to another. ``derived_from`` is causal: ``src`` was
    derived from ``dst``, drawing on ``dst``'s text between ``span_start`` and
    ``span_end``; any other kind is a relation."""

    id: str = Field(min_length=1)
    src: str
    dst: str
    kind: str = Field(min_length=1)
    span_start: int | None = None
    span_end: int | None = None


class Procedure(Frozen):
    """One version of a procedure (a workflow definition or playbook): its steps, and the
    projects it belongs to, read through the release rule like a node."""

    name: str = Field(min_length=1)
    version: int = Field(ge=1)
    projects: tuple[str, ...]
    steps: tuple[str, ...]


class Similar(Frozen):
    """A similarity search: the best nodes among those a reader may see, best first, and
    how many of the organization's nodes the reader may not see."""

    hits: tuple[tuple[str, float], ...] = ()
    """``(ref, cosine similarity)`` pairs."""
    withheld: int = Field(default=0, ge=0)
    """How many of the organization's nodes (embedded by the same model) lie outside
    what the reader may see: the same for every query, so that it tells the reader that
    something is withheld and nothing of what it is about."""


@runtime_checkable
class MemoryAdapter(Protocol):
    """A backend holding an organization's memory: the four stores, ungated.

    Writes are idempotent only where stated; a second node with a stored reference is a
    :class:`~domain.errors.Conflict`. Every method answers for one organization and
    never for another.
    """

    def joined(self, unit: object) -> MemoryAdapter:
        """This adapter inside the caller's unit of work (for the SQL backends, a
        SQLAlchemy connection in a transaction), so that a write commits or rolls back
        with the audit entry that records it. A backend that cannot join a transaction
        returns itself."""
        ...

    def store(
        self,
        node: StoredNode,
        *,
        author_id: str,
        at: datetime,
        embedding: Embedding | None = None,
    ) -> None:
        """Keep ``node`` (its organization is ``node.org_id``); a reference is kept once."""
        ...

    def retrieve(self, org_id: str, refs: Sequence[str]) -> list[StoredNode]:
        """The stored nodes among ``refs`` (unknown ones are left out), in ``refs`` order."""
        ...

    def nodes(self, org_id: str) -> list[StoredNode]:
        """Every node of the organization, by reference."""
        ...

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
        """The ``k`` nodes embedded by ``embedder`` most similar to ``vector`` among
        those whose projects all lie in ``allowed`` (and that score at least
        ``min_score``); ties in the order nodes were kept; and how many of the
        organization's nodes lie outside ``allowed``, whatever the query."""
        ...

    def unembedded(self, org_id: str, embedder: str, limit: int) -> list[StoredNode]:
        """Up to ``limit`` nodes not embedded by ``embedder`` (none, or another model),
        oldest first: what to embed again after a change of embedder."""
        ...

    def embed_again(self, org_id: str, ref: str, embedding: Embedding) -> None:
        """Replace node ``ref``'s embedding (its text and everything else stay)."""
        ...

    def link(self, org_id: str, link: MemoryLink, *, author_id: str, at: datetime) -> None:
        """Keep a link between two nodes of the organization."""
        ...

    def links(self, org_id: str, ref: str | None = None) -> list[MemoryLink]:
        """The links from or to ``ref`` (every link when ``None``), oldest first."""
        ...

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
        """Keep the next version of procedure ``name`` (version 1 when it is new)."""
        ...

    def procedures(self, org_id: str, name: str | None = None) -> list[Procedure]:
        """The versions of procedure ``name``, newest first (every procedure's versions
        when ``None``)."""
        ...
