"""Approvals that cannot be forged, against the real dev server (SQLite and PostgreSQL).

A signal sent straight to Temporal (as from its UI or CLI) with a missing or forged
proof, one that does not decode, and one for no open hold are each recorded in the
audit chain and shown in the run's state, refused; a decision through the API dispatches
once; decisions signed before a key rotation still verify after it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from temporalio import activity
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.governance import BrokerActivities
from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, PaymentRow
from domain.errors import Conflict, Unavailable
from domain.governance.approvals import ApprovalKeys, Decided, sign
from domain.governance.intents import DispatchResult, Intent, Outcome
from domain.organization.contracts import SpendCap
from domain.runs.run import DispatchRequest, RunState, RunStatus
from tests.support import (
    EMAIL_ACTION,
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    pay_action,
    until,
    utc_now,
    wire,
)
from usecases import commitments, runs
from usecases.context import Ports
from worker.bootstrap import build_connectors, build_worker
from worker.settings import Settings
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal

Handle = WorkflowHandle[Any, RunState]


class Env:
    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)

    def handle(self, workflow_id: str) -> Handle:
        return self.temporal.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)

    def audit(self, **where: Any) -> list[AuditEntryRow]:
        with self.store.db.transaction() as s:
            query = select(AuditEntryRow).where(AuditEntryRow.org_id == self.firm.org)
            for name, value in where.items():
                query = query.where(getattr(AuditEntryRow, name) == value)
            return list(s.execute(query.order_by(AuditEntryRow.seq)).scalars())

    def payments(self, intent_id: str) -> int:
        with self.store.db.transaction() as s:
            query = select(func.count()).select_from(PaymentRow)
            return int(s.execute(query.where(PaymentRow.intent_id == intent_id)).scalar_one())


@pytest.fixture
async def env(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Env]:
    settings = make_settings(database_url=db_url)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    yield Env(temporal_env, store, wire(store, temporal_env.client, settings, utc_now))
    store.close()


async def _until(handle: Handle, done: Callable[[RunState], bool], what: str) -> RunState:
    """The run's state once ``done``."""
    return await until(lambda: handle.query(AgentRunWorkflow.state), accept=done, what=what)


async def _held(env: Env, task: str, *actions: dict[str, Any]) -> tuple[Handle, str, RunState]:
    firm = env.firm
    started = await runs.start_run(
        env.svc,
        firm.org,
        firm.founder,
        runs.StartRun(firm.agents["ledger"], task, scripted_reply=model_reply(*actions)),
    )
    handle = env.handle(started.workflow_id)
    state = await _until(handle, lambda s: s.status is RunStatus.NEEDS_HUMAN, "held")
    return handle, started.run_id, state


def _refused(state: RunState) -> list[str]:
    """The rules of the run's refused signals, in order."""
    return [line.split(": ", 1)[1].split(" — ")[0] for line in state.refused_signals]


def _signal(intent: Intent, approver: str, **extra: Any) -> dict[str, Any]:
    """An approval as someone types it into the Temporal UI or CLI: plain JSON."""
    return {
        "intent_id": intent.id,
        "approver_id": approver,
        "intent_digest": intent.digest,
        **extra,
    }


def _decided(run_id: str, intent: Intent, approver: str, verdict: str = "approve") -> Decided:
    return Decided(
        run_id=run_id,
        intent_id=intent.id,
        intent_digest=intent.digest,
        approver_id=approver,
        verdict=verdict,
        reason="",
        hold=None,
    )


class CountingDispatch:
    """The real dispatch activity, counting how often the connector write is asked for."""

    def __init__(self, store: Store, keys: ApprovalKeys) -> None:
        self.calls = 0
        self._real = BrokerActivities(
            store.governance, build_connectors(store, utc_now), utc_now, approvals=keys
        )

    @activity.defn(name="dispatch")
    async def dispatch(self, request: DispatchRequest) -> DispatchResult:
        self.calls += 1
        return await self._real.dispatch(request)


async def test_signals_straight_to_temporal_are_recorded_and_refused(env: Env) -> None:
    """Missing and forged proofs, undecodable payloads and unknown signal names: each is
    in the audit chain and the run's state, refused, and the hold stays open; then a
    decision through the API dispatches once."""
    svc, firm = env.svc, env.firm
    assert svc.approvals is not None
    counting = CountingDispatch(env.store, svc.approvals)
    async with build_worker(
        env.temporal.client,
        svc.settings,  # type: ignore[arg-type]
        env.store,
        model=ScriptedProvider(),
        replace={"dispatch": counting.dispatch},
    ):
        handle, run_id, state = await _held(env, "pay", pay_action("PF-1"))
        intent = state.intents[0].intent
        now = utc_now()
        valid = sign(svc.approvals, _decided(run_id, intent, firm.founder), now)
        for_ben = sign(svc.approvals, _decided(run_id, intent, firm.associate), now)
        random = valid.model_copy(update={"signature": secrets.token_hex(32)})

        # (a) no proof, as the Temporal UI or CLI sends it
        await handle.signal("approve", _signal(intent, firm.founder))
        # (b) forged: a made-up signature, and Ben's proof presented as Ada's
        await handle.signal(
            "approve", _signal(intent, firm.founder, proof=random.model_dump(mode="json"))
        )
        await handle.signal(
            "approve", _signal(intent, firm.founder, proof=for_ben.model_dump(mode="json"))
        )
        # ...and a valid proof for an approval, sent as a deny
        await handle.signal(
            "deny", _signal(intent, firm.founder, proof=valid.model_dump(mode="json"))
        )
        # (c) payloads that do not decode, and a name that is no decision
        await handle.signal("approve", "yes")
        await handle.signal("deny", 3)
        await handle.signal("approve", args=[_signal(intent, firm.founder)] * 2)
        await handle.signal("approve", _signal(intent, firm.founder, proof={"signed_at": "x"}))
        await handle.signal("approv", _signal(intent, firm.founder))
        expected = ["missing_proof"] + ["forged_proof"] * 3 + ["undecodable_signal"] * 5
        state = await _until(
            handle, lambda s: len(s.refused_signals) == len(expected), "nine refusals"
        )
        assert _refused(state) == expected
        assert state.status is RunStatus.NEEDS_HUMAN
        (view,) = state.intents
        assert view.decision.outcome is Outcome.HOLD
        assert [r.split(": ")[1] for r in view.refused_reviews] == expected[:4]
        assert state.refused_signals[0].startswith(f"approve by {firm.founder}: missing_proof")
        assert "unknown signal 'approv'" in state.refused_signals[-1]
        assert "got 2 arguments" in state.refused_signals[6]
        # the run's view shows them too
        seen = await runs.run_view(svc, run_id, firm.founder)
        assert seen.state is not None and seen.state.refused_signals == state.refused_signals

        # every attempt is in the chain, refused, with its rule
        refused = env.audit(decision="review_refused")
        assert [e.rule for e in refused] == expected
        assert all(e.intent_id == intent.id for e in refused[:4])
        undecodable = refused[4:]
        assert all(e.actor == "unknown" and e.intent_id is None for e in undecodable)
        assert all(e.payload["run_id"] == run_id for e in undecodable)
        assert counting.calls == 0 and env.payments(intent.id) == 0

        # a process without the approval key cannot decide at all
        with pytest.raises(Unavailable, match="VERLETICA_APPROVAL_KEY"):
            keyless = dataclasses.replace(svc, approvals=None)
            await runs.decide_hold(keyless, intent.id, firm.founder, firm.founder, approve=True)

        # (e) through the API (a signed decision): dispatched once
        await runs.decide_hold(svc, intent.id, firm.founder, firm.founder, approve=True)
        final = await asyncio.wait_for(handle.result(), 60)
    assert final.status is RunStatus.COMPLETED
    assert final.intents[0].decision.outcome is Outcome.APPROVED
    assert final.intents[0].dispatch is not None
    assert counting.calls == 1 and env.payments(intent.id) == 1
    (approved,) = env.audit(intent_id=intent.id, decision="approved")
    assert approved.payload["proof_key_id"] == svc.approvals.current.key_id
    assert len(env.audit(intent_id=intent.id, decision="dispatched")) == 1
    assert env.store.audit.verify(firm.org).ok


async def test_decisions_for_no_open_hold_are_recorded_and_refused(env: Env) -> None:
    """(d) A decision for a hold already decided, and one sent to a run that has no hold
    at all, are recorded and refused (before, both were ignored)."""
    svc, firm = env.svc, env.firm
    assert svc.approvals is not None
    async with build_worker(
        env.temporal.client,
        svc.settings,  # type: ignore[arg-type]
        env.store,
        model=ScriptedProvider(delay_seconds=1.5),
    ):
        # two holds: the first decided, then decided again while the second keeps the run
        handle, run_id, state = await _held(env, "pay two", pay_action("NH-1"), pay_action("NH-2"))
        first, second = (v.intent for v in state.intents)
        await runs.decide_hold(svc, first.id, firm.founder, firm.founder, approve=False)
        await _until(
            handle,
            lambda s: s.intents[0].decision.outcome is Outcome.DENIED,
            "first denied",
        )
        again = sign(svc.approvals, _decided(run_id, first, firm.founder), utc_now())
        await handle.signal(
            "approve", _signal(first, firm.founder, proof=again.model_dump(mode="json"))
        )
        state = await _until(handle, lambda s: bool(s.refused_signals), "refused")
        assert _refused(state) == ["hold_closed"]
        await runs.decide_hold(svc, second.id, firm.founder, firm.founder, approve=False)
        await asyncio.wait_for(handle.result(), 60)

        # a run with no hold: signed for it, sent while the model thinks
        started = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], "mail", scripted_reply=model_reply(EMAIL_ACTION)),
        )
        mail = env.handle(started.workflow_id)
        await _until(mail, lambda s: s.nodes["reasoning"] == "running", "reasoning")
        made_up = first.model_copy(update={"id": "no-such-intent"})
        for named in (first, made_up):
            proof = sign(svc.approvals, _decided(started.run_id, named, firm.founder), utc_now())
            await mail.signal(
                "approve", _signal(named, firm.founder, proof=proof.model_dump(mode="json"))
            )
        await mail.signal("deny", [])
        final = await asyncio.wait_for(mail.result(), 60)
    assert final.status is RunStatus.COMPLETED and final.intents[0].dispatch is not None
    assert _refused(final) == ["wrong_run", "not_held", "undecodable_signal"]
    rules = [e.rule for e in env.audit(decision="review_refused")]
    assert rules == ["hold_closed", "wrong_run", "not_held", "undecodable_signal"]
    assert env.store.audit.verify(firm.org).ok


async def test_a_decision_signed_before_a_key_rotation_still_verifies(
    temporal_env: WorkflowEnvironment, db_url: str
) -> None:
    """(f) A run held under key A; the workers restart with B current and A retired; the
    decision the API signed with A verifies, and so does one signed with B afterwards."""
    key_a, key_b = os.urandom(32).hex(), os.urandom(32).hex()
    before = make_settings(database_url=db_url, approval_key=key_a)
    after: Settings = make_settings(
        database_url=db_url,
        task_queue=before.task_queue,
        approval_key=key_b,
        approval_retired_keys=key_a,
    )
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    env = Env(temporal_env, store, wire(store, temporal_env.client, before, utc_now))
    svc_a, svc_b = env.svc, wire(store, temporal_env.client, after, utc_now)
    firm = env.firm
    try:
        async with build_worker(temporal_env.client, before, store, model=ScriptedProvider()):
            handle, _, state = await _held(env, "pay", pay_action("ROT-1"))
        intent = state.intents[0].intent
        # signed with A while no worker runs; the workers come back rotated
        await runs.decide_hold(svc_a, intent.id, firm.founder, firm.founder, approve=True)
        async with build_worker(temporal_env.client, after, store, model=ScriptedProvider()):
            final = await asyncio.wait_for(handle.result(), 60)
            assert final.intents[0].decision.outcome is Outcome.APPROVED
            assert final.refused_signals == ()

            env.svc = svc_b
            handle, _, state = await _held(env, "pay", pay_action("ROT-2"))
            intent_b = state.intents[0].intent
            await runs.decide_hold(svc_b, intent_b.id, firm.founder, firm.founder, approve=True)
            final = await asyncio.wait_for(handle.result(), 60)
            assert final.intents[0].decision.outcome is Outcome.APPROVED
        assert env.payments(intent.id) == 1 and env.payments(intent_b.id) == 1
        assert svc_a.approvals is not None and svc_b.approvals is not None
        keys = [e.payload["proof_key_id"] for e in env.audit(decision="approved")]
        assert keys == [svc_a.approvals.current.key_id, svc_b.approvals.current.key_id]
        assert store.audit.verify(firm.org).ok
    finally:
        store.close()


async def _signals_in_history(handle: Handle) -> list[dict[str, Any]]:
    """The approve signals of the run as its Temporal history holds them (what anyone who
    can read the history, in the UI or with the CLI, can copy)."""
    found = []
    async for event in handle.fetch_history_events():
        if event.HasField("workflow_execution_signaled_event_attributes"):
            attrs = event.workflow_execution_signaled_event_attributes
            if attrs.signal_name == "approve":
                (payload,) = attrs.input.payloads
                found.append(json.loads(payload.data))
    return found


async def test_an_approval_copied_from_history_cannot_approve_a_later_hold(env: Env) -> None:
    """Issue 19.1 end to end: a confirmed 300,000-cent cap; a 250,000-cent payment held
    for the threshold; a 90,000-cent payment paid meanwhile. Ada approves the first: the
    review holds it again for the cap and refuses her approval. Her signed approval,
    copied from the run's history and sent again with the Temporal client (as with the
    CLI), is refused as spent, on the record; nothing is paid past the cap."""
    svc, firm = env.svc, env.firm
    cap = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "cap", SpendCap(limit_cents=300_000), "letter", projects=("east",)
        ),
    )
    commitments.confirm(svc, cap.id, firm.founder)
    async with build_worker(
        env.temporal.client,
        svc.settings,  # type: ignore[arg-type]
        env.store,
        model=ScriptedProvider(),
    ):
        handle, _, state = await _held(env, "pay", pay_action("CAP-1", 250_000))
        big = state.intents[0].intent
        shown = state.intents[0].decision.audit_seq  # the hold Ada's page shows
        small = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(
                firm.agents["ledger"],
                "pay",
                scripted_reply=model_reply(pay_action("CAP-2", 90_000)),
            ),
        )
        done = await asyncio.wait_for(env.handle(small.workflow_id).result(), 60)
        assert done.intents[0].dispatch is not None

        await runs.decide_hold(
            svc, big.id, firm.founder, firm.founder, approve=True, hold_seq=shown
        )
        state = await _until(handle, lambda s: bool(s.refused_signals), "the re-hold")
        assert _refused(state) == ["hold_reasons_changed"]
        assert "spend_cap" in state.intents[0].decision.rule
        # a second click on the page that still shows the first hold answers nothing
        with pytest.raises(Conflict, match="hold_changed"):
            await runs.decide_hold(
                svc, big.id, firm.founder, firm.founder, approve=True, hold_seq=shown
            )

        (copied,) = await _signals_in_history(handle)
        assert copied["proof"] and copied["hold"]["audit_seq"]
        await handle.signal("approve", copied)
        state = await _until(handle, lambda s: len(s.refused_signals) == 2, "the replay")
        assert _refused(state) == ["hold_reasons_changed", "proof_spent"]
        assert state.status is RunStatus.NEEDS_HUMAN
        await runs.decide_hold(svc, big.id, firm.founder, firm.founder, approve=False)
        final = await asyncio.wait_for(handle.result(), 60)
    assert final.intents[0].decision.outcome is Outcome.DENIED
    assert env.payments(big.id) == 0
    assert [e.rule for e in env.audit(intent_id=big.id, decision="review_refused")] == [
        "hold_reasons_changed",
        "proof_spent",
    ]
    assert not env.audit(intent_id=big.id, decision="approved")
    assert env.store.audit.verify(firm.org).ok
