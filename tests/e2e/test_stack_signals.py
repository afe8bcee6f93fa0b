"""`verletica up` stops everything it started on SIGINT, SIGTERM and SIGHUP: no process
left running, no port left held."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import TEST_KEYS

pytestmark = pytest.mark.temporal
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_stack_stops_everything_on_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
    ports = {"temporal": _free_port(), "ui": _free_port(), "api": _free_port()}
    env = {
        **os.environ,
        "VERLETICA_DATA_DIR": str(tmp_path),
        "VERLETICA_TEMPORAL_ADDRESS": f"127.0.0.1:{ports['temporal']}",
        "VERLETICA_TEMPORAL_UI_URL": f"http://127.0.0.1:{ports['ui']}",
        "VERLETICA_API_PORT": str(ports["api"]),
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_TASK_QUEUE": f"signals-{sig.name}",
    }
    up = subprocess.Popen(
        [sys.executable, "-c", "from api.cli import main; main()", "up"],
        cwd=ROOT,
        env=env,
        stdout=(tmp_path / "up.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            assert up.poll() is None, (tmp_path / "up.log").read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{ports['api']}/healthz", timeout=1).is_success:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the stack did not come up"
            time.sleep(0.3)
        started = _descendants(up.pid)
        started.add(int((tmp_path / "temporal.pid").read_text()))  # its own session
        assert len(started) >= 3  # the dev server, a worker, the API
        assert all(_open(p) for p in ports.values())

        up.send_signal(sig)
        assert up.wait(timeout=60) == 0, (tmp_path / "up.log").read_text()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [p for p in started if _alive(p)] == []
        assert [name for name, p in ports.items() if _open(p)] == []
    finally:
        if up.poll() is None:
            up.kill()
