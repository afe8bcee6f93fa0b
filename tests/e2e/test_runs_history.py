"""What a run writes to its history: the fewest events that keep each step legible.

Every step the design names is still there (resolve and context as one activity, each
broker decision a local activity, the write an activity); patches are asked once, so a
run that starts today records one patch marker and one ``TemporalChangeVersion`` upsert,
not one of each per patch (each is a visibility write on the server)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from domain.runs.run import RunInput, RunStatus
from tests.e2e.test_runs_hardening import _held
from tests.support import (
    EMAIL_ACTION,
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    pay_action,
    utc_now,
    wire,
)
from usecases import runs
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows.runs import IMPLIED_BY_SETTLED, REVIEW_EVERY_SIGNAL, SETTLED, AgentRunWorkflow

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


def _kinds(history: WorkflowHistory) -> list[str]:
    return [EventType.Name(e.event_type).removeprefix("EVENT_TYPE_") for e in history.events]


def _activities(history: WorkflowHistory) -> list[str]:
    return [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


def _markers(history: WorkflowHistory) -> list[str]:
    return [
        e.marker_recorded_event_attributes.marker_name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
    ]


def _patches(history: WorkflowHistory) -> list[str]:
    """The patch ids of the run's patch markers, in order."""
    found = []
    for e in history.events:
        attrs = e.marker_recorded_event_attributes
        if (
            e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
            and attrs.marker_name == "core_patch"
        ):
            found.append(json.loads(attrs.details["patch-data"].payloads[0].data)["id"])
    return found


async def test_a_run_that_writes_asks_one_patch_and_resolves_and_recalls_in_one_step(
    env: Env,
) -> None:
    svc = env.svc
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            env.firm.org,
            env.firm.founder,
            runs.StartRun(
                env.firm.agents["ledger"],
                "tell the client",
                scripted_reply=model_reply(EMAIL_ACTION),
            ),
        )
        state = await runs.wait_run(svc, started.run_id, env.firm.founder)
        history = await env.temporal.client.get_workflow_handle(started.workflow_id).fetch_history()
    assert state.status is RunStatus.COMPLETED and state.intents[0].dispatch is not None
    assert state.nodes["resolve"] == state.nodes["context"] == "done"
    assert _activities(history) == ["resolve_and_recall", "reasoning", "dispatch"]
    assert _patches(history) == [SETTLED]
    assert _markers(history).count("core_local_activity") == 1  # the broker's decision
    # The patch's own upsert of TemporalChangeVersion, and nothing else: the run's
    # projects were right from its start, and it was never held.
    assert _kinds(history).count("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES") == 1


async def test_a_held_run_asks_no_more_patches_when_approved(env: Env) -> None:
    svc, firm = env.svc, env.firm
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=model_reply(pay_action("H-1", 200_000))
            ),
        )
        held = await _held(env, started.workflow_id)
        await runs.decide_hold(
            svc, held.intents[0].intent.id, firm.founder, firm.founder, approve=True
        )
        state = await runs.wait_run(svc, started.run_id, firm.founder)
        history = await env.temporal.client.get_workflow_handle(started.workflow_id).fetch_history()
    assert state.intents[0].dispatch is not None
    assert _activities(history) == ["resolve_and_recall", "reasoning", "dispatch"]
    assert _patches(history) == [SETTLED]
    # The patch's upsert, needs-human set as the run is held and cleared as it is approved.
    assert _kinds(history).count("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES") == 3


async def _replays(history: WorkflowHistory) -> None:
    replayer = Replayer(workflows=[AgentRunWorkflow], data_converter=pydantic_data_converter)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


async def test_a_signal_before_the_run_starts_asks_its_own_patch_and_replays(env: Env) -> None:
    """A signal delivered with the start reaches the handler before the run's code asks
    SETTLED: the handler asks its own patch, and the history replays the same way."""
    svc, firm = env.svc, env.firm
    run = RunInput(
        run_id=str(uuid.uuid4()),
        org_id=firm.org,
        agent_id=firm.agents["ledger"],
        task="tell the client",
        scripted_reply=model_reply(EMAIL_ACTION),
    )
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        handle = await env.temporal.client.start_workflow(
            AgentRunWorkflow.run,
            run,
            id=f"agent-run-{run.run_id}",
            task_queue=svc.settings.task_queue,
            start_signal="approve",
            start_signal_args=["not a decision"],
        )
        state = await handle.result()
        history = await handle.fetch_history()
    assert state.status is RunStatus.COMPLETED and len(state.refused_signals) == 1
    assert _patches(history) == [REVIEW_EVERY_SIGNAL, SETTLED]
    await _replays(history)


async def test_a_failed_run_records_its_failure_without_a_patch_and_replays(env: Env) -> None:
    """A run whose model cannot answer fails on the record; under SETTLED it asks no
    patch to do so, and its history replays."""
    svc, firm = env.svc, env.firm
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc, firm.org, firm.founder, runs.StartRun(firm.agents["ledger"], "no script")
        )
        handle = env.temporal.client.get_workflow_handle_for(
            AgentRunWorkflow.run, started.workflow_id
        )
        state = await handle.result()
        history = await handle.fetch_history()
    assert state.status is RunStatus.FAILED
    assert state.nodes["resolve"] == state.nodes["context"] == "done"
    assert _patches(history) == [SETTLED]
    assert _markers(history).count("core_local_activity") == 1  # the failure, on the chain
    await _replays(history)


def test_a_later_patch_cannot_be_asked_through_the_settled_shortcut() -> None:
    """A patch added after SETTLED must record its own marker in runs that have SETTLED:
    asking it through ``_patched`` would take its new branch on replay without one."""
    run = AgentRunWorkflow()
    run._settled = True
    with pytest.raises(RuntimeError, match="not implied"):
        run._patched("a-later-patch")
    assert all(run._patched(p) for p in IMPLIED_BY_SETTLED)
