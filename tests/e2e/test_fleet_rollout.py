"""Rollouts on the real dev server: a run in flight keeps the version it resolved while
the fleet moves on; a rolled-back version receives no new runs; a version retired under a
held run makes its approval refused at the broker (``charter_unpublished``)."""

from __future__ import annotations

import asyncio

import pytest

from adapters.models.scripted import ScriptedProvider
from domain.fleet.registry import AgentPin
from domain.governance.intents import Outcome
from domain.runs.run import RunStatus
from tests.e2e.test_runs_edges import Env
from tests.e2e.test_runs_edges import env as env  # noqa: F401
from tests.e2e.test_runs_hardening import _held
from tests.support import EMAIL_ACTION, model_reply, pay_action, until
from usecases import fleet, runs
from usecases.fleet import DraftRequest
from worker.bootstrap import build_worker
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal

V1 = AgentPin(version=1, definition=1)
V2 = AgentPin(version=2, definition=2)


def _ledger_v2_without_payments(env: Env) -> str:
    """Ledger v2: it may no longer pay (email and webhooks only), with new instructions."""
    svc, firm = env.svc, env.firm
    ledger = firm.agents["ledger"]
    request = DraftRequest(tools=("email.send", "webhook.post"), instructions="Remind; never pay.")
    fleet.draft(svc, firm.org, firm.founder, ledger, request)
    fleet.publish(svc, firm.org, firm.founder, ledger, 2)
    return ledger


async def test_a_run_in_flight_keeps_its_version_and_a_rolled_back_one_gets_no_new_runs(
    env: Env,
) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    ledger = _ledger_v2_without_payments(env)
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        going = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(ledger, "pay", scripted_reply=model_reply(pay_action("PIN-1"))),
        )
        held = await _held(env, going.workflow_id)  # type: ignore[arg-type]
        assert held.pin == V1
        # The fleet moves on while the payment waits for a human.
        fleet.roll_out(svc, firm.org, firm.founder, ledger, 2, 100)
        await runs.decide_hold(
            svc, held.intents[0].intent.id, firm.founder, firm.founder, approve=True
        )
        kept = await asyncio.wait_for(runs.wait_run(svc, going.run_id, firm.founder), 60)
        # Decided under v1, which may pay: approved and paid, once.
        assert kept.pin == V1 and kept.intents[0].intent.pin == V1
        assert kept.intents[0].decision.outcome is Outcome.APPROVED
        assert kept.intents[0].dispatch is not None

        # A new run gets v2: payments are no longer in its published tools.
        new = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(ledger, "pay", scripted_reply=model_reply(pay_action("PIN-2"))),
        )
        on_two = await asyncio.wait_for(runs.wait_run(svc, new.run_id, firm.founder), 60)
        assert on_two.pin == V2
        assert on_two.rejection is not None and on_two.rejection.rule == "tool_not_in_snapshot"

        # Rolled back: new runs get v1 again, none of them v2.
        fleet.roll_back(svc, firm.org, firm.founder, ledger)
        after = []
        for i in range(6):
            started = await runs.start_run(
                svc,
                firm.org,
                firm.founder,
                runs.StartRun(ledger, f"remind {i}", scripted_reply=model_reply(EMAIL_ACTION)),
            )
            after.append(
                await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
            )
    assert {state.pin for state in after} == {V1}
    assert all(state.status is RunStatus.COMPLETED for state in after)
    assert store.audit.verify(firm.org).ok


async def test_a_version_retired_under_a_held_run_is_refused_at_approval(env: Env) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    ledger = _ledger_v2_without_payments(env)
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        going = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(ledger, "pay", scripted_reply=model_reply(pay_action("PIN-3"))),
        )
        held = await _held(env, going.workflow_id)  # type: ignore[arg-type]
        fleet.roll_out(svc, firm.org, firm.founder, ledger, 2, 100)
        fleet.retire(svc, firm.org, firm.founder, ledger, 1)
        intent_id = held.intents[0].intent.id
        await runs.decide_hold(svc, intent_id, firm.founder, firm.founder, approve=True)
        handle = env.temporal.client.get_workflow_handle_for(
            AgentRunWorkflow.run,
            going.workflow_id,  # type: ignore[arg-type]
        )
        state = await until(
            lambda: handle.query(AgentRunWorkflow.state),
            accept=lambda s: bool(s.refused_signals),
            what="the approval is refused",
        )
        # The approval is recorded and refused: v1 may no longer act; nothing is paid.
        assert state.status is RunStatus.NEEDS_HUMAN
        (refused,) = state.refused_signals
        assert "charter_unpublished" in refused and "v1 is retired" in refused
        await runs.decide_hold(svc, intent_id, firm.founder, firm.founder, approve=False)
        await handle.result()
    assert store.audit.verify(firm.org).ok
