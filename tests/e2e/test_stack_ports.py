"""`verletica up` and `make demo` beside another stack: a port it needs is taken, or its
data folder is another stack's. It refuses in one line that names the port (or folder)
and what to do, exits non-zero, plays nothing against the other server, and leaves the
other stack's files as they were; its health check answers only for what it started."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import jwt
import pytest

from adapters.ingress.local_issuer import KEY_FILE, LocalIssuer
from api.local import stack as stack_module
from api.local.stack import Stack, StackRefused
from tests.support import TEST_KEYS, free_port, until_sync
from worker.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTING = {
    "api": "VERLETICA_API_PORT",
    "issuer": "VERLETICA_LOCAL_ISSUER_PORT",
    "temporal": "VERLETICA_TEMPORAL_ADDRESS",
    "ui": "VERLETICA_TEMPORAL_UI_URL",
}


def _env(data: Path, ports: dict[str, int]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERLETICA_")}
    return {
        **env,
        "VERLETICA_DATA_DIR": str(data),
        "VERLETICA_TEMPORAL_ADDRESS": f"127.0.0.1:{ports['temporal']}",
        "VERLETICA_TEMPORAL_UI_URL": f"http://127.0.0.1:{ports['ui']}",
        "VERLETICA_API_PORT": str(ports["api"]),
        "VERLETICA_LOCAL_ISSUER_PORT": str(ports["issuer"]),
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_TASK_QUEUE": f"ports-{os.getpid()}-{ports['api']}",
    }


def _ports() -> dict[str, int]:
    return {name: free_port() for name in SETTING}


def _cli(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from api.cli.main import main; main()", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _files(data: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(data.iterdir()) if p.is_file()}


def _other_stack_files(data: Path) -> dict[str, bytes]:
    """What another stack on this folder wrote: its issuer key, its logs."""
    data.mkdir(parents=True, exist_ok=True)
    LocalIssuer.generate("http://127.0.0.1:1").save(data / KEY_FILE)
    (data / "api.log").write_text("the other stack's log\n")
    return _files(data)


def _refusal(done: subprocess.CompletedProcess[str], port: int, setting: str) -> None:
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0, done.stdout + done.stderr
    assert len(lines) == 1, lines
    assert f"port {port} " in lines[0] and setting in lines[0], lines
    assert "Traceback" not in done.stderr


@contextmanager
def _listener(port: int) -> Iterator[None]:
    """Another process's listener on ``port`` (it answers nothing)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()
        yield


class _Other(BaseHTTPRequestHandler):
    """Another stack's server: 200 to every request, counted."""

    seen: list[str] = []

    def _answer(self) -> None:
        type(self).seen.append(f"{self.command} {self.path}")
        body = b'{"status": "ok", "keys": []}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *_args: object) -> None:
        return


@contextmanager
def _other_server(port: int) -> Iterator[list[str]]:
    server = ThreadingHTTPServer(("127.0.0.1", port), _Other)
    _Other.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield _Other.seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("busy", list(SETTING))
def test_up_refuses_a_busy_port_in_one_line_and_touches_nothing(busy: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = _other_stack_files(data)
    ports = _ports()
    with _listener(ports[busy]):
        done = _cli(_env(data, ports), "up")
    _refusal(done, ports[busy], SETTING[busy])
    assert _files(data) == before  # the other stack's key and logs, as they were
    assert not (data / "temporal.pid").exists()


def test_demo_with_the_api_port_taken_refuses_and_plays_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = _other_stack_files(data)
    ports = _ports()
    with _other_server(ports["api"]) as seen:
        done = _cli(_env(data, ports), "demo", "--exit")
    _refusal(done, ports["api"], "VERLETICA_API_PORT")
    assert seen == []  # not one request played against the other server
    assert _files(data) == before


@pytest.mark.temporal
def test_a_second_stack_leaves_the_first_running_and_its_key_in_place(tmp_path: Path) -> None:
    """A real first stack; a second on its data folder (other ports) and a third on its
    ports (another folder) are refused; the first still mints and serves its key."""
    first_dir, first_ports = tmp_path / "first", _ports()
    first_dir.mkdir()
    first_env = _env(first_dir, first_ports)
    up = subprocess.Popen(
        [sys.executable, "-c", "from api.cli.main import main; main()", "up"],
        cwd=ROOT,
        env=first_env,
        stdout=(tmp_path / "first.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        log = tmp_path / "first.log"

        def said() -> str:
            seen = log.read_text(errors="replace")
            assert "Running." in seen or up.poll() is None, seen
            return seen

        until_sync(  # the stack waits 300 s on a busy machine
            said,
            accept=lambda seen: "Running." in seen,
            timeout=330,
            interval=0.3,
            what="the first stack comes up",
        )
        key = (first_dir / KEY_FILE).read_bytes()

        second = _cli(_env(first_dir, _ports()), "up")
        lines = [line for line in second.stdout.splitlines() if line.strip()]
        assert second.returncode != 0 and len(lines) == 1, second.stdout + second.stderr
        assert "VERLETICA_DATA_DIR" in lines[0] and str(up.pid) in lines[0], lines

        third_dir = tmp_path / "third"
        third = _cli(_env(third_dir, first_ports), "up")
        _refusal(third, first_ports["api"], "VERLETICA_API_PORT")

        assert (first_dir / KEY_FILE).read_bytes() == key
        token = _cli(first_env, "token", "ada@example.com")
        assert token.returncode == 0, token.stdout + token.stderr
        kid = jwt.get_unverified_header(token.stdout.strip())["kid"]
        served = httpx.get(f"http://127.0.0.1:{first_ports['issuer']}/jwks.json").json()
        assert kid in {k["kid"] for k in served["keys"]}
        assert httpx.get(f"http://127.0.0.1:{first_ports['api']}/healthz").is_success
    finally:
        up.terminate()
        assert up.wait(timeout=60) == 0
    assert not (first_dir / KEY_FILE).exists()  # its own key, removed by its own stop


@pytest.mark.temporal
def test_the_health_check_answers_only_for_the_process_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API port is taken between the check and the bind (simulated: the check says
    free): the other server answers 200 to everything, and the start is still refused."""
    ports = _ports()
    for name, value in _env(tmp_path / "data", ports).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(stack_module, "bindable", lambda _host, _port: True)
    stack = Stack(Settings())
    with _other_server(ports["api"]), pytest.raises(StackRefused) as refused:
        try:
            stack.start()
        finally:
            stack.stop()
    assert f"port {ports['api']} (the API)" in str(refused.value)
    assert stack.children == [] and stack.temporal is None
    assert not (tmp_path / "data" / KEY_FILE).exists()
