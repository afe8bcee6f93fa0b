"""A worker started before its Temporal server (or while it restarts) waits for it, then
serves; one that waits in vain exits with a reason, not a traceback. (Seen in the chaos
harness: a worker started during the server's restart died on a refused connection and
left the fleet a worker short.)"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.store.store import Store
from domain.runs.run import RunStatus
from tests.support import TEST_KEYS, Firm, free_port, make_settings, until_sync, utc_now, wire
from usecases import runs
from worker import devserver
from worker.settings import Settings
from worker.temporal import make_client
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal
ROOT = Path(__file__).resolve().parents[2]
EMAIL = (
    '{"summary": "s", "actions": [{"tool": "email.send", "projects": ["east"], '
    '"payload": {"to": "cfo@client.example", "subject": "Agenda", "body": "b"}, '
    '"cost_cents": 0, "justification": "j"}]}'
)


def _environ(settings: Settings, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "VERLETICA_DATABASE_URL": settings.database_url,
        "VERLETICA_TEMPORAL_ADDRESS": settings.temporal_address,
        "VERLETICA_TASK_QUEUE": settings.task_queue,
        "VERLETICA_MODEL_PROVIDER": "scripted",
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_APPROVAL_KEY": make_settings().approval_keys().current.secret.hex(),
        "VERLETICA_DATA_DIR": settings.data_dir,
        **extra,
    }


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    def said() -> str:
        seen = log.read_text(errors="replace")
        assert text in seen or proc.poll() is None, f"the worker exited: {seen}"
        return seen

    until_sync(
        said,
        accept=lambda seen: text in seen,
        timeout=timeout,
        interval=0.2,
        what=f"{text!r} in the worker's log",
    )


class Silent:
    """Settings naming a Temporal address nothing listens on (yet), and the server a test
    may start there (stopped afterwards)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server: subprocess.Popen[bytes] | None = None

    def start_server(self) -> None:
        self.server = devserver.start(self.settings)


@pytest.fixture
def silent_temporal(tmp_path: Path, sqlite_url: str) -> Iterator[Silent]:
    silent = Silent(
        make_settings(
            database_url=sqlite_url,
            data_dir=str(tmp_path / "data"),
            temporal_address=f"127.0.0.1:{free_port()}",
            temporal_ui_url=f"http://127.0.0.1:{free_port()}",
        )
    )
    yield silent
    if silent.server is not None:
        devserver.stop(silent.settings, silent.server)


async def test_a_worker_started_before_temporal_waits_then_serves(
    silent_temporal: Silent, tmp_path: Path
) -> None:
    settings = silent_temporal.settings
    log = tmp_path / "worker.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "worker"],
        cwd=ROOT,
        env=_environ(settings),
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for(log, "does not answer yet (connect)", proc, timeout=60)
        time.sleep(1.0)
        assert proc.poll() is None  # still waiting, a second later
        silent_temporal.start_server()
        _wait_for(log, "worker polling", proc, timeout=90)

        client = await make_client(settings)
        store = Store.open(settings.database_url, TEST_KEYS, migrate_schema=False)
        svc = wire(store, client, settings, utc_now)
        firm = Firm(svc)
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "agenda", scripted_reply=EMAIL),
        )
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
        final = await asyncio.wait_for(handle.result(), timeout=90)
        assert final.status is RunStatus.COMPLETED
        assert [(i.decision.outcome, i.dispatch is not None) for i in final.intents] == [
            ("allow", True)
        ]
        store.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert "Traceback" not in log.read_text(errors="replace")


def test_a_worker_that_waits_in_vain_says_why(silent_temporal: Silent) -> None:
    settings = silent_temporal.settings
    done = subprocess.run(
        [sys.executable, "-m", "worker"],
        cwd=ROOT,
        env=_environ(settings, VERLETICA_TEMPORAL_CONNECT_WAIT_SECONDS="1"),
        capture_output=True,
        timeout=60,
    )
    said = (done.stdout + done.stderr).decode(errors="replace")
    assert done.returncode == 2, said
    assert f"Temporal at {settings.temporal_address} did not answer (connect)" in said
    assert "VERLETICA_TEMPORAL_ADDRESS" in said
    assert "Traceback" not in said
