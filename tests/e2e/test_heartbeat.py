"""The heartbeat on the time-skipping test server: what it finds as time passes (an
expired commitment, a confirmation pending past seven days, a delivery past its due
date, an orphaned hold), that Sentinel's proposals go through the broker and its
connectors, and that a heartbeat changes nothing else. And its Schedule."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import SQLModel
from temporalio.client import ScheduleActionStartWorkflow
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer
from typer.testing import CliRunner

from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from adapters.store.tables import ClaimRow, FindingRow, HoldRow
from adapters.temporal.heartbeat import SCHEDULE_ID, ensure_schedule
from api.cli.main import app as cli_app
from domain.governance.intents import Outcome
from domain.heartbeat.checks import FINDINGS_FILE, KEYS_CLOSE, ORPHAN_RULE, CheckKind, HeartbeatRun
from domain.organization.contracts import Delivery, SpendCap
from domain.organization.kinds import StaffRole
from domain.runs.run import RunState, RunStatus
from tests.identity import cli_against
from tests.servers import start_time_skipping
from tests.support import (
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    pay_action,
    payment_intent,
    schedule_on,
    serving,
    until,
    utc_now,
    wire,
)
from usecases import commitments, governance, heartbeat, organization, runs
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows.heartbeat import HeartbeatWorkflow
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal


class Beat:
    """A firm on the time-skipping server, its Sentinel staffed on east."""

    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)
        self.sentinel = self.firm.agents["sentinel"]
        organization.staff(
            svc,
            self.firm.org,
            self.firm.founder,
            organization.AssignStaff(self.sentinel, "east", StaffRole.MEMBER),
        )

    async def run(self) -> HeartbeatRun:
        """One heartbeat over the firm, through the use case the API and CLI call."""
        async with build_worker(
            self.temporal.client, self.svc.settings, self.store, model=ScriptedProvider()
        ):
            (run,) = await heartbeat.run_now(self.svc, self.firm.org, self.firm.founder)
        return run

    def entries_of(self, intent_id: str) -> list[tuple[str, str, str]]:
        return [
            (e.actor, e.decision, e.rule)
            for e in self.store.audit.entries(self.firm.org)
            if e.intent_id == intent_id
        ]


@pytest.fixture
async def beat(db_url: str) -> AsyncIterator[Beat]:
    temporal = await start_time_skipping()
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=db_url)
    yield Beat(temporal, store, wire(store, temporal.client, settings, utc_now))
    store.close()
    await temporal.shutdown()


def _of(run: HeartbeatRun, kind: CheckKind) -> list[Any]:
    return [f for f in run.findings if f.kind is kind]


def _filed(beat: Beat, run: HeartbeatRun, subject: str) -> str:
    """The intent that filed ``subject`` in ``run``: allowed, dispatched, on the record."""
    (proposal,) = [p for p in run.proposals if p.subject == subject and p.tool == FINDINGS_FILE]
    assert (proposal.outcome, proposal.dispatched) == (Outcome.ALLOW, True), proposal
    assert beat.entries_of(proposal.intent_id) == [
        (beat.sentinel, "allow", "all_stages_passed"),
        ("connector:findings", "dispatched", FINDINGS_FILE),
    ]
    return proposal.intent_id


async def test_an_expired_commitment_is_found_and_filed_once(beat: Beat) -> None:
    svc, firm = beat.svc, beat.firm
    cap = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Atlas cap",
            SpendCap(limit_cents=500_000),
            "sow.pdf",
            projects=("east",),
            valid_until=utc_now() + timedelta(days=1),
        ),
    )
    commitments.confirm(svc, cap.id, firm.founder)
    first = await beat.run()
    assert _of(first, CheckKind.COMMITMENT_EXPIRED) == []

    await beat.temporal.sleep(timedelta(days=2))
    run = await beat.run()
    (found,) = _of(run, CheckKind.COMMITMENT_EXPIRED)
    assert found.cites == cap.id and found.projects == ("east",)
    filing = _filed(beat, run, found.subject)
    with beat.store.db.read() as s:
        row = s.get(FindingRow, filing)
    assert row is not None and (row.principal_id, row.cites) == (beat.sentinel, cap.id)

    again = await beat.run()  # found again, not filed again
    assert _of(again, CheckKind.COMMITMENT_EXPIRED)[0].subject == found.subject
    assert [p for p in again.proposals if p.subject == found.subject] == []
    recorded = svc.heartbeats.runs(firm.org)  # type: ignore[union-attr]
    assert {r.id for r in recorded} == {first.id, run.id, again.id}
    kept = next(r for r in recorded if r.id == run.id)
    assert kept == run and kept.ended_at is not None and len(kept.checks) == 6
    assert beat.store.audit.verify(firm.org).ok


async def test_a_confirmation_pending_more_than_seven_days_is_found(beat: Beat) -> None:
    svc, firm = beat.svc, beat.firm
    pending = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Birch-free east cap", SpendCap(limit_cents=1_000), "email", projects=("east",)
        ),
    )
    await beat.temporal.sleep(timedelta(days=6))
    assert _of(await beat.run(), CheckKind.CONFIRMATION_PENDING) == []
    await beat.temporal.sleep(timedelta(days=2))
    run = await beat.run()
    (found,) = _of(run, CheckKind.CONFIRMATION_PENDING)
    assert found.cites == pending.id
    _filed(beat, run, found.subject)
    assert beat.store.audit.verify(firm.org).ok


async def test_a_delivery_past_its_due_date_is_found(beat: Beat) -> None:
    svc, firm = beat.svc, beat.firm
    due = utc_now() + timedelta(days=1)
    delivery = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Atlas data-room index",
            Delivery(deliverable="data-room index", due=due),
            "sow.pdf",
            projects=("east",),
        ),
    )
    commitments.confirm(svc, delivery.id, firm.founder)
    assert _of(await beat.run(), CheckKind.DELIVERY_OVERDUE) == []
    await beat.temporal.sleep(timedelta(days=2))
    run = await beat.run()
    (found,) = _of(run, CheckKind.DELIVERY_OVERDUE)
    assert found.cites == delivery.id and found.severity == "critical"
    _filed(beat, run, found.subject)
    assert beat.store.audit.verify(firm.org).ok


def _rows(store: Store) -> dict[str, dict[str, str]]:
    """Every row of every table, by table and primary key, as canonical JSON."""
    tables: dict[str, dict[str, str]] = {}
    with store.db.read() as s:
        for table in SQLModel.metadata.sorted_tables:
            keys = [c.name for c in table.primary_key.columns]
            rows: dict[str, str] = {}
            for row in s.execute(select(table)).mappings():
                key = json.dumps([row[k] for k in keys], default=str)
                rows[key] = json.dumps(dict(row), default=str, sort_keys=True)
            tables[table.name] = rows
    return tables


async def test_a_heartbeat_changes_no_row_except_through_brokered_intents(beat: Beat) -> None:
    """Findings on east are filed (Sentinel is staffed there), and spending there, whose
    cap expired, is put on a standing hold; both on west are refused by the broker (it is
    not staffed there, and the wall keeps it off). Every row that differs afterwards is
    the heartbeat's own record or the record of Sentinel's audited intents. A payment on
    east then waits for a human."""
    svc, firm = beat.svc, beat.firm
    for title, project in (("east cap", "east"), ("west cap", "west")):
        c = commitments.add_commitment(
            svc,
            firm.org,
            firm.founder,
            commitments.AddCommitment(
                title,
                SpendCap(limit_cents=10),
                "sow.pdf",
                projects=(project,),
                valid_until=utc_now() + timedelta(days=1),
            ),
        )
        commitments.confirm(svc, c.id, firm.founder)
    await beat.temporal.sleep(timedelta(days=2))
    before = _rows(beat.store)
    run = await beat.run()
    after = _rows(beat.store)

    outcomes = {p.intent_id: p for p in run.proposals}
    assert sorted((p.tool, p.outcome, p.rule) for p in outcomes.values()) == [
        ("findings.file", Outcome.ALLOW, "all_stages_passed"),
        ("findings.file", Outcome.REJECT, "not_staffed"),
        ("holds.place", Outcome.ALLOW, "all_stages_passed"),
        ("holds.place", Outcome.REJECT, "not_staffed"),
    ]
    changed = {
        name: {
            k
            for k in set(before[name]) | set(after[name])
            if before[name].get(k) != after[name].get(k)
        }
        for name in after
    }
    changed = {name: keys for name, keys in changed.items() if keys}
    assert set(changed) <= {
        "heartbeat_runs", "audit_heads", "audit_entries", "intents", "decisions", "findings",
        "standing_holds",
    }, changed  # fmt: skip
    assert all(
        k not in before[name] for name in set(changed) - {"audit_heads"} for k in changed[name]
    )
    for key in changed["intents"]:
        intent = json.loads(after["intents"][key])
        assert intent["principal_id"] == beat.sentinel and intent["id"] in outcomes
        # on the schedule's written standing, not on Sentinel's staffing alone
        body = intent["body"] if isinstance(intent["body"], dict) else json.loads(intent["body"])
        assert body["requested_by"] == "schedule:heartbeat", body
    for key in changed["audit_entries"]:
        entry = json.loads(after["audit_entries"][key])
        assert entry["intent_id"] in outcomes
        assert entry["actor"] in (beat.sentinel, "connector:findings", "connector:holds")
    for table in ("findings", "standing_holds"):
        (key,) = changed[table]
        assert outcomes[json.loads(after[table][key])["intent_id"]].dispatched
    assert len(changed["heartbeat_runs"]) == 1
    assert beat.store.audit.verify(firm.org).ok
    store = beat.store
    pay = payment_intent(firm.org, firm.agents["ledger"], 5_000)
    # Decided at the heartbeat's moment (two days on): the cap has expired, the hold binds.
    decision = governance.decide(store.governance, pay, utc_now() + timedelta(days=2))
    assert (decision.outcome, decision.rule) == (Outcome.HOLD, "standing_hold")


async def _held(beat: Beat, workflow_id: str) -> RunState:
    handle = beat.temporal.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
    return await until(
        lambda: handle.query(AgentRunWorkflow.state),
        accept=lambda s: s.status is RunStatus.NEEDS_HUMAN,
        what=f"{workflow_id} is held",
    )


async def test_a_terminated_runs_hold_is_closed_through_sentinels_brokered_intent(
    beat: Beat,
) -> None:
    """A run terminated from the Temporal UI runs none of its cleanup: its hold and its
    operation key stay open until the heartbeat finds them and Sentinel closes them."""
    svc, firm, store = beat.svc, beat.firm, beat.store
    async with build_worker(beat.temporal.client, svc.settings, store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"],
                "pay",
                scripted_reply=model_reply(pay_action("INV-T", 200_000)),
            ),
        )
        (held,) = (await _held(beat, started.workflow_id)).intents
        # The hold's timer must not be skipped past while the heartbeat runs.
        with beat.temporal.auto_time_skipping_disabled():
            (waiting,) = await heartbeat.run_now(svc, firm.org, firm.founder)
        (found,) = _of(waiting, CheckKind.WAITING_ON_HUMAN)
        assert found.evidence == (held.intent.id,)
        assert _of(waiting, CheckKind.ORPHANED) == []
        await beat.temporal.client.get_workflow_handle(started.workflow_id).terminate(
            "terminated from the UI"
        )
        (run,) = await heartbeat.run_now(svc, firm.org, firm.founder)

    (orphan,) = _of(run, CheckKind.ORPHANED)
    assert orphan.close_intent == held.intent.id and "terminated" in orphan.summary
    _filed(beat, run, orphan.subject)
    (close,) = [p for p in run.proposals if p.tool == KEYS_CLOSE]
    assert (close.outcome, close.dispatched) == (Outcome.ALLOW, True)
    (intent, status, decisions) = store.runs.intents(started.run_id)[0]
    assert status == Outcome.EXPIRED and decisions[-1].rule == ORPHAN_RULE
    assert (beat.sentinel, "expired", ORPHAN_RULE) in beat.entries_of(intent.id)
    with store.db.read() as s:
        assert s.execute(select(ClaimRow)).first() is None
        hold = s.get(HoldRow, intent.id)
    assert hold is not None and hold.state == "expired"
    assert store.audit.verify(firm.org).ok
    # Nothing is left open: the next heartbeat finds no orphan.
    async with build_worker(beat.temporal.client, svc.settings, store, model=ScriptedProvider()):
        (calm,) = await heartbeat.run_now(svc, firm.org, firm.founder)
    assert _of(calm, CheckKind.ORPHANED) == [] and _of(calm, CheckKind.WAITING_ON_HUMAN) == []


async def test_the_schedule_exists_once_a_worker_starts(
    temporal_env: WorkflowEnvironment, sqlite_url: str
) -> None:
    """A worker started as ``verletica worker`` does creates the Schedule, at the
    configured interval; creating it again updates it (every worker calls it)."""
    settings = make_settings(
        database_url=sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        heartbeat_seconds=120,
    )
    handle = temporal_env.client.get_schedule_handle(SCHEDULE_ID)
    async with serving(settings, temporal_env.client):
        described = await schedule_on(handle, settings.task_queue)
        action = described.schedule.action
        assert isinstance(action, ScheduleActionStartWorkflow)
        assert (action.workflow, action.task_queue) == ("HeartbeatWorkflow", settings.task_queue)
        assert [i.every for i in described.schedule.spec.intervals] == [timedelta(seconds=120)]
        await ensure_schedule(temporal_env.client, settings.task_queue, timedelta(seconds=300))
        again = await handle.describe()
        assert [i.every for i in again.schedule.spec.intervals] == [timedelta(seconds=300)]


async def test_the_command_line_runs_a_heartbeat_and_lists_the_runs(
    beat: Beat, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    svc, firm = beat.svc, beat.firm
    commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "east cap", SpendCap(limit_cents=10), "sow.pdf", projects=("east",)
        ),
    )
    await beat.temporal.sleep(timedelta(days=8))
    cli_against(monkeypatch, tmp_path, svc, beat.temporal.client, db_url, firm.founder)
    async with build_worker(
        beat.temporal.client, svc.settings, beat.store, model=ScriptedProvider()
    ):
        ran = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["heartbeat", "run", "--org", firm.org]
        )
    assert ran.exit_code == 0, ran.output
    assert "confirmation_pending" in ran.output and "findings.file: allow" in ran.output
    listed = await asyncio.to_thread(
        CliRunner().invoke, cli_app, ["heartbeat", "runs", "--org", firm.org]
    )
    assert listed.exit_code == 0, listed.output
    assert "confirmation_pending" in listed.output
    (recorded,) = svc.heartbeats.runs(firm.org)  # type: ignore[union-attr]
    assert recorded.id in listed.output


async def test_a_heartbeats_history_replays(beat: Beat) -> None:
    """The workflow is deterministic: its recorded history replays without a mismatch
    (findings, proposals built without a model, broker decisions as local activities)."""
    svc, firm = beat.svc, beat.firm
    commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "east cap", SpendCap(limit_cents=10), "sow.pdf", projects=("east",)
        ),
    )
    await beat.temporal.sleep(timedelta(days=8))
    run = await beat.run()
    assert run.proposals
    history = await beat.temporal.client.get_workflow_handle(run.workflow_id).fetch_history()
    replayer = Replayer(workflows=[HeartbeatWorkflow], data_converter=pydantic_data_converter)
    await replayer.replay_workflow(history)
