"""The poison/unpoison cycle end to end, with real worker processes and the command line.

A worker that starts on a broken chain poisons that organization's broker in the
database, on the record, and serves every other organization. Every worker, the next
one included, refuses to decide or dispatch for the poisoned one. Only `verletica
broker unpoison` clears it, and only once the chain verifies again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import update
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner

from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow
from api.cli.main import app as cli_app
from domain.governance.intents import Outcome
from domain.organization.kinds import DestinationKind, StaffRole
from domain.runs.run import RunState
from tests.e2e.test_runs_crash_resume import EMAIL, WorkerProcess, _spawn
from tests.identity import cli_signed_in
from tests.support import TEST_KEYS, Firm, make_settings, until, utc_now, wire
from usecases import audit as audit_uc
from usecases import destinations, organization, runs
from usecases.context import Ports
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal


async def _finished(svc: Ports, run_id: str, actor: str) -> RunState:
    return await asyncio.wait_for(runs.wait_run(svc, run_id, actor), 90)


async def test_a_poisoned_broker_stays_poisoned_in_every_worker_until_a_human_clears_it(
    temporal_env: WorkflowEnvironment,
    sqlite_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=sqlite_url)
    svc = wire(store, temporal_env.client, settings, utc_now)
    firm = Firm(svc)
    other = organization.onboard(svc, "Other Firm", "zed@other.example")
    organization.add_project(svc, other.org.id, other.founder.id, "east", "East")
    orion_b = next(a.id for a in other.agents if a.handle == "orion")
    organization.staff(
        svc,
        other.org.id,
        other.founder.id,
        organization.AssignStaff(orion_b, "east", StaffRole.MEMBER),
    )
    destinations.establish(
        svc,
        other.org.id,
        other.founder.id,
        destinations.Establish("east", DestinationKind.EMAIL_DOMAIN, "client.example"),
    )

    entry = store.audit.entries(firm.org)[3]
    with store.db.transaction() as s:  # someone edits a row behind the chain's back
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == entry.seq)
            .values(payload={"forged": True})
        )

    workers: list[WorkerProcess] = []
    try:
        first = _spawn(workers, temporal_env, sqlite_url, settings.task_queue, tmp_path)
        poisoned = await until(
            lambda: audit_uc.broker_status(svc, firm.org, firm.founder),
            timeout=120,
            what="the worker finds the broken chain",
        )
        assert "entry 4" in poisoned
        assert audit_uc.broker_status(svc, other.org.id, other.founder.id) is None

        refused = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "m", scripted_reply=EMAIL),
        )
        state = await _finished(svc, refused.run_id, firm.founder)
        assert state.intents[0].decision.rule == "broker_poisoned"
        served = await runs.start_run(
            svc, other.org.id, other.founder.id, runs.StartRun(orion_b, "m", scripted_reply=EMAIL)
        )
        state = await _finished(svc, served.run_id, other.founder.id)
        assert state.intents[0].dispatch is not None  # the others are served

        first.kill()  # a new worker finds the poison in the database
        _spawn(workers, temporal_env, sqlite_url, settings.task_queue, tmp_path)
        again = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "m", scripted_reply=EMAIL),
        )
        state = await _finished(svc, again.run_id, firm.founder)
        assert state.intents[0].decision.rule == "broker_poisoned"

        monkeypatch.setenv("VERLETICA_DATABASE_URL", sqlite_url)
        cli_signed_in(monkeypatch, tmp_path, svc, firm.founder)
        cli = CliRunner()
        args = ["broker", "unpoison", "--org", firm.org, "--reason", "ok"]
        still_broken = await asyncio.to_thread(cli.invoke, cli_app, args)
        assert still_broken.exit_code == 1 and "does not verify" in still_broken.output
        with store.db.transaction() as s:  # the operator restores the row from a backup
            s.execute(
                update(AuditEntryRow)
                .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == entry.seq)
                .values(payload=entry.payload)
            )
        cleared = await asyncio.to_thread(
            cli.invoke, cli_app, args[:-1] + ["row 4 restored from backup"]
        )
        assert cleared.exit_code == 0, cleared.output
        assert audit_uc.broker_status(svc, firm.org, firm.founder) is None

        works = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "m", scripted_reply=EMAIL),
        )
        state = await _finished(svc, works.run_id, firm.founder)
        assert state.intents[0].decision.outcome is Outcome.ALLOW
        assert state.intents[0].dispatch is not None
        decisions = [e.decision for e in store.audit.entries(firm.org)]
        assert {"broker_poisoned", "broker_unpoisoned"} <= set(decisions)
        assert store.audit.verify(firm.org).ok
        handle = temporal_env.client.get_workflow_handle_for(
            AgentRunWorkflow.run, works.workflow_id
        )
        assert (await handle.describe()).status is not None
    finally:
        for w in workers:
            w.stop()
        store.close()
