"""The memory gate's units over SQL: one transaction per read, holding the
organization's cached directory, its memory stores joined to the transaction, and the
read log (``memory_reads``), so that a read and its log entry commit together."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlmodel import col

from adapters.memory.tables import MemoryReadRow
from adapters.store.organization_cache import OrgCache, OrgPolicy
from adapters.store.session import Database
from adapters.store.tables import table_of
from domain.memory.adapter import MemoryAdapter
from domain.memory.ports import MemoryRead

_LOG_READ = insert(table_of(MemoryReadRow))


def _row(org_id: str, read: MemoryRead) -> dict[str, Any]:
    return {"org_id": org_id, **read.model_dump(), "released": list(read.released)}


@dataclass
class SqlMemoryUnit:
    """One read's unit: see :class:`domain.memory.ports.MemoryUnit`."""

    directory: OrgPolicy | None
    backend: MemoryAdapter
    connection: Connection
    _joined: MemoryAdapter | None = None

    @property
    def stores(self) -> MemoryAdapter:
        """The backend joined to this transaction, on first use only: a stranger's read
        never asks for it, so a backend is not touched by one (not even to join)."""
        if self._joined is None:
            self._joined = self.backend.joined(self.connection)
        return self._joined

    def log(self, org_id: str, read: MemoryRead) -> None:
        self.connection.execute(_LOG_READ, [_row(org_id, read)])


class SqlMemoryUnits:
    """:class:`domain.memory.ports.MemoryUnits` over the store's database, the
    organization cache and a memory backend."""

    def __init__(self, db: Database, cache: OrgCache, stores: MemoryAdapter) -> None:
        self._db = db
        self._cache = cache
        self._stores = stores

    @contextmanager
    def unit(self, org_id: str) -> Iterator[SqlMemoryUnit]:
        with self._db.transaction() as s:
            connection = s.connection()
            yield SqlMemoryUnit(
                directory=self._cache.current(s, org_id),
                backend=self._stores,
                connection=connection,
            )

    def log_failed(self, org_id: str, read: MemoryRead) -> None:
        with self._db.transaction() as s:
            s.connection().execute(_LOG_READ, [_row(org_id, read)])

    def reads(self, org_id: str) -> list[MemoryRead]:
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
