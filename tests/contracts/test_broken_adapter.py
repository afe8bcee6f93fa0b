"""The contract suite can fail: a broken backend fails it, a non-adapter is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine

from adapters.memory.backends import BackendRefused, checked_adapter, memory_adapter, problems
from adapters.store.db import make_engine
from adapters.store.store import Store
from domain.memory.adapter import MemoryAdapter
from tests.contracts.broken import Leaky, Sloppy
from tests.contracts.failing import failed_checks
from tests.contracts.memory_contract import ADAPTER_CHECKS
from tests.support import TEST_KEYS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def engine(sqlite_url: str) -> Engine:
    return make_engine(sqlite_url)


def test_a_leaky_backend_fails_exactly_the_checks_it_breaks(engine: Engine) -> None:
    assert failed_checks(ADAPTER_CHECKS, lambda: Leaky(engine)) == [
        "searches_by_cosine_within_the_allowed_projects",
        "searches_nothing_for_a_reader_of_no_project",
        "honours_a_minimum_score",
        "versions_procedures_newest_first",
    ]


def test_make_contracts_pointed_at_a_broken_backend_fails(sqlite_url: str) -> None:
    """What ``make contracts ADAPTER=tests.contracts.broken:Leaky`` runs."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "tests/contracts/test_memory_contracts.py",
            "-k",
            "backend",
            "--adapter=tests.contracts.broken:Leaky",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4 failed, 8 passed" in done.stdout, done.stdout


def test_a_class_that_is_not_a_backend_is_refused_with_what_it_lacks(
    engine: Engine, sqlite_url: str
) -> None:
    with pytest.raises(BackendRefused) as refused:
        memory_adapter(engine, sqlite_url, "tests.contracts.broken:Incomplete")
    message = str(refused.value)
    assert "does not satisfy MemoryAdapter" in message
    for missing in ("no method search()", "no method links()", "no method joined()"):
        assert missing in message
    assert "store(): takes no parameter 'embedding'" in message
    with pytest.raises(BackendRefused, match="not an import path"):
        memory_adapter(engine, sqlite_url, "tests.contracts.broken.Leaky")
    with pytest.raises(BackendRefused, match="cannot import"):
        memory_adapter(engine, sqlite_url, "no_such_module:Thing")
    with pytest.raises(BackendRefused, match="has no 'Missing'"):
        memory_adapter(engine, sqlite_url, "tests.contracts.broken:Missing")
    with pytest.raises(BackendRefused, match="failed to start"):
        memory_adapter(engine, sqlite_url, "decimal:Decimal")  # Decimal(url) raises
    with pytest.raises(BackendRefused):
        Store.open(sqlite_url, TEST_KEYS, migrate_schema=False, memory_backend="json:dumps")


def test_the_shipped_backend_satisfies_the_protocol(engine: Engine) -> None:
    from adapters.memory.sql import SqlMemoryAdapter

    adapter = SqlMemoryAdapter(engine)
    assert problems(adapter, MemoryAdapter) == []
    assert isinstance(adapter, MemoryAdapter)


def test_a_worker_configured_with_a_non_backend_refuses_to_start(sqlite_url: str) -> None:
    env = {
        **os.environ,
        "VERLETICA_DATABASE_URL": sqlite_url,
        "VERLETICA_MEMORY_ADAPTER": "tests.contracts.broken:Incomplete",
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_TEMPORAL_ADDRESS": "127.0.0.1:1",  # never reached: it stops before
    }
    done = subprocess.run(
        [sys.executable, "-m", "worker"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "does not satisfy MemoryAdapter" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_backend_whose_methods_cannot_be_called_as_the_protocol_calls_them_is_refused(
    engine: Engine,
) -> None:
    found = problems(Sloppy(engine), MemoryAdapter)
    assert "search(): 'org_id' must be passable by position and by name" in found
    assert "search(): 'min_score' must have a default (callers may leave it out)" in found
    assert "search(): requires 'tenant', which the protocol never passes" in found
    assert "retrieve() is a coroutine; the protocol calls it synchronously" in found
    with pytest.raises(BackendRefused, match="tenant"):
        checked_adapter(Sloppy(engine), "tests.contracts.broken:Sloppy")
