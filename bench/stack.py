"""A private stack for a benchmark: the Temporal dev server (tuned, on an on-disk
database), a database, and worker processes, each on free ports and in a scratch folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from adapters.store.db import libpq_url, migrate, normalise_url
from bench.cpu import CpuMeter
from domain.audit.chain import ChainKey, ChainKeys
from worker import devserver
from worker.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def database(kind: str) -> Iterator[str]:
    """A fresh, migrated database: ``sqlite`` (a file) or ``postgres`` (a new database on
    the server at ``VERLETICA_TEST_POSTGRES_URL``)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{tmp}/bench.db"
            migrate(url)
            yield url
        return
    base = os.environ["VERLETICA_TEST_POSTGRES_URL"]
    name = f"vt_bench_{uuid.uuid4().hex[:8]}"
    admin = libpq_url(base)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = normalise_url(base).rsplit("/", 1)[0] + f"/{name}"
    try:
        migrate(url)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Processes:
    """The dev server and worker processes of one benchmark."""

    def __init__(self, db_url: str, keys: ChainKeys, data: Path) -> None:
        self.data = data
        self.settings = Settings(
            database_url=db_url,
            data_dir=str(data),
            temporal_address=f"127.0.0.1:{free_port()}",
            temporal_ui_url=f"http://127.0.0.1:{free_port()}",
            task_queue=f"bench-{uuid.uuid4().hex[:6]}",
            model_provider="scripted",
            audit_key=keys.current.secret.hex(),
        )  # type: ignore[call-arg]
        self.bare_queue = f"bare-{uuid.uuid4().hex[:6]}"
        self._server: subprocess.Popen[bytes] | None = None
        self._workers: list[subprocess.Popen[bytes]] = []

    @property
    def environ(self) -> dict[str, str]:
        return {
            **os.environ,
            "VERLETICA_DATABASE_URL": self.settings.database_url,
            "VERLETICA_TEMPORAL_ADDRESS": self.settings.temporal_address,
            "VERLETICA_TASK_QUEUE": self.settings.task_queue,
            "VERLETICA_MODEL_PROVIDER": "scripted",
            "VERLETICA_AUDIT_KEY": self.settings.chain_keys().current.secret.hex(),
            "VERLETICA_DATA_DIR": str(self.data),
            "BENCH_BARE_QUEUE": self.bare_queue,
        }

    def start(self) -> None:
        self._server = devserver.start(self.settings)
        for module in ("worker", "bench.bare"):
            command = [sys.executable, "-m", module]
            if module == "worker" and os.environ.get("BENCH_PROFILE_WORKER"):
                command = [sys.executable, os.environ["BENCH_PROFILE_WORKER"]]
            self._workers.append(
                subprocess.Popen(
                    command,
                    cwd=ROOT,
                    env=self.environ,
                    stdout=(self.data / f"{module}.log").open("ab"),
                    stderr=subprocess.STDOUT,
                )
            )

    def cpu_meter(self, *, bare: bool) -> CpuMeter:
        """A meter of the governed (or the bare) worker's, the server's and this process's
        CPU from now on."""
        assert self._server is not None, "the benchmark's own dev server is not running"
        return CpuMeter(self._workers[1 if bare else 0].pid, self._server.pid)

    def stop(self) -> None:
        for proc in self._workers:
            proc.terminate()
        for proc in self._workers:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        devserver.stop(self.settings, self._server)


def bench_keys() -> ChainKeys:
    return ChainKeys(current=ChainKey(os.urandom(32)))
