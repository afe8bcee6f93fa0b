"""The command-line page (``docs/cli.md``, the README's command-line section before the
README became a map) runs as shown after ``make demo``: the demo is played as ``make
demo`` plays it (``verletica demo``, its own stack, on free ports), and then both of the
page's code blocks run in bash, line after line, in a folder laid out like a checkout
after the demo (``.venv``, ``examples``, ``.verletica`` with the demo's ``demo.env``).
A line of the page that stops working fails this test.

Each ``verletica`` the blocks call runs the CLI in this process (typer's runner, with
the environment, folder and arguments bash gives it): bash is the shell the page is
written for, and the CLI's three seconds of start-up per command would otherwise make
this test take minutes."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from api.cli.main import app
from tests.support import free_port, until_sync
from tests.unit.test_readme_commands import INVOCATION, blocks

pytestmark = pytest.mark.temporal
ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
CLIENT = """\
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["README_CLI_SOCKET"])
s.sendall(json.dumps({"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd()}).encode())
s.shutdown(socket.SHUT_WR)
answer = json.loads(b"".join(iter(lambda: s.recv(65536), b"")))
sys.stdout.write(answer["stdout"]); sys.stderr.write(answer["stderr"])
sys.exit(answer["code"])
"""


def _received(conn: socket.socket) -> bytes:
    """Everything the peer sent, until it shut its side."""
    parts = []
    while chunk := conn.recv(65536):
        parts.append(chunk)
    return b"".join(parts)


@dataclass
class Call:
    """One ``verletica`` the page ran: its words, exit code and output."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str


class InProcessCli:
    """A Unix socket answering ``verletica`` invocations with the CLI run here, one at a
    time, each under the environment and in the folder its shell had."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls: list[Call] = []
        self._server = socket.socket(socket.AF_UNIX)
        self._server.bind(str(path))
        self._server.listen()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                request = json.loads(_received(conn))
                conn.sendall(json.dumps(self._run(request)).encode())

    def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        try:
            result = CliRunner().invoke(app, request["argv"], catch_exceptions=True)
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
        stderr = result.stderr
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            stderr += f"{type(result.exception).__name__}: {result.exception}\n"
        call = Call(request["argv"], result.exit_code, result.stdout, stderr)
        self.calls.append(call)
        return {"stdout": call.stdout, "stderr": call.stderr, "code": call.code}

    def close(self) -> None:
        self._server.close()


@dataclass
class Checkout:
    """A folder laid out like a checkout after ``make demo``, and the environment that
    points the CLI at the demo's stack (its free ports: nothing else differs)."""

    where: Path
    env: dict[str, str]


def _started(data: Path, log: Path, demo: subprocess.Popen[bytes]) -> bool:
    """Wait until the demo has played and keeps its stack up (True), or has exited
    because a chosen port was taken meanwhile (False)."""
    until_sync(
        lambda: log.read_text(errors="replace"),
        accept=lambda said: "Running." in said or demo.poll() is not None,
        timeout=420,  # the stack waits up to 300 s on a busy machine
        interval=0.5,
        what="the demo plays (or exits)",
    )
    if demo.poll() is None:
        return True  # played (its demo.env is the walkthrough's to find)
    said = log.read_text(errors="replace")
    assert "is in use by another process" in said, said[-3000:]
    return False


def _stop(demo: subprocess.Popen[bytes], data: Path) -> None:
    """Ctrl-C, as a person stops the demo; whatever is left is ended by its PID."""
    if demo.poll() is None:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(timeout=60)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait()
            pid = data / "temporal.pid"
            if pid.exists():
                try:
                    os.kill(int(pid.read_text()), signal.SIGKILL)
                except (OSError, ValueError):
                    pass


@pytest.fixture(scope="module")
def after_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checkout]:
    """``verletica demo --keep-running`` (what ``make demo`` runs) played and still up."""
    base = tmp_path_factory.mktemp("readme")
    for attempt in range(3):  # a free port can be taken between choosing and binding it
        where = base / f"try{attempt}"
        where.mkdir()
        (where / ".venv").symlink_to(VENV_BIN.parent)
        (where / "examples").symlink_to(ROOT / "examples")
        data = where / ".verletica"
        ports = {n: free_port() for n in ("temporal", "ui", "api", "issuer")}
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith("VERLETICA_") and k not in ("GEMINI_API_KEY", "VIRTUAL_ENV")
            },
            "VERLETICA_DATA_DIR": str(data),
            "VERLETICA_TEMPORAL_ADDRESS": f"127.0.0.1:{ports['temporal']}",
            "VERLETICA_TEMPORAL_UI_URL": f"http://127.0.0.1:{ports['ui']}",
            "VERLETICA_API_PORT": str(ports["api"]),
            "VERLETICA_LOCAL_ISSUER_PORT": str(ports["issuer"]),
            "VERLETICA_TASK_QUEUE": f"readme-{attempt}-{ports['api']}",
        }
        log = where / "demo.log"
        demo = subprocess.Popen(
            [str(VENV_BIN / "verletica"), "demo", "--keep-running"],
            cwd=where,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        try:
            if _started(data, log, demo):
                yield Checkout(where, env)
                return
        finally:
            _stop(demo, data)
    raise AssertionError("three starts in a row found a chosen port taken")


def _run_block(checkout: Checkout, block: str, cli: InProcessCli, name: str) -> str:
    """Run ``block`` in bash as a script (stopping at the first line that fails), each
    ``verletica`` answered by ``cli``; bash's output."""
    script = checkout.where / f"{name}.sh"
    client = checkout.where / "verletica-client.py"
    client.write_text(CLIENT, encoding="utf-8")
    prelude = (
        "set -eo pipefail\n"
        "trap 'echo \"docs/cli.md line failed ($?): $BASH_COMMAND\" >&2' ERR\n"
        f'verletica() {{ {shlex.quote(sys.executable)} {shlex.quote(str(client))} "$@"; }}\n'
    )
    state = checkout.where / ".shell-env"
    # the second block goes on in the shell the first left (its PATH, its variables)
    resume = f"[ -f {state} ] && . {state}\n"
    keep = f"export -p > {state}\n"
    script.write_text(prelude + resume + block + "\n" + keep, encoding="utf-8")
    done = subprocess.run(
        ["bash", str(script)],
        cwd=checkout.where,
        env={**checkout.env, "README_CLI_SOCKET": str(cli.path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = done.stdout + done.stderr
    failed = [c for c in cli.calls if c.code != 0]
    assert failed == [], "\n".join(
        f"verletica {shlex.join(c.argv)} → exit {c.code}\n{c.stdout[-2000:]}{c.stderr[-2000:]}"
        for c in failed
    )
    assert done.returncode == 0, said[-4000:]
    return said


def _invocations(block: str) -> int:
    return sum(len(INVOCATION.findall(line.split("  #", 1)[0])) for line in block.splitlines())


def _output(calls: list[Call], *argv: str) -> str:
    """The output of the call whose words begin with ``argv`` (the last such)."""
    (found, *_) = [c for c in reversed(calls) if c.argv[: len(argv)] == list(argv)]
    return found.stdout


def test_activate_puts_verletica_on_path(after_demo: Checkout) -> None:
    found = subprocess.run(
        ["bash", "-c", ". .venv/bin/activate && type -P verletica"],
        cwd=after_demo.where,
        env=after_demo.env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(found.stdout.strip()).resolve() == (VENV_BIN / "verletica").resolve()


def test_every_readme_command_runs_as_shown_after_the_demo(after_demo: Checkout) -> None:
    walkthrough, own_firm = blocks()
    sock = Path(f"/tmp/vt-readme-{os.getpid()}-{free_port()}.sock")
    cli = InProcessCli(sock)
    try:
        _run_block(after_demo, walkthrough, cli, "walkthrough")
        calls = list(cli.calls)
        assert len(calls) == _invocations(walkthrough)
        _run_block(after_demo, own_firm, cli, "own-firm")
        assert len(cli.calls) - len(calls) == _invocations(own_firm)
    finally:
        cli.close()
        sock.unlink(missing_ok=True)

    # signed in as the demo's people, on the demo's firm and records
    projects = _output(calls, "projects", "list")
    assert "Project Atlas" in projects and "Project Birch" in projects
    assert json.loads(_output(calls, "audit", "verify"))["ok"] is True
    assert "the wall held" in _output(calls, "counterfactual")
    held = json.loads((after_demo.where / ".verletica" / "held.json").read_text())
    (decision, *_) = held["intents"][0]["decisions"]
    assert decision["outcome"] == "hold"
    assert json.loads(_output(calls, "approve"))["signal"] == "approve"
    fulfilled = json.loads(_output(calls, "commit", "fulfilled"))
    assert fulfilled["fulfilment_note"] == "index sent, ref DR-7"
    # Ben reads East's playbook and records, and nothing of West's note
    assert "atlas-kickoff-prep" in _output(calls, "memory", "procedure")
    contact = _output(calls, "memory", "query", "Birch client contact: name, email and phone")
    assert "birch-diligence" not in contact and "withheld" in contact
    # a firm of one's own: founded, and its planner's email allowed
    own = cli.calls[len(calls) :]
    assert "all_stages_passed" in _output(own, "run", "orion")
