"""The local stack behind ``verletica up`` and ``make demo``: the Temporal dev server,
one worker process and the API, each started by us and stopped by PID."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import httpx

from adapters.ingress.local_issuer import KEY_FILE, LocalIssuer
from worker import devserver
from worker.settings import Settings


class Stack:
    """Processes this command started; ``stop`` ends exactly those."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.children: list[subprocess.Popen[bytes]] = []
        self.temporal: subprocess.Popen[bytes] | None = None
        self._starting_temporal = False

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

    def _spawn(self, name: str, *args: str) -> None:
        log = open(Path(self.settings.data_dir) / f"{name}.log", "ab")  # noqa: SIM115
        self.children.append(
            subprocess.Popen([sys.executable, *args], stdout=log, stderr=subprocess.STDOUT)
        )

    def start(self) -> None:
        """Dev server (unless one answers already), a worker, the API; wait until healthy."""
        Path(self.settings.data_dir).mkdir(parents=True, exist_ok=True)
        self.settings.chain_keys()  # the worker and the API must find one audit key, not race
        self.settings.approval_keys()  # and one approval key
        if self.local_issuer:
            # a fresh key each start: tokens minted by an earlier stack prove nothing
            LocalIssuer.generate(self.settings.local_issuer_url).save(self.issuer_key)
        self._starting_temporal = True  # a signal during the start must still stop it
        self.temporal = devserver.start(self.settings)
        self._starting_temporal = False
        if self.local_issuer:
            self._spawn("issuer", "-m", "api.issuer")
        self._spawn("worker", "-m", "worker")
        self._spawn(
            "api", "-m", "uvicorn", "--factory", "api.app:create_app",
            "--host", self.settings.api_host, "--port", str(self.settings.api_port),
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            for child in self.children:
                if child.poll() is not None:
                    self.stop()
                    raise RuntimeError(
                        f"{cast(list[str], child.args)[2]} exited early; "
                        f"see {self.settings.data_dir}/*.log"
                    )
            ready = [f"{self.api_url}/healthz"]
            if self.local_issuer:
                ready.append(f"{self.settings.local_issuer_url}/jwks.json")
            try:
                if all(httpx.get(url, timeout=1).status_code == 200 for url in ready):
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError("the API (or the local issuer) did not answer in 60 s")
            time.sleep(0.3)

    def stop(self) -> None:
        """Terminate our children, then the dev server if we started it."""
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        for child in self.children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        self.children.clear()
        if self.local_issuer:
            self.issuer_key.unlink(missing_ok=True)  # nothing mints for a stopped stack
        if self.temporal is not None:
            devserver.stop(self.settings, self.temporal)
            self.temporal = None
        elif self._starting_temporal:
            devserver.stop(self.settings)  # by the PID file it wrote
            self._starting_temporal = False
