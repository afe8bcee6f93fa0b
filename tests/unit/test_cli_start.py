"""``verletica`` starts at once: importing the command line, and asking it or any of its
groups for help, imports none of the heavy libraries its commands use (Temporal, the model
SDK, the database, the embedders, the HTTP framework). Checked by what a fresh interpreter
has imported, not by a clock: a timed assertion would fail on a busy machine and pass a
slow import on a fast one. (``make bench`` reports the time itself: ``--only cli_start``.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import typer.main

from api.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
VERLETICA = Path(sys.executable).parent / "verletica"
HEAVY = {
    "temporalio",
    "google",
    "sqlalchemy",
    "sqlmodel",
    "psycopg",
    "fastembed",
    "onnxruntime",
    "numpy",
    "fastapi",
}


def _heavy_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter has imported after running ``code``."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(HEAVY)})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


def _groups() -> list[str]:
    """The command groups (projects, commit, audit, …), as the app defines them."""
    commands = typer.main.get_command(app).commands
    return [name for name, command in commands.items() if hasattr(command, "commands")]


def test_importing_the_command_line_imports_no_heavy_library() -> None:
    assert _heavy_after("import api.cli.main") == []


def test_the_check_sees_a_heavy_import() -> None:
    """The negative control: what the command line imported at start before (the ports'
    composition) is caught, so an empty list above is not a check that sees nothing."""
    tops = {m.split(".")[0] for m in _heavy_after("import worker.ports")}
    assert {"temporalio", "sqlalchemy", "google"} <= tops


def test_the_help_of_every_group_imports_no_heavy_library() -> None:
    groups = _groups()
    code = (
        "import contextlib, io\n"
        "from api.cli.main import app\n"
        f"for words in [[], *[[g] for g in {groups!r}]]:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            app([*words, '--help'])\n"
        "        except SystemExit as stop:\n"
        "            assert stop.code == 0, (words, stop.code)\n"
    )
    assert _heavy_after(code) == []


def test_verletica_help_exits_0_and_lists_every_group() -> None:
    done = subprocess.run(
        [str(VERLETICA), "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    listed = set(re.findall(r"^\W*([a-z][a-z-]*)\s{2,}\S", done.stdout, flags=re.MULTILINE))
    groups = _groups()
    assert len(groups) >= 13
    assert set(groups) <= listed, set(groups) - listed
    assert {"onboard", "run", "approve", "needs-you", "up", "demo"} <= listed
