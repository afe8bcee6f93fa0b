"""Engines and migrations for SQLite (embedded default) and PostgreSQL."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.pool import NullPool

MIGRATIONS = Path(__file__).parent / "migrations"
READ_ONLY = "verletica_read_only"
"""Execution option marking a read-only transaction that reads one snapshot (SQLite:
``BEGIN DEFERRED``; PostgreSQL: repeatable read, read only)."""


def normalise_url(url: str) -> str:
    """Accept ``postgres://`` and ``postgresql://``; always drive PostgreSQL with psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def libpq_url(url: str) -> str:
    """The same PostgreSQL URL in the plain form psycopg's own ``connect`` takes."""
    return normalise_url(url).replace("postgresql+psycopg://", "postgresql://", 1)


def make_engine(url: str) -> Engine:
    """An engine with the settings this project relies on.

    SQLite: WAL, a busy timeout, and ``BEGIN IMMEDIATE`` for every transaction, so
    that concurrent writers (API, several workers) queue instead of failing, and so
    that the audit head read and the append happen under one write lock. Both: a read
    (:data:`READ_ONLY`) sees the database as of one moment, whatever commits meanwhile.
    """
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # let us issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed decision survives a power cut, not only a crash (group
            # commit keeps the cost of the fsync per batch, not per decision).
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Any) -> None:
            # A write takes the write lock up front; a read (Database.read) does not, so
            # that a long read (a verification) never stalls the writers.
            read_only = conn.get_execution_options().get(READ_ONLY, False)
            conn.exec_driver_sql("BEGIN DEFERRED" if read_only else "BEGIN IMMEDIATE")

        return engine
    engine = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)

    @event.listens_for(engine, "begin")
    def _snapshot_reads(conn: Any) -> None:
        # PostgreSQL's default, read committed, gives each statement of a transaction its
        # own moment. A read of several statements must see one: a verification that read
        # the chain, then the connector rows, saw a payment committed in between without
        # its dispatch entry, called the chain broken and poisoned the broker (chaos at
        # load, 1 run in 10). A read-only repeatable read never fails to serialize.
        if conn.get_execution_options().get(READ_ONLY, False):
            conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")

    @event.listens_for(engine, "connect")
    def _utc_session(dbapi_conn: Any, _record: Any) -> None:
        # Instants are read back in the session's time zone; a server configured for,
        # say, Europe/Berlin would turn 9999-12-31T23:59:59Z into year 10000 and fail.
        with dbapi_conn.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
        dbapi_conn.commit()

    return engine


def alembic_config(url: str) -> Config:
    """Alembic configuration pointing at the packaged migrations."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the schema at ``url`` to the newest migration. Processes that start
    together (``verletica up`` starts the worker and the API at once) migrate one at a
    time: the second finds the schema current. Without that, on a busy machine both ran
    the same step and the second failed on a column the first had just added."""
    with _one_migration_at_a_time(url):
        command.upgrade(alembic_config(url), "head")


_MIGRATION_LOCK = 0x76657231
"""PostgreSQL's advisory-lock key for migrations ("ver1")."""


@contextmanager
def _one_migration_at_a_time(url: str) -> Iterator[None]:
    """An exclusive lock for migrating ``url``: a file lock beside a SQLite database, an
    advisory lock on PostgreSQL."""
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if not database or database == ":memory:":
            yield
            return
        lock = Path(database).with_name(Path(database).name + ".migrating")
        with lock.open("a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(held, fcntl.LOCK_UN)
        return
    engine = create_engine(normalise_url(url), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _MIGRATION_LOCK})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _MIGRATION_LOCK})
    finally:
        engine.dispose()


def utc(value: datetime) -> datetime:
    """Times read back from SQLite are naive; they were written in UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_or_none(value: datetime | None) -> datetime | None:
    """:func:`utc` for optional times."""
    return None if value is None else utc(value)
