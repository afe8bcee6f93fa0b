"""The storage facade the composition root builds once per process."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.memory.backends import memory_adapter
from adapters.memory.embedders import local_embedder
from adapters.memory.units import SqlMemoryUnits
from adapters.store.audit import AuditLog
from adapters.store.db import make_engine, migrate
from adapters.store.governance import SqlGovernance
from adapters.store.ingress import SqlFrontDoor
from adapters.store.offers import SqlOffers
from adapters.store.organization import SqlConfiguration
from adapters.store.organization_cache import OrgCache
from adapters.store.organization_directory import Directory
from adapters.store.runs import Runs
from adapters.store.session import Database
from domain.audit.chain import ChainKeys
from domain.memory.adapter import MemoryAdapter
from domain.memory.ports import Embedder
from usecases.memory_bank import MemoryBank


@dataclass(frozen=True)
class Store:
    """Every repository over one database."""

    db: Database
    keys: ChainKeys
    """Sign and verify the audit chains; never stored in the database."""
    directory: Directory
    configuration: SqlConfiguration
    audit: AuditLog
    governance: SqlGovernance
    memory: MemoryBank
    """The gate: the one way agent-facing code reads memory (a use case over the
    units below, built here because every process that opens a store reads through it)."""
    memory_stores: MemoryAdapter
    """Memory, ungated: for the stores that write it and the counterfactual's replays."""
    runs: Runs
    front_door: SqlFrontDoor
    offers: SqlOffers

    @classmethod
    def open(
        cls,
        url: str,
        keys: ChainKeys,
        *,
        migrate_schema: bool = True,
        embedder: Embedder | None = None,
        memory_backend: str | None = None,
    ) -> Store:
        """Connect to ``url`` (SQLite file or PostgreSQL) and bring its schema up to date.
        Memory embeds with ``embedder`` (default: the local model) and is kept by the SQL
        backend on the same database, or by the class ``memory_backend`` names
        (``pkg.mod:Class``), refused here when it does not satisfy the protocol."""
        if migrate_schema:
            migrate(url)
        db = Database(make_engine(url))
        cache = OrgCache()
        memory = memory_adapter(db.engine, url, memory_backend)
        return cls(
            db=db,
            keys=keys,
            directory=Directory(db, cache),
            configuration=SqlConfiguration(db, keys, memory),
            audit=AuditLog(db, keys, memory),
            governance=SqlGovernance(db, keys, memory, cache),
            memory=MemoryBank(SqlMemoryUnits(db, cache, memory), embedder or local_embedder()),
            memory_stores=memory,
            runs=Runs(db),
            front_door=SqlFrontDoor(db),
            offers=SqlOffers(db, keys, memory),
        )

    def close(self) -> None:
        """Release the database connections."""
        self.db.dispose()
