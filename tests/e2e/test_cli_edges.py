"""The command line at its edges, as a newcomer meets them: a file that is not there is
one line, never a traceback (every option and argument that names a file); a work graph
or a deliberation that fails exits non-zero and says why."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli.main import app as cli_app
from tests.e2e.test_runs_edges import Env
from tests.e2e.test_runs_edges import env as env  # noqa: F401
from tests.identity import cli_against
from tests.support import model_reply
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal

EMAIL = {
    "tool": "email.send",
    "projects": ["east"],
    "payload": {"to": "cfo@atlas.example", "subject": "Index", "body": "Attached."},
    "cost_cents": 0,
    "justification": "asked for",
}


def _cli(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(cli_app, list(args))
    return result.exit_code, result.output, result.exception


def _commands(org: str, missing: str, present: str) -> list[list[str]]:
    """Every command that reads a file, naming ``missing`` where it reads one."""
    return [
        ["memory", "ingest", "notes", "--project", "east", "--file", missing, "--org", org],
        ["memory", "screen", missing],
        ["run", "orion", "Send the index.", "--reply", missing, "--org", org],
        ["fleet", "draft", "orion", "--instructions", missing, "--org", org],
        ["fleet", "draft", "orion", "--skill", f"tone={missing}", "--org", org],
        ["graph", "run", missing, "--org", org],
        ["graph", "run", present, "--reply", f"a={missing}", "--org", org],
        ["deliberation", "start", "orion", "Ready?", "--plan", missing, "--org", org],
        ["deliberation", "start", "orion", "Ready?", "--reply", f"analyst={missing}", "--org", org],
    ]


async def test_a_missing_file_is_one_line_and_exit_1_for_every_file_option(
    env: Env, monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path
) -> None:
    firm = env.firm
    monkeypatch.setenv("COLUMNS", "200")
    cli_against(monkeypatch, tmp_path, env.svc, env.temporal.client, db_url, firm.founder)
    missing = str(tmp_path / "no-such-file.json")
    present = tmp_path / "graph.json"
    present.write_text(
        json.dumps({"name": "g", "steps": [{"id": "a", "agent": "orion", "task": "t"}]})
    )
    for args in _commands(firm.org, missing, str(present)):
        code, out, raised = await asyncio.to_thread(_cli, *args)
        lines = [line for line in out.splitlines() if line.strip()]
        assert code == 1, (args, out)
        assert raised is None or isinstance(raised, SystemExit), (args, repr(raised))
        assert len(lines) == 1 and "Traceback" not in out, (args, out)
        assert lines[0].startswith("error: cannot read") and missing in lines[0], (args, out)
        assert "No such file or directory" in lines[0], (args, out)


async def test_a_failed_graph_exits_non_zero_and_says_which_step_and_why(
    env: Env, monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path
) -> None:
    svc, firm = env.svc, env.firm
    monkeypatch.setenv("COLUMNS", "200")
    cli_against(monkeypatch, tmp_path, svc, env.temporal.client, db_url, firm.founder)
    graph = tmp_path / "graph.json"
    graph.write_text(
        json.dumps(
            {
                "name": "broken",
                "steps": [
                    {"id": "a", "agent": "orion", "task": "Draft."},
                    {"id": "b", "agent": "orion", "task": "Send.", "after": ["a"]},
                ],
            }
        )
    )
    good, bad = tmp_path / "a.json", tmp_path / "b.json"
    good.write_text(model_reply(EMAIL))
    bad.write_text("not json")  # the parser refuses it: step b fails
    async with build_worker(env.temporal.client, svc.settings, env.store):
        code, out, _ = await asyncio.to_thread(
            _cli, "graph", "run", str(graph), "--org", firm.org,
            "--reply", f"a={good}", "--reply", f"b={bad}",
        )  # fmt: skip
    assert code == 1, out
    last = [line for line in out.splitlines() if line.strip()][-1]
    assert last.startswith("error: work graph") and "failed: step b failed" in last, out
    assert "refused" in last, out


async def test_a_failed_deliberation_exits_non_zero_and_says_why(
    env: Env, monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path
) -> None:
    svc, firm = env.svc, env.firm
    monkeypatch.setenv("COLUMNS", "200")
    cli_against(monkeypatch, tmp_path, svc, env.temporal.client, db_url, firm.founder)
    bad = tmp_path / "synthesis.json"
    bad.write_text("not json")  # the synthesis run's reply is refused: the run fails
    async with build_worker(env.temporal.client, svc.settings, env.store):
        code, out, _ = await asyncio.to_thread(
            _cli, "deliberation", "start", "orion", "Ready to send?", "--org", firm.org,
            "--reply", f"synthesis={bad}",
        )  # fmt: skip
    assert code == 1, out
    last = [line for line in out.splitlines() if line.strip()][-1]
    assert last.startswith("error: deliberation") and " failed: " in last, out
    assert "no reason recorded" not in last, out
