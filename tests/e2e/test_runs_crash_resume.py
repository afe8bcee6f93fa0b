"""A worker process killed (SIGKILL) mid-run; a new worker finishes the run.

Exactly one connector row per allowed intent, and every connector row's audit
entry precedes it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import select
from temporalio.testing import WorkflowEnvironment

from adapters.store.db import libpq_url, utc
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, EmailRow, PaymentRow
from domain.runs.run import RunState, RunStatus
from tests.support import TEST_KEYS, Firm, make_settings, until, utc_now, wire
from usecases import runs
from usecases.context import Ports
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal
ROOT = Path(__file__).resolve().parents[2]


def _reply(tool: str, payload: dict[str, object], cost: int) -> str:
    return json.dumps(
        {
            "summary": "s",
            "actions": [
                {
                    "tool": tool,
                    "projects": ["east"],
                    "payload": payload,
                    "cost_cents": cost,
                    "justification": "j",
                }
            ],
        }
    )


PAYMENT = _reply(
    "payments.pay",
    {
        "payee": "Northwind",
        "invoice": "NW-1",
        "amount_cents": 250_000,
        "currency": "USD",
        "memo": "data room",
    },
    250_000,
)
EMAIL = _reply("email.send", {"to": "cfo@client.example", "subject": "Agenda", "body": "b"}, 0)


class WorkerProcess:
    """``python -m worker`` as its own process, configured by environment."""

    def __init__(self, env: WorkflowEnvironment, db_url: str, task_queue: str, log: Path) -> None:
        self.environ = {
            **os.environ,
            "VERLETICA_DATABASE_URL": db_url,
            "VERLETICA_TEMPORAL_ADDRESS": env.client.service_client.config.target_host,
            "VERLETICA_TASK_QUEUE": task_queue,
            "VERLETICA_MODEL_PROVIDER": "scripted",
            "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
            # the key the test's API side signs decisions with (its data folder's)
            "VERLETICA_APPROVAL_KEY": make_settings().approval_keys().current.secret.hex(),
            "VERLETICA_DATA_DIR": str(log.parent),
        }
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "worker"],
            cwd=ROOT,
            env=self.environ,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[WorkerProcess]]:
    started: list[WorkerProcess] = []
    yield started
    for w in started:
        w.stop()


def _spawn(
    started: list[WorkerProcess], env: WorkflowEnvironment, db_url: str, queue: str, tmp: Path
) -> WorkerProcess:
    w = WorkerProcess(env, db_url, queue, tmp / f"worker-{len(started)}.log")
    w.start()
    started.append(w)
    return w


async def _wait_state(
    svc: Ports, actor: str, run_id: str, status: RunStatus, timeout: float = 60
) -> RunState:
    view = await until(
        lambda: runs.run_view(svc, run_id, actor),
        accept=lambda v: v.state is not None and v.state.status is status,
        timeout=timeout,
        interval=0.2,
        what=f"run {run_id} reaches {status}",
    )
    assert view.state is not None
    return view.state


def _connector_rows_follow_their_audit_entries(store: Store, org: str, table: type) -> list[object]:
    with store.db.transaction() as s:
        rows = list(s.execute(select(table).where(table.org_id == org)).scalars())
        for row in rows:
            entry = s.get(AuditEntryRow, (org, row.audit_seq))
            assert entry is not None and entry.entry_hash == row.entry_hash
            assert entry.intent_id == row.intent_id
            assert entry.decision in ("allow", "approved")
            assert datetime.fromisoformat(entry.at) <= utc(row.created_at)
            dispatched = (
                s.execute(
                    select(AuditEntryRow).where(
                        AuditEntryRow.org_id == org,
                        AuditEntryRow.intent_id == row.intent_id,
                        AuditEntryRow.decision == "dispatched",
                    )
                )
                .scalars()
                .all()
            )
            assert len(dispatched) == 1 and dispatched[0].seq > entry.seq
        return rows


async def test_worker_killed_while_a_run_waits_on_a_hold(
    temporal_env: WorkflowEnvironment,
    sqlite_url: str,
    workers: list[WorkerProcess],
    tmp_path: Path,
) -> None:
    settings = make_settings(database_url=sqlite_url)
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    svc = wire(store, temporal_env.client, settings, utc_now)
    firm = Firm(svc)
    first = _spawn(workers, temporal_env, sqlite_url, settings.task_queue, tmp_path)

    started = await runs.start_run(
        svc,
        firm.org,
        firm.founder,
        runs.StartRun(firm.agents["ledger"], "pay", scripted_reply=PAYMENT),
    )
    held = await _wait_state(svc, firm.founder, started.run_id, RunStatus.NEEDS_HUMAN)
    intent = held.intents[0].intent
    first.kill()

    # the approval arrives while no worker runs; a new worker picks the run up
    await runs.decide_hold(
        svc, intent.id, firm.founder, firm.founder, approve=True, reason="consented"
    )
    _spawn(workers, temporal_env, sqlite_url, settings.task_queue, tmp_path)
    handle = temporal_env.client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
    final = await asyncio.wait_for(handle.result(), timeout=90)

    assert final.status is RunStatus.COMPLETED
    assert final.intents[0].decision.outcome == "approved"
    rows = _connector_rows_follow_their_audit_entries(store, firm.org, PaymentRow)
    assert [r.intent_id for r in rows] == [intent.id]
    assert store.audit.verify(firm.org).ok
    store.close()


async def test_worker_killed_while_the_action_is_in_flight(
    temporal_env: WorkflowEnvironment,
    postgres_url: str,
    workers: list[WorkerProcess],
    tmp_path: Path,
) -> None:
    settings = make_settings(database_url=postgres_url)
    store = Store.open(postgres_url, TEST_KEYS, migrate_schema=False)
    svc = wire(store, temporal_env.client, settings, utc_now)
    firm = Firm(svc)
    database = postgres_url.rsplit("/", 1)[1]
    lock = psycopg.connect(libpq_url(postgres_url))
    try:
        # the outside world stalls: the connector's write blocks on this lock
        lock.execute("LOCK TABLE email_outbox IN ACCESS EXCLUSIVE MODE")
        first = _spawn(workers, temporal_env, postgres_url, settings.task_queue, tmp_path)
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "mail", scripted_reply=EMAIL),
        )
        with psycopg.connect(libpq_url(postgres_url), autocommit=True) as probe:

            def waiting_on_locks() -> int:
                row = probe.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
                    (database,),
                ).fetchone()
                return 0 if row is None else int(row[0])

            await until(waiting_on_locks, what="the dispatch reaches the connector")
        first.kill()
    finally:
        lock.rollback()
        lock.close()

    _spawn(workers, temporal_env, postgres_url, settings.task_queue, tmp_path)
    handle = temporal_env.client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
    final = await asyncio.wait_for(handle.result(), timeout=120)

    assert final.status is RunStatus.COMPLETED
    (view,) = final.intents
    assert view.decision.outcome == "allow" and view.dispatch is not None
    rows = _connector_rows_follow_their_audit_entries(store, firm.org, EmailRow)
    assert [r.intent_id for r in rows] == [view.intent.id]
    assert store.audit.verify(firm.org).ok
    store.close()
