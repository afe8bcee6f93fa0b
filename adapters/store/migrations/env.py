"""Alembic environment: runs against the URL in the config, with our metadata."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from adapters.memory import tables as memory_tables  # noqa: F401  (registers the tables)
from adapters.store import tables  # noqa: F401  (registers the tables)
from adapters.store.db import make_engine

target_metadata = SQLModel.metadata


def run() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
