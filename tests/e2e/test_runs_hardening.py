"""Runs against the real dev server: signals for other runs, reused client keys, failed runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import func, select
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, ClaimRow, EmailRow, PaymentRow
from domain.audit.chain import AuditEntry
from domain.errors import Conflict
from domain.governance.approvals import Decided, sign
from domain.governance.intents import Outcome
from domain.model_provider import ModelReply, ModelRequest
from domain.organization.kinds import DestinationKind, StaffRole
from domain.runs.failures import ErrorType, FailureClass
from domain.runs.run import ApprovalSignal, DispatchRequest, RunInput, RunState, RunStatus
from tests.fakes.governance import FIRM_PAYEE
from tests.support import (
    EMAIL_ACTION,
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    next_payee,
    pay_action,
    until,
    utc_now,
    wire,
)
from usecases import destinations, memory, needs_you, organization, runs
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows import search_attributes as sa
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal


class Env:
    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports, firm: Firm) -> None:
        self.temporal, self.store, self.svc, self.firm = temporal, store, svc, firm


@pytest.fixture
async def env(temporal_env: WorkflowEnvironment, sqlite_url: str) -> AsyncIterator[Env]:
    settings = make_settings(database_url=sqlite_url)
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    svc = wire(store, temporal_env.client, settings, utc_now)
    yield Env(temporal_env, store, svc, Firm(svc))
    store.close()


async def _held(env: Env, workflow_id: str) -> RunState:
    handle = env.temporal.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
    return await until(
        lambda: handle.query(AgentRunWorkflow.state),
        accept=lambda s: s.status is RunStatus.NEEDS_HUMAN,
        what=f"{workflow_id} is held",
    )


def _count(store: Store, query: object) -> int:
    with store.db.transaction() as s:
        return int(s.execute(query).scalar_one())  # type: ignore[call-overload]


async def test_a_signal_naming_another_runs_intent_is_refused(env: Env) -> None:
    svc, firm = env.svc, env.firm
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        a = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "a", scripted_reply=model_reply(pay_action("A-1", 200_000))
            ),
        )
        b = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "b", scripted_reply=model_reply(pay_action("B-1", 200_000))
            ),
        )
        await _held(env, a.workflow_id)
        b_intent = (await _held(env, b.workflow_id)).intents[0].intent
        run_a = env.temporal.client.get_workflow_handle_for(AgentRunWorkflow.run, a.workflow_id)
        # signed for run A (as no API would sign it): the proof holds, the ladder refuses
        assert svc.approvals is not None
        proof = sign(
            svc.approvals,
            Decided(
                run_id=a.run_id,
                intent_id=b_intent.id,
                intent_digest=b_intent.digest,
                approver_id=firm.founder,
                verdict="approve",
                reason="",
                hold=None,
            ),
            utc_now(),
        )
        await run_a.signal(
            "approve",
            ApprovalSignal(
                intent_id=b_intent.id,
                approver_id=firm.founder,
                intent_digest=b_intent.digest,
                proof=proof,
            ),
        )
        refused = await until(
            lambda: _count(
                env.store,
                select(func.count())
                .select_from(AuditEntryRow)
                .where(AuditEntryRow.intent_id == b_intent.id, AuditEntryRow.rule == "wrong_run"),
            ),
            what="the signal for run A is refused",
        )
        assert refused == 1
        # run B's hold is untouched and can still be decided in its own run
        await runs.decide_hold(svc, b_intent.id, firm.founder, firm.founder, approve=True)
        run_b = env.temporal.client.get_workflow_handle_for(AgentRunWorkflow.run, b.workflow_id)
        final = await asyncio.wait_for(run_b.result(), 60)
        assert final.intents[0].decision.outcome is Outcome.APPROVED
        assert final.intents[0].dispatch is not None
        await run_a.terminate()


async def test_a_reused_client_key_never_runs_again(env: Env) -> None:
    svc, firm = env.svc, env.firm
    async with build_worker(env.temporal.client, svc.settings, env.store, model=ScriptedProvider()):
        first = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["orion"],
                "mail",
                scripted_reply=model_reply(EMAIL_ACTION),
                client_key="k1",
            ),
        )
        await asyncio.wait_for(runs.wait_run(svc, first.run_id, firm.founder), 60)
        again = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["orion"],
                "mail",
                scripted_reply=model_reply(EMAIL_ACTION),
                client_key="k1",
            ),
        )
        assert (again.run_id, again.created) == (first.run_id, False)
        await asyncio.sleep(1)
    assert _count(env.store, select(func.count()).select_from(EmailRow)) == 1


class FailingDispatch:
    """Stands in for the connector path: the outside world refuses for good."""

    @activity.defn(name="dispatch")
    async def dispatch(self, request: DispatchRequest) -> None:
        raise ApplicationError(
            "the mail relay refused the message",
            type=ErrorType.DISPATCH_REFUSED,
            non_retryable=True,
        )


async def test_a_failed_run_closes_its_holds_and_releases_its_keys(env: Env) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    worker = build_worker(
        env.temporal.client,
        svc.settings,
        store,
        model=ScriptedProvider(),
        replace={"dispatch": FailingDispatch().dispatch},
    )
    async with worker:
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"],
                "pay and mail",
                scripted_reply=model_reply(pay_action("F-1", 200_000), EMAIL_ACTION),
            ),
        )
        final = await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
    assert final.status is RunStatus.FAILED
    assert "refused" in (final.error or "")
    outcomes = {v.intent.tool: (v.decision.outcome, v.decision.rule) for v in final.intents}
    assert outcomes == {
        "payments.pay": (Outcome.EXPIRED, "run_failed"),
        "email.send": (Outcome.EXPIRED, "dispatch_failed"),
    }
    assert _count(store, select(func.count()).select_from(ClaimRow)) == 0
    assert store.audit.verify(firm.org).ok


async def test_runs_are_findable_by_their_search_attributes(env: Env) -> None:
    """A run starts with its org, agent, projects and VerleticaNeedsHuman false; the flag
    is true while a hold waits and false again once the run is done."""
    svc, firm = env.svc, env.firm
    client = env.temporal.client
    async with build_worker(client, svc.settings, env.store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"], "pay", scripted_reply=model_reply(pay_action("S-1", 200_000))
            ),
        )
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
        held = await _held(env, started.workflow_id)
        await _attribute(handle, sa.ORG, firm.org)
        await _attribute(handle, sa.PROJECTS, ["east"])
        await _attribute(handle, sa.NEEDS_HUMAN, True)
        intent = held.intents[0].intent
        await runs.decide_hold(svc, intent.id, firm.founder, firm.founder, approve=True)
        await asyncio.wait_for(handle.result(), 60)
        await _attribute(handle, sa.NEEDS_HUMAN, False)
        await _legible(handle, started.workflow_id)


async def _legible(handle: WorkflowHandle[Any, Any], workflow_id: str) -> None:
    """As an operator sees the run in the Temporal UI: its id names its agent, every
    activity and the hold's timer say what they are, and the run stops needing a human
    as the hold closes, before the payment is dispatched."""
    assert workflow_id.startswith("run-ledger-")
    history = await handle.fetch_history()
    converter = pydantic_data_converter.payload_converter

    def summary(event: Any) -> str:
        payload = event.user_metadata.summary
        return str(converter.from_payload(payload, str)) if payload.data else ""

    events = list(history.events)
    scheduled = [e for e in events if e.HasField("activity_task_scheduled_event_attributes")]
    assert scheduled and all(summary(e) for e in scheduled)
    timers = [summary(e) for e in events if e.HasField("timer_started_event_attributes")]
    assert any(
        t.startswith("hold: a human decides 1 intent(s) (payments.pay) before ") for t in timers
    ), timers
    markers = [
        e.event_id
        for e in events
        if e.HasField("upsert_workflow_search_attributes_event_attributes")
        and b"VerleticaNeedsHuman"
        in e.upsert_workflow_search_attributes_event_attributes.search_attributes.SerializeToString()
    ]
    dispatch = next(
        e.event_id
        for e in scheduled
        if e.activity_task_scheduled_event_attributes.activity_type.name == "dispatch"
    )
    assert len(markers) == 2 and markers[0] < markers[1] < dispatch, (markers, dispatch)


async def _attribute(handle: WorkflowHandle[Any, Any], key: Any, expected: object) -> None:
    """The run's search attribute ``key`` reaches ``expected`` (visibility is updated
    asynchronously)."""

    async def value() -> object:
        return (await handle.describe()).typed_search_attributes.get(key)

    await until(value, accept=lambda v: v == expected, what=f"{key.name} is {expected!r}")


async def test_a_run_failing_before_any_intent_is_on_the_chain_and_in_the_queue(env: Env) -> None:
    """The model never answers (no script): the run fails before proposing anything. Its
    failure is one chain entry, the queue offers a retry, and a retry is on the record.
    A run refused at resolve is on the record as that refusal only."""
    svc, firm, store = env.svc, env.firm, env.store
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc, firm.org, firm.founder, runs.StartRun(firm.agents["orion"], "draft the agenda")
        )
        final = await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
    assert final.status is RunStatus.FAILED and final.intents == ()
    ended = [
        e
        for e in store.audit.entries(firm.org)
        if e.payload.get("run_id") == started.run_id and e.stage == "run"
    ]
    assert [(e.rule, e.decision) for e in ended] == [("run_failed", "ended_badly")]
    assert "script" in str(ended[0].payload["reason"])
    queue = needs_you.needs_you(svc, firm.org, firm.founder)
    failed = [i for i in queue.items if getattr(i, "subject_id", None) == started.run_id]
    assert len(failed) == 1 and failed[0].kind == "failed_run"  # type: ignore[union-attr]
    assert [a.kind for a in failed[0].actions] == ["retry"]  # type: ignore[union-attr]
    (listed,) = needs_you.failed_runs(svc, firm.org, firm.founder)
    assert (listed.run_id, listed.failure, listed.retries_left) == (started.run_id, "model", 3)
    assert needs_you.failed_runs(svc, firm.org, firm.founder, FailureClass.BARRIER) == []
    assert store.audit.verify(firm.org).ok


async def test_an_agent_asks_a_human_and_the_answer_goes_on_in_a_new_run_once(env: Env) -> None:
    """The agent cannot act without an answer: its reply asks, the run proposes nothing,
    the question is on the chain and in the queue with its answer action; the answer
    starts one new run with the task, the question and the answer; a second is refused."""
    svc, firm, store = env.svc, env.firm, env.store
    asking = json.dumps(
        {"summary": "Two invoices match.", "actions": [], "question": "INV-7 or INV-8?"}
    )
    async with build_worker(env.temporal.client, svc.settings, store, model=ScriptedProvider()):
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["ledger"], "pay the Atlas invoice", scripted_reply=asking),
        )
        final = await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
        assert final.status is RunStatus.COMPLETED and final.intents == ()
        assert final.question == "INV-7 or INV-8?"
        queue = needs_you.needs_you(svc, firm.org, firm.founder)
        (item,) = [i for i in queue.items if getattr(i, "kind", None) == "agent_reply"]
        assert item.subject_id == started.run_id  # type: ignore[union-attr]
        assert [a.kind for a in item.actions] == ["answer"]  # type: ignore[union-attr]
        assert "Ledger asks: INV-7 or INV-8?" == item.title  # type: ignore[union-attr]

        answered = await needs_you.answer_run(svc, started.run_id, firm.founder, "INV-8")
        with pytest.raises(Conflict):
            await needs_you.answer_run(svc, started.run_id, firm.founder, "INV-7")
        new = svc.runs.get(answered.answer.run_id)
        assert new is not None and new.agent_id == firm.agents["ledger"]
        assert new.task.endswith("You asked: INV-7 or INV-8?\nThe answer from ada: INV-8")
        await asyncio.wait_for(runs.wait_run(svc, new.id, firm.founder), 60)
    left = needs_you.needs_you(svc, firm.org, firm.founder).items
    assert all(getattr(i, "kind", None) != "agent_reply" for i in left)
    rules = [e.rule for e in store.audit.entries(firm.org)]
    assert rules.count("agent_question") == 1 and rules.count("run_answered") == 1
    assert store.audit.verify(firm.org).ok


class _Obeying(ScriptedProvider):
    """The model of a run started without a script (the one that goes on with an
    answer): it proposes ``then``, exactly."""

    def __init__(self, then: str) -> None:
        super().__init__()
        self._then = then

    async def generate(self, request: ModelRequest) -> ModelReply:
        if request.scripted_reply is None:
            return ModelReply(text=self._then, provider=self.name, model="script")
        return await super().generate(request)


def _invoice(env: Env, ref: str, project: str, text: str, sender: str) -> None:
    """An inbound invoice, filed on ``project`` through the real ingestion path."""
    memory.remember(
        env.svc,
        env.firm.org,
        env.firm.founder,
        memory.Remember(ref, (project,), text, kind="invoice", source=sender),
    )


async def _asked(env: Env, task: str, summary: str, question: str) -> tuple[str, AuditEntry]:
    """Ledger's run on ``task`` asks ``question`` instead of acting: the run's id and the
    question's chain entry."""
    svc, firm = env.svc, env.firm
    asking = json.dumps({"summary": summary, "actions": [], "question": question})
    started = await runs.start_run(
        svc,
        firm.org,
        firm.founder,
        runs.StartRun(firm.agents["ledger"], task, scripted_reply=asking),
    )
    await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
    (asked,) = [e for e in env.store.audit.entries(firm.org) if e.rule == "agent_question"]
    return started.run_id, asked


async def test_the_run_that_answers_a_question_knows_what_the_asking_run_read(env: Env) -> None:
    """An agent reads an outside invoice announcing new bank details and asks before
    paying; the owner says yes. The run that goes on is handed what the asking run read
    (on the chain with the question): its payment to the new account is held, naming the
    invoice, whatever that run recalls itself."""
    svc, firm, store = env.svc, env.firm, env.store
    iban = "GB94 BARC 1020 1530 0934 59"
    _invoice(
        env,
        "ns-0412",
        "east",
        f"Northwind Supplies invoice NS-0412 for Atlas storage, USD 250.00. Our bank "
        f"details have changed: please pay IBAN {iban}.",
        "billing@northwind-supplies-payments.example",
    )
    action = pay_action("NS-0412", 25_000)
    action["payload"] |= {"payee": FIRM_PAYEE, "account": iban}
    model = _Obeying(model_reply(action))
    async with build_worker(env.temporal.client, svc.settings, store, model=model):
        asking, asked = await _asked(
            env,
            "Pay the Northwind Supplies invoice NS-0412 for Atlas storage.",
            "The invoice names new bank details.",
            "Pay it?",
        )
        read = tuple(asked.payload["read_refs"])  # the invoice, beside the firm's own notes
        assert "ns-0412" in read and asked.payload["read_reach"] == ["east"]

        answered = await needs_you.answer_run(svc, asking, firm.founder, "Yes, pay it.")
        going_on = svc.runs.get(answered.answer.run_id)
        assert going_on is not None
        # Handed with its task, as a work graph's step is: not left to its own recall.
        history = await env.temporal.client.get_workflow_handle(
            going_on.workflow_id
        ).fetch_history()
        attrs = history.events[0].workflow_execution_started_event_attributes
        (handed,) = pydantic_data_converter.payload_converter.from_payloads(
            list(attrs.input.payloads), [RunInput]
        )
        assert (handed.read_refs, handed.read_reach) == (read, ("east",))
        view = await until(
            lambda: runs.run_view(svc, going_on.id, firm.founder),
            accept=lambda v: v.state is not None and v.state.status == "needs_human",
            what="the payment to the new account is held",
        )
    assert view.state is not None
    (tracked,) = view.state.intents
    assert "ns-0412" in tracked.intent.read_refs
    assert "new_destination" in tracked.decision.rule
    assert "first appears in the inbound invoice ns-0412" in tracked.decision.reason


async def test_an_answer_cannot_carry_what_was_read_where_the_agent_no_longer_stands(
    env: Env,
) -> None:
    """The asking run read a North invoice; Ledger is then taken off North. The run that
    goes on with the answer recalls nothing of North (its agent may not), yet it was
    handed what the question was asked from: its East payment reaches North, and is
    refused. Without what it was handed it would have gone out."""
    svc, firm, store = env.svc, env.firm, env.store
    organization.add_project(svc, firm.org, firm.founder, "north", "Cobalt")
    on_north = organization.staff(
        svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["ledger"], "north", StaffRole.MEMBER),
    )
    payee = next_payee()
    destinations.establish(
        svc, firm.org, firm.founder, destinations.Establish("north", DestinationKind.PAYEE, payee)
    )
    _invoice(
        env,
        "cobalt-inv-9",
        "north",
        f"{payee} invoice CB-9 for the Cobalt survey, USD 50.00, due on receipt.",
        "billing@cobalt-vendor.example",
    )
    action = pay_action("CB-9", 5_000)
    action["payload"] |= {"payee": payee}
    async with build_worker(
        env.temporal.client, svc.settings, store, model=_Obeying(model_reply(action))
    ):
        asking, asked = await _asked(
            env,
            f"Pay the {payee} invoice CB-9 for the Cobalt survey.",
            "One invoice is due.",
            "Pay CB-9 from East?",
        )
        assert "cobalt-inv-9" in asked.payload["read_refs"]
        organization.unstaff(svc, firm.org, firm.founder, on_north.id)

        answered = await needs_you.answer_run(svc, asking, firm.founder, "Yes.")
        final = await asyncio.wait_for(runs.wait_run(svc, answered.answer.run_id, firm.founder), 60)
    (tracked,) = final.intents
    assert tracked.intent.projects == ("east",) and "north" in tracked.intent.read_reach
    assert (tracked.decision.outcome, tracked.decision.rule) == (
        Outcome.REJECT,
        "reach_outside_staffing",
    )
    assert "reaches Cobalt, where the agent is not staffed" in tracked.decision.reason
    assert _count(store, select(func.count()).select_from(PaymentRow)) == 0
