"""Runs at their edges: inputs no client should be able to send, a connector that never
recovers, a command line acting for the wrong organization, and an invoice paid twice."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from temporalio import activity
from temporalio.client import WorkflowFailureError
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner

from adapters.models.replay import ReplayProvider
from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, ClaimRow, PaymentRow, RunRow
from api.cli.main import app as cli_app
from domain.errors import Conflict
from domain.governance.intents import Outcome
from domain.runs.run import DispatchRequest, RunInput, RunStatus
from tests.e2e.test_runs_hardening import _held
from tests.identity import cli_against
from tests.servers import start_time_skipping
from tests.support import TEST_KEYS, Firm, make_settings, skip_to_the_end, until, utc_now, wire
from tests.support import model_reply as _reply
from tests.support import pay_action as _pay
from usecases import needs_you, organization, runs
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal


class Env:
    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)


@pytest.fixture
async def env(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Env]:
    settings = make_settings(database_url=db_url)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    yield Env(temporal_env, store, wire(store, temporal_env.client, settings, utc_now))
    store.close()


def _count(store: Store, query: object) -> int:
    with store.db.transaction() as s:
        return int(s.execute(query).scalar_one())  # type: ignore[call-overload]


async def test_an_out_of_range_input_fails_the_run_not_its_task(env: Env) -> None:
    """A start sent straight to Temporal (bypassing the API's bounds) must not leave a
    workflow task failing forever: the run fails at once, with the reason."""
    firm = env.firm
    bad = RunInput.model_construct(
        run_id=str(uuid.uuid4()),
        org_id=firm.org,
        agent_id=firm.agents["ledger"],
        task="pay",
        scripted_reply=_reply(_pay("OVF-1", 200_000)),
        hold_timeout_seconds=1_000_000_000_000,
    )
    async with build_worker(
        env.temporal.client, env.svc.settings, env.store, model=ScriptedProvider()
    ):
        handle = await env.temporal.client.start_workflow(
            AgentRunWorkflow.run,
            bad,
            id=f"agent-run-{bad.run_id}",
            task_queue=env.svc.settings.task_queue,
        )
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), 30)
    assert "hold_timeout_seconds" in str(failed.value.cause)
    assert _count(env.store, select(func.count()).select_from(ClaimRow)) == 0


class Skipping:
    """A firm on the time-skipping test server."""

    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)


@pytest.fixture
async def skipping(sqlite_url: str) -> AsyncIterator[Skipping]:
    temporal = await start_time_skipping()
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=sqlite_url)
    yield Skipping(temporal, store, wire(store, temporal.client, settings, utc_now))
    store.close()
    await temporal.shutdown()


class BrokenRelay:
    """The outside system fails on every attempt with an error worth retrying."""

    def __init__(self) -> None:
        self.attempts = 0

    @activity.defn(name="dispatch")
    async def dispatch(self, request: DispatchRequest) -> None:
        self.attempts += 1
        raise ConnectionError("the payments gateway is unreachable")


async def test_a_dispatch_that_never_succeeds_is_bounded_and_recorded(skipping: Skipping) -> None:
    """On the time-skipping server the retry back-offs take no real time."""
    svc, firm, store = skipping.svc, skipping.firm, skipping.store
    relay = BrokenRelay()
    worker = build_worker(
        skipping.temporal.client,
        svc.settings,
        store,
        model=ScriptedProvider(),
        replace={"dispatch": relay.dispatch},
    )
    async with worker:
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=_reply(_pay("GW-1", 50_000))
            ),
        )
        final = await skip_to_the_end(skipping.temporal, started.workflow_id)
    assert 1 < relay.attempts < 20
    assert final.status is RunStatus.FAILED
    (view,) = final.intents
    assert (view.decision.outcome, view.decision.rule) == (Outcome.EXPIRED, "dispatch_failed")
    assert "unreachable" in view.decision.reason
    assert _count(store, select(func.count()).select_from(ClaimRow)) == 0
    recorded = _count(
        store,
        select(func.count())
        .select_from(AuditEntryRow)
        .where(AuditEntryRow.rule == "dispatch_failed"),
    )
    assert recorded == 1
    assert store.audit.verify(firm.org).ok


async def test_the_command_line_refuses_a_run_for_an_actor_outside_the_org(
    env: Env, monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path
) -> None:
    firm = env.firm
    outsider = organization.onboard(env.svc, "Other Firm", "zed@other.example").founder.id
    cli_against(monkeypatch, tmp_path, env.svc, env.temporal.client, db_url, outsider)
    result = await asyncio.to_thread(
        CliRunner().invoke,
        cli_app,
        ["run", "orion", "Send the agenda.", "--org", firm.org, "--no-wait"],
    )
    assert result.exit_code == 1, result.output
    assert _count(env.store, select(func.count()).select_from(RunRow)) == 0


async def test_an_invoice_paid_once_is_not_paid_again_by_another_run(env: Env) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        first = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=_reply(_pay("INV-7", 50_000))
            ),
        )
        done = await asyncio.wait_for(runs.wait_run(svc, first.run_id, firm.founder), 60)
        assert done.intents[0].dispatch is not None
        again = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=_reply(_pay("inv-7 ", 50_000))
            ),
        )
        held = (await _held(env, again.workflow_id)).intents[0]  # type: ignore[arg-type]
        assert held.decision.outcome is Outcome.HOLD
        assert held.decision.rule == "already_done"
        # the earlier payment is the evidence, never named in the reason (issue 19.20)
        assert done.intents[0].intent.id in held.decision.evidence
        # Approving it pays it again: only when the approver says so, else nothing is sent.
        with pytest.raises(Conflict, match="repeat_write"):
            await runs.decide_hold(svc, held.intent.id, firm.founder, firm.founder, approve=True)
        (item,) = [
            i
            for i in needs_you.needs_you(svc, firm.org, firm.founder).items
            if getattr(i, "subject_id", None) == held.intent.id
        ]
        assert item.evidence[0].label == "already done"  # type: ignore[union-attr]
        assert "Invoice inv-7 was already paid" in item.evidence[0].detail  # type: ignore[union-attr]
        approve = item.actions[0]  # type: ignore[union-attr]
        assert (approve.needs, approve.cli.endswith("--again")) == (("again",), True)
        await runs.decide_hold(svc, held.intent.id, firm.founder, firm.founder, approve=False)
        await asyncio.wait_for(runs.wait_run(svc, again.run_id, firm.founder), 60)
    assert _count(store, select(func.count()).select_from(PaymentRow)) == 1
    assert store.audit.verify(firm.org).ok


async def test_an_undecided_hold_expires_on_its_timer(skipping: Skipping) -> None:
    """A hold no human decides expires when its time is up (a minute here, skipped)."""
    svc, firm, store = skipping.svc, skipping.firm, skipping.store
    async with build_worker(
        skipping.temporal.client, svc.settings, store, model=ScriptedProvider()
    ):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"],
                "pay",
                scripted_reply=_reply(_pay("T-1", 200_000)),
                hold_timeout_seconds=60,
            ),
        )
        final = await skip_to_the_end(skipping.temporal, started.workflow_id)
    assert final.status is RunStatus.COMPLETED
    (view,) = final.intents
    assert (view.decision.outcome, view.decision.rule) == (Outcome.EXPIRED, "hold_expired")
    assert view.dispatch is None
    assert _count(store, select(func.count()).select_from(ClaimRow)) == 0
    assert store.audit.verify(firm.org).ok


async def test_a_cancelled_run_closes_what_it_leaves_open(env: Env) -> None:
    """Cancelled from the UI or CLI while it waits on a hold: the hold is closed on the
    record and its key released before the run ends as cancelled."""
    svc, firm, store = env.svc, env.firm, env.store
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=_reply(_pay("C-1", 200_000))
            ),
        )
        await _held(env, started.workflow_id)  # type: ignore[arg-type]
        handle = env.temporal.client.get_workflow_handle_for(
            AgentRunWorkflow.run, started.workflow_id
        )
        await handle.cancel()
        with pytest.raises(WorkflowFailureError):
            await asyncio.wait_for(handle.result(), 30)
    (_, status, decisions) = store.runs.intents(started.run_id)[0]
    assert status == Outcome.EXPIRED
    assert decisions[-1].rule == "run_cancelled"
    assert _count(store, select(func.count()).select_from(ClaimRow)) == 0
    assert store.audit.verify(firm.org).ok


async def test_a_colliding_intent_waits_and_goes_on_when_the_other_is_done(env: Env) -> None:
    """Two runs pay one invoice: the second is held for the collision, with the first as
    evidence, no human can approve it past the first, and once the first is done (here
    denied) the second goes on by itself."""
    svc, firm, store = env.svc, env.firm, env.store
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        first = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "a", scripted_reply=_reply(_pay("INV-K", 200_000))
            ),
        )
        a = (await _held(env, first.workflow_id)).intents[0]  # type: ignore[arg-type]
        second = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["ledger"], "b", scripted_reply=_reply(_pay("INV-K", 50_000))),
        )
        b = (await _held(env, second.workflow_id)).intents[0]  # type: ignore[arg-type]
        assert (b.decision.rule, b.decision.evidence) == ("collision", (a.intent.id,))
        await runs.decide_hold(svc, b.intent.id, firm.founder, firm.founder, approve=True)
        # the approval is refused before the first is done (on a busy machine the deny
        # could otherwise be reviewed first, and the approval then stand on its own)
        handle = env.temporal.client.get_workflow_handle_for(
            AgentRunWorkflow.run, second.workflow_id
        )
        refused = (
            await until(
                lambda: handle.query(AgentRunWorkflow.state),
                accept=lambda s: bool(s.refused_signals),
                timeout=120,
                what="the approval is refused",
            )
        ).refused_signals
        assert "not_releasable_by_a_human" in refused[0], refused
        await runs.decide_hold(svc, a.intent.id, firm.founder, firm.founder, approve=False)
        done = await asyncio.wait_for(runs.wait_run(svc, second.run_id, firm.founder), 60)
        await asyncio.wait_for(runs.wait_run(svc, first.run_id, firm.founder), 60)
    (view,) = done.intents
    assert view.decision.outcome is Outcome.ALLOW and view.dispatch is not None
    assert [r.split(": ")[1] for r in view.refused_reviews] == ["not_releasable_by_a_human"]
    assert _count(store, select(func.count()).select_from(PaymentRow)) == 1
    assert _count(store, select(func.count()).select_from(ClaimRow)) == 0
    assert store.audit.verify(firm.org).ok


async def test_a_newcomer_runs_a_task_no_fixture_answers_by_giving_the_reply(
    env: Env, monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path
) -> None:
    """No model key: a task with no fixture fails saying what to do; the fixtures are
    listed; the same task with the reply given in a file runs, shown as tables (or JSON)."""
    svc, firm = env.svc, env.firm
    monkeypatch.setenv("VERLETICA_MODEL_PROVIDER", "replay")
    monkeypatch.setenv("COLUMNS", "200")
    cli_against(monkeypatch, tmp_path, svc, env.temporal.client, db_url, firm.founder)
    task = "Tell the Atlas CFO the kickoff moved to Friday."
    reply = tmp_path / "reply.json"
    reply.write_text(
        _reply(
            {
                "tool": "email.send",
                "projects": ["east"],
                "payload": {"to": "cfo@atlas.example", "subject": "Kickoff", "body": "Friday."},
                "cost_cents": 0,
                "justification": "the date moved",
            }
        ),
        encoding="utf-8",
    )

    def cli(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli_app, list(args))
        return result.exit_code, result.output

    listed = await asyncio.to_thread(cli, "fixtures")
    assert listed[0] == 0 and "Send the Atlas client the kickoff agenda." in listed[1]
    assert "--reply" in listed[1]
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ReplayProvider()):
        code, out = await asyncio.to_thread(cli, "run", "orion", task, "--org", firm.org)
        assert code == 0, out
        assert "failed" in out and "verletica fixtures" in out and "--reply" in out
        code, out = await asyncio.to_thread(
            cli, "run", "orion", task, "--org", firm.org, "--reply", str(reply)
        )
        assert code == 0, out
        assert "intents and decisions" in out and "email.send" in out and "allow" in out
        code, out = await asyncio.to_thread(
            cli, "run", "orion", task, "--org", firm.org, "--reply", str(reply), "--json"
        )
        assert code == 0, out
        view = json.loads(out)
        assert view["task"] == task and view["intents"][0]["intent"]["tool"] == "email.send"
