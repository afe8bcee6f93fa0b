"""Unit of work: one transaction per call, committed on success, rolled back on error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlmodel import Session

from adapters.store.db import READ_ONLY


class Database:
    """Owns the engine; hands out transactions."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._reader = engine.execution_options(**{READ_ONLY: True})

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session inside one transaction (``BEGIN IMMEDIATE`` on SQLite)."""
        with Session(self.engine, expire_on_commit=False) as session:
            with session.begin():
                yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session inside one read-only transaction: a consistent snapshot that takes no
        write lock (SQLite: ``BEGIN DEFERRED``; PostgreSQL: repeatable read, read only).
        Writing in it is a mistake (PostgreSQL refuses it)."""
        with Session(self._reader, expire_on_commit=False) as session:
            with session.begin():
                yield session

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
