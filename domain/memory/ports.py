"""Ports of memory: embedders, the memory unit the gate reads in, the MemoryBank as its
readers see it, and recall."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pydantic import Field

from domain.memory.adapter import MemoryAdapter
from domain.memory.readers import ReaderDirectory
from domain.memory.release import NodeView
from domain.organization.contracts import Frozen


class RecallResult(Frozen):
    """What a memory read gave one asker."""

    released: tuple[str, ...] = ()
    """Texts released to the asker."""
    released_refs: tuple[str, ...] = ()
    released_projects: tuple[str, ...] = ()
    """The projects of the records released (sorted, each once): what the asker now
    knows of, which the broker counts in the reach of whatever the asker proposes."""
    withheld: int = Field(default=0, ge=0)


class EmbedPurpose(StrEnum):
    """What a text is embedded for: stored as a document, or asked as a query."""

    DOCUMENT = "document"
    QUERY = "query"


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors for similarity search."""

    @property
    def name(self) -> str:
        """Which model made the vectors (vectors of different models never mix)."""
        ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str], purpose: EmbedPurpose) -> list[bytes]:
        """One L2-normalised vector per text, as ``dimensions`` little-endian float32."""
        ...


class MemoryRead(Frozen):
    """One logged read of memory: who asked, for whom, what it released or withheld."""

    at: datetime
    asker_id: str
    on_behalf_of: str | None
    path: str
    """The read path: ``recall`` (a run's context), ``similarity``, ``get``."""
    query: str
    released: tuple[str, ...]
    withheld: int
    outcome: str
    """``released``, ``withheld``, ``empty`` or ``failed``."""


class MemoryHit(Frozen):
    """One node a similarity query released, and how similar it is (cosine)."""

    view: NodeView
    score: float


class QueryResult(Frozen):
    """What a similarity query gave one reader."""

    hits: tuple[MemoryHit, ...] = ()
    withheld: int = Field(default=0, ge=0)
    """How many of the organization's nodes the reader may not see (the same for every
    query: it says that something is withheld, nothing of what it is about)."""


class Neighbour(Frozen):
    """A record linked to another, as the reader may see it."""

    kind: str
    outgoing: bool
    """True for a link from the record asked about, False for one into it."""
    view: NodeView


class Neighbours(Frozen):
    """The records linked to one record that the reader may see, and how many not."""

    of: NodeView
    neighbours: tuple[Neighbour, ...] = ()
    withheld: int = Field(default=0, ge=0)


class ExplanationStep(Frozen):
    """One derivation in an explanation: ``view`` was drawn on, at ``source``."""

    depth: int = Field(ge=1)
    view: NodeView
    """Withheld: a step the reader may not see (nothing of it shown, not followed)."""
    source: str | None = None
    """The source span drawn on, as the reader may see it (None when withheld)."""


class Explanation(Frozen):
    """Where a record came from: its derivations, walked back, as the reader may see
    them. ``redacted`` when any step was withheld or masked."""

    of: NodeView
    steps: tuple[ExplanationStep, ...] = ()
    redacted: bool = False


class ProcedureView(Frozen):
    """A version of a procedure as the reader may see it (withheld: nothing of it)."""

    name: str | None = None
    version: int | None = None
    view: NodeView
    steps: tuple[str, ...] = ()


class MemoryUnit(Protocol):
    """One read of an organization's memory, in one transaction: the directory as of
    now (who may read what), the stores inside the transaction, and the read log, so
    that a read and its log entry commit together."""

    @property
    def directory(self) -> ReaderDirectory | None:
        """The organization's configuration as of now (None: no such organization)."""
        ...

    @property
    def stores(self) -> MemoryAdapter:
        """The organization's memory, ungated, joined to this unit's transaction."""
        ...

    def log(self, org_id: str, read: MemoryRead) -> None:
        """Log ``read`` in this unit's transaction."""
        ...


class MemoryUnits(Protocol):
    """Where the gate reads: a unit per read, and the read log."""

    def unit(self, org_id: str) -> AbstractContextManager[MemoryUnit]:
        """A unit of ``org_id``'s memory; it commits when the block ends, and rolls back
        (logging nothing) when it raises."""
        ...

    def log_failed(self, org_id: str, read: MemoryRead) -> None:
        """Log a read that failed, in a transaction of its own."""
        ...

    def reads(self, org_id: str) -> list[MemoryRead]:
        """Every read of the organization's memory, oldest first."""
        ...


class MemoryBankPort(Protocol):
    """The memory bank's read paths as the use cases see them: each names its asker,
    goes through the release rule and is logged."""

    def query(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        text: str,
        now: datetime,
        k: int = 10,
        on_behalf_of: str | None = None,
    ) -> QueryResult: ...

    def get(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> NodeView: ...

    def neighbours(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> Neighbours: ...

    def explain(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        ref: str,
        now: datetime,
        on_behalf_of: str | None = None,
    ) -> Explanation: ...

    def procedure(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        name: str,
        now: datetime,
        version: int | None = None,
        on_behalf_of: str | None = None,
    ) -> ProcedureView: ...

    def reads(self, org_id: str) -> list[MemoryRead]:
        """Every read of the organization's memory, oldest first."""
        ...


class MemoryRecall(Protocol):
    """The gated read path of the memory bank."""

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
        """Records matching ``query`` that ``asker_principal_id`` may read and, when a
        human started the run, that ``on_behalf_of`` may read too (and, with ``within``,
        only of those projects). Every read is logged, a failed one included."""
        ...
