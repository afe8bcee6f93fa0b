"""The local stack behind ``verletica up`` and ``make demo``: the Temporal dev server,
one worker process and the API, each started by us and stopped by PID.

A stack owns what it starts and nothing else. Before it starts anything it claims its
data folder (one stack per folder) and checks that every port it will bind is free,
refusing in one line that names the busy port and the setting that moves it; it
answers as healthy only when the servers answering are the processes it started (the
API echoes this start's instance token, the issuer serves this start's key); and it
removes only the files it wrote in this start."""

from __future__ import annotations

import fcntl
import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from adapters.ingress.local_issuer import KEY_FILE, LocalIssuer
from worker import devserver
from worker.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

INSTANCE_ENV = "VERLETICA_STACK_INSTANCE"
"""The token of one start, handed to the API it spawns and echoed at ``INSTANCE_PATH``."""
INSTANCE_PATH = "/healthz/instance"
LOCK_FILE = "stack.lock"
START_WAIT_SECONDS = 300
"""How long the stack waits for what it started to answer while every process still runs:
on a busy machine a start is slow, not failed (a process that dies ends the wait at once)."""
LOOPBACK = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}


class StackRefused(RuntimeError):
    """The stack would not start (a port taken, the data folder in use): one line saying
    what is in the way and what to do."""


@dataclass(frozen=True)
class _Port:
    """A port this stack binds, and the setting that moves it."""

    what: str
    host: str
    port: int
    setting: str

    def busy(self) -> StackRefused:
        return StackRefused(
            f"port {self.port} ({self.what}) is in use by another process: stop it "
            f"(another 'verletica up' or 'make demo'?) or set {self.setting} to a free port"
        )


def bindable(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now (as uvicorn and Temporal bind:
    SO_REUSEADDR, so a closed socket's TIME_WAIT does not count as busy)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError:
            return False
    return True


def served_app() -> FastAPI:
    """The API as the stack serves it: the app, plus the instance token of this start
    at ``INSTANCE_PATH``, so that the stack's health check knows its own server from
    another one on the same port."""
    from api.http.app import create_app

    app = create_app()
    instance = os.environ.get(INSTANCE_ENV, "")

    @app.get(INSTANCE_PATH, include_in_schema=False)
    def stack_instance() -> dict[str, str]:
        return {"instance": instance}

    return app


class Stack:
    """Processes this command started; ``stop`` ends exactly those."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.children: list[subprocess.Popen[bytes]] = []
        self.temporal: subprocess.Popen[bytes] | None = None
        self._starting_temporal = False
        self._instance = secrets.token_hex(16)
        self._lock: IO[str] | None = None
        self._issuer: LocalIssuer | None = None
        """The issuer key this start wrote (so ``stop`` removes that key and no other)."""
        self._names: dict[int, str] = {}
        self._log_since: dict[str, int] = {}
        """Where each log's part written by this start begins."""

    @property
    def api_url(self) -> str:
        return f"http://{self.settings.api_host}:{self.settings.api_port}"

    @property
    def local_issuer(self) -> bool:
        """Whether this stack serves its own OIDC issuer (no other is configured)."""
        return self.settings.oidc_issuer is None

    @property
    def issuer_key(self) -> Path:
        return Path(self.settings.data_dir) / KEY_FILE

    def issuer(self) -> LocalIssuer:
        """The local issuer, to mint ID tokens for the demo's people."""
        return LocalIssuer.load(self.settings.local_issuer_url, self.issuer_key)

    def _temporal_endpoint(self) -> tuple[str, int]:
        host, _, port = self.settings.temporal_address.rpartition(":")
        return host.strip("[]") or "127.0.0.1", int(port)

    def _ports(self) -> list[_Port]:
        """The ports this start binds itself (Temporal's only when it starts the dev server)."""
        s = self.settings
        found = [_Port("the API", s.api_host, s.api_port, "VERLETICA_API_PORT")]
        if self.local_issuer:
            found.append(
                _Port(
                    "the local OIDC issuer", "127.0.0.1", s.local_issuer_port,
                    "VERLETICA_LOCAL_ISSUER_PORT",
                )
            )  # fmt: skip
        host, port = self._temporal_endpoint()
        if host in LOOPBACK:
            ui = urlsplit(s.temporal_ui_url).port or port + 1000
            found += [
                _Port("Temporal's frontend", host, port, "VERLETICA_TEMPORAL_ADDRESS"),
                _Port("Temporal's web UI", host, ui, "VERLETICA_TEMPORAL_UI_URL"),
            ]
        return found

    def _own_devserver(self) -> bool:
        """Whether this data folder's dev server (``temporal-dev/start``) is running: the
        PID its file names is alive. Only such a server is used instead of starting one."""
        pid_file = Path(self.settings.data_dir) / "temporal.pid"
        try:
            os.kill(int(pid_file.read_text()), 0)
        except (OSError, ValueError):
            return False
        return True

    def claim(self) -> None:
        """Claim the data folder and check every port, before anything is started or
        written; raise ``StackRefused`` saying what is in the way."""
        if self._lock is not None:
            return
        data = Path(self.settings.data_dir)
        data.mkdir(parents=True, exist_ok=True)
        for port in self._ports():
            if bindable(port.host, port.port):
                continue
            if port.setting.startswith("VERLETICA_TEMPORAL") and self._own_devserver():
                continue  # this folder's own server (temporal-dev/start): used, not started
            raise port.busy()
        lock = (data / LOCK_FILE).open("a+")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            lock.close()
            raise StackRefused(
                f"another stack (pid {holder}) runs on the data folder {data}: stop it, "
                "or set VERLETICA_DATA_DIR to a folder of this stack's own"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        self._lock = lock

    def _spawn(self, name: str, *args: str) -> None:
        log = open(Path(self.settings.data_dir) / f"{name}.log", "ab")  # noqa: SIM115
        self._log_since[name] = log.tell()
        child = subprocess.Popen(
            [sys.executable, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, INSTANCE_ENV: self._instance},
        )
        self.children.append(child)
        self._names[child.pid] = name

    def start(self) -> None:
        """Claim the folder and ports, then the dev server (unless this folder's own one
        runs), a worker, the API; wait until they answer, and are ours."""
        self.claim()
        self.settings.chain_keys()  # the worker and the API must find one audit key, not race
        self.settings.approval_keys()  # and one approval key
        if self.local_issuer:
            # a fresh key each start: tokens minted by an earlier stack prove nothing
            issuer = LocalIssuer.generate(self.settings.local_issuer_url)
            issuer.save(self.issuer_key)
            self._issuer = issuer
        try:
            self._starting_temporal = True  # a signal during the start must still stop it
            self._log_since["temporal"] = self._log_size("temporal")
            try:
                self.temporal = devserver.start(self.settings)
            except RuntimeError:
                self._bind_failure("temporal")
                raise
            self._starting_temporal = False
            if self.local_issuer:
                self._spawn("issuer", "-m", "api.local.issuer")
            self._spawn("worker", "-m", "worker")
            self._spawn(
                "api", "-m", "uvicorn", "--factory", "api.local.stack:served_app",
                "--host", self.settings.api_host, "--port", str(self.settings.api_port),
            )  # fmt: skip
            self._wait_healthy(time.monotonic() + START_WAIT_SECONDS)
        except BaseException:
            self.stop()
            raise

    def _log_size(self, name: str) -> int:
        log = Path(self.settings.data_dir) / f"{name}.log"
        return log.stat().st_size if log.exists() else 0

    def _bind_failure(self, name: str) -> None:
        """Raise the busy-port refusal when what this start wrote to ``name``'s log says a
        port was taken (between the check and the bind: another process was quicker)."""
        log = Path(self.settings.data_dir) / f"{name}.log"
        if not log.exists():
            return
        with log.open("rb") as f:
            f.seek(self._log_since.get(name, 0))
            said = f.read().decode(errors="replace")
        if "address already in use" not in said.lower():
            return
        mine = {"api": ("the API",), "issuer": ("the local OIDC issuer",)}.get(
            name, ("Temporal's frontend", "Temporal's web UI")
        )
        candidates = [p for p in self._ports() if p.what in mine]
        for port in candidates:
            if f":{port.port}" in said:
                raise port.busy()
        if candidates:
            raise candidates[0].busy()

    def _wait_healthy(self, deadline: float) -> None:
        ports = {p.what: p for p in self._ports()}
        while True:
            self._check_alive()
            if self._ours(ports):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"the API (or the local issuer) did not answer in {START_WAIT_SECONDS} s; "
                    f"see {self.settings.data_dir}/*.log"
                )
            time.sleep(0.3)

    def _check_alive(self) -> None:
        """Every process we started still runs; one that failed to bind names its port."""
        if self.temporal is not None and self.temporal.poll() is not None:
            self._bind_failure("temporal")
            raise RuntimeError(
                f"the Temporal dev server exited; see {self.settings.data_dir}/temporal.log"
            )
        for child in self.children:
            if child.poll() is None:
                continue
            name = self._names[child.pid]
            self._bind_failure(name)
            raise RuntimeError(f"the {name} exited early; see {self.settings.data_dir}/{name}.log")

    def _ours(self, ports: dict[str, _Port]) -> bool:
        """The API answers with this start's instance token and the issuer serves this
        start's key; an answer from anyone else on our ports refuses the start."""
        try:
            answer = httpx.get(f"{self.api_url}{INSTANCE_PATH}", timeout=1)
            if answer.status_code != 200:
                return False
            if answer.json().get("instance") != self._instance:
                raise ports["the API"].busy()
            if self._issuer is not None:
                keys = httpx.get(f"{self.settings.local_issuer_url}/jwks.json", timeout=1)
                if keys.status_code != 200:
                    return False
                kids = {k.get("kid") for k in keys.json().get("keys", [])}
                if self._issuer.kid not in kids:
                    raise ports["the local OIDC issuer"].busy()
        except (httpx.HTTPError, ValueError, AttributeError):
            return False
        return True

    def stop(self) -> None:
        """Terminate our children, then the dev server if we started it; remove the issuer
        key this start wrote (nothing mints for a stopped stack), and no other file."""
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        for child in self.children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        self.children.clear()
        if self._issuer is not None:
            self._remove_our_key(self._issuer)
            self._issuer = None
        if self.temporal is not None:
            devserver.stop(self.settings, self.temporal)
            self.temporal = None
        elif self._starting_temporal:
            devserver.stop(self.settings)  # by the PID file it wrote
            self._starting_temporal = False
        if self._lock is not None:
            self._lock.close()  # releases the folder (the file stays: it is the lock)
            self._lock = None

    def _remove_our_key(self, ours: LocalIssuer) -> None:
        try:
            on_disk = LocalIssuer.load(self.settings.local_issuer_url, self.issuer_key)
        except (OSError, ValueError):
            return
        if on_disk.kid == ours.kid:
            self.issuer_key.unlink(missing_ok=True)
