"""`verletica up` stops everything it started on SIGINT, SIGTERM and SIGHUP: no process
left running, no port left held."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from functools import partial
from pathlib import Path

import httpx
import pytest

from tests.support import TEST_KEYS, free_port, until_sync

pytestmark = pytest.mark.temporal
ROOT = Path(__file__).resolve().parents[2]


def _open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _descendants(pid: int) -> set[int]:
    """Every process whose ancestry leads to ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def _settled(up: subprocess.Popen[bytes], port: int) -> bool:
    """Whether ``up`` has exited, or answers healthy on its API's ``port``."""
    if up.poll() is not None:
        return True
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).is_success
    except httpx.HTTPError:
        return False


def _bring_up(
    data: Path, sig: signal.Signals
) -> tuple[subprocess.Popen[bytes], dict[str, int], Path]:
    """``verletica up`` on free ports, running and healthy, and its data folder. A free port can be taken by
    another process between choosing it and binding it (this machine runs other tests):
    a start that fails on a port already in use is tried again on new ports."""
    for attempt in range(3):
        where = data / f"try{attempt}"
        where.mkdir()
        ports = {n: free_port() for n in ("temporal", "ui", "api", "issuer")}
        env = {  # every port the stack binds, free: never the defaults another stack holds
            **{k: v for k, v in os.environ.items() if not k.startswith("VERLETICA_")},
            "VERLETICA_DATA_DIR": str(where),
            "VERLETICA_TEMPORAL_ADDRESS": f"127.0.0.1:{ports['temporal']}",
            "VERLETICA_TEMPORAL_UI_URL": f"http://127.0.0.1:{ports['ui']}",
            "VERLETICA_API_PORT": str(ports["api"]),
            "VERLETICA_LOCAL_ISSUER_PORT": str(ports["issuer"]),
            "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
            "VERLETICA_TASK_QUEUE": f"signals-{sig.name}",
        }
        up = subprocess.Popen(
            [sys.executable, "-c", "from api.cli.main import main; main()", "up"],
            cwd=ROOT,
            env=env,
            stdout=(where / "up.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        try:  # the stack waits 300 s on a busy machine
            until_sync(
                partial(_settled, up, ports["api"]),
                timeout=330,
                interval=0.3,
                what="the stack comes up (or exits)",
            )
        except AssertionError:
            up.kill()
            raise
        if up.poll() is None:
            return up, ports, where
        said = (where / "up.log").read_text(errors="replace")
        assert "is in use by another process" in said, said[-3000:]
    raise AssertionError("three starts in a row found a chosen port taken")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_stack_stops_everything_on_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
    up, ports, data = _bring_up(tmp_path, sig)
    try:
        started = _descendants(up.pid)
        started.add(int((data / "temporal.pid").read_text()))  # its own session
        assert len(started) >= 3  # the dev server, a worker, the API
        assert all(_open(p) for p in ports.values())

        up.send_signal(sig)
        assert up.wait(timeout=60) == 0, (data / "up.log").read_text()
        until_sync(
            lambda: [p for p in started if _alive(p)],
            accept=lambda alive: not alive,
            timeout=30,
            interval=0.2,
            what="every process it started has exited",
        )
        assert [name for name, p in ports.items() if _open(p)] == []
    finally:
        if up.poll() is None:
            up.kill()
