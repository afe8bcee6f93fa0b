"""The memory stores' tables (and the gate's read log). Only :mod:`adapters.memory` reads
or writes them (an import-linter contract); the migrations create them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from adapters.store.tables import UTCDateTime


class MemoryNodeRow(SQLModel, table=True):
    """A node of the semantic store: text, tagged spans, embedding."""

    __tablename__ = "memory_nodes"
    __table_args__ = (
        UniqueConstraint("org_id", "revision", name="uq_memory_nodes_org_id_revision"),
    )
    org_id: str = Field(primary_key=True)
    ref: str = Field(primary_key=True)
    projects: list[str] = Field(sa_column=Column(JSON, nullable=False))
    text: str
    spans: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    """Tagged identifying detail: ``{kind, start, end}`` offsets into ``text``."""
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    """The L2-normalised float32 vector of ``text``, by ``embedder``."""
    embedder: str | None = None
    kind: str = Field(default="note", sa_column_kwargs={"server_default": "note"})
    """What sort of document it is (``note``, ``email``, ``contract``…)."""
    source: str | None = None
    """Where it came from, as its author said."""
    revision: int
    """When the node was kept or last embedded, in the organization's order of memory
    writes (unique per organization): a search index reads only what moved since."""
    author_id: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class MemoryLinkRow(SQLModel, table=True):
    """A typed link from one memory record to another: a relation (``relates``…) or a
    derivation (``derived_from``: ``src_ref`` was derived from ``dst_ref``, drawing on
    ``dst_ref``'s text between ``span_start`` and ``span_end``)."""

    __tablename__ = "memory_links"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    src_ref: str
    dst_ref: str
    kind: str
    span_start: int | None = None
    span_end: int | None = None
    author_id: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class MemoryProcedureRow(SQLModel, table=True):
    """A version of a procedure (a workflow definition or playbook): its steps, and the
    projects it belongs to (read through the release rule like any record)."""

    __tablename__ = "memory_procedures"
    org_id: str = Field(primary_key=True)
    name: str = Field(primary_key=True)
    version: int = Field(primary_key=True)
    projects: list[str] = Field(sa_column=Column(JSON, nullable=False))
    steps: list[str] = Field(sa_column=Column(JSON, nullable=False))
    author_id: str
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class MemoryReadRow(SQLModel, table=True):
    """One logged read of memory (the gate's log, not a store)."""

    __tablename__ = "memory_reads"
    id: int | None = Field(default=None, primary_key=True)
    org_id: str = Field(index=True)
    asker_id: str
    on_behalf_of: str | None = None
    """The human a run acts for, when one started it."""
    path: str = Field(default="recall", sa_column_kwargs={"server_default": "recall"})
    """The read path: ``recall`` (a run's context), ``similarity``, ``get``."""
    query: str
    released: list[str] = Field(sa_column=Column(JSON, nullable=False))
    withheld: int
    outcome: str
    at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
