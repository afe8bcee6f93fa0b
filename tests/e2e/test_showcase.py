"""The showcase scenario, end to end: HTTP API → Temporal dev server → worker → store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, EmailRow, PaymentRow
from api.http.app import create_app
from api.local.demo import play
from api.local.demo_report import waiting_lines
from api.local.demo_script import (
    INVOICE,
    INVOICE_REF,
    REDIRECT_REF,
    TASKS,
    WEST_NOTE,
    WEST_NOTE_REF,
)
from domain.memory.release import Release
from domain.runs.run import ApprovalSignal, RunStatus
from tests.identity import bearer, sign_in
from tests.support import TEST_KEYS, make_settings, until, utc_now, wire
from usecases import runs
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows.runs import AgentRunWorkflow

pytestmark = pytest.mark.temporal


class Stack:
    def __init__(self, store: Store, services: Ports, http: httpx.AsyncClient) -> None:
        self.store, self.services, self.http = store, services, http


@pytest.fixture
async def stack(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Stack]:
    """API in process (ASGI), a worker on the replay provider, the real dev server."""
    settings = make_settings(model_provider="replay", database_url=db_url)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    services = wire(store, temporal_env.client, settings, utc_now)
    app = create_app(settings, services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://verletica") as http:
            async with build_worker(temporal_env.client, settings, store):
                yield Stack(store, services, http)
    store.close()


def _count(store: Store, table: Any, **where: Any) -> int:
    with store.db.transaction() as s:
        query = select(func.count()).select_from(table)
        for name, value in where.items():
            query = query.where(getattr(table, name) == value)
        return int(s.execute(query).scalar_one())


async def test_showcase_exercises_every_broker_outcome(
    stack: Stack, temporal_env: WorkflowEnvironment
) -> None:
    report = await play(stack.http, sign_in)
    runs, org = report.runs, report.org_id

    def only_decisions(step: str) -> list[dict[str, Any]]:
        (item,) = runs[step]["intents"]
        return item["decisions"]

    # an allowed write, dispatched once
    (allow,) = only_decisions("kickoff")
    assert (allow["outcome"], allow["stage"]) == ("allow", "audit_dispatch")
    assert runs["kickoff"]["state"]["intents"][0]["dispatch"]["duplicate"] is False
    (west,) = only_decisions("west")  # the West planner briefs its own team
    assert (west["outcome"], west["stage"]) == ("allow", "audit_dispatch")
    # and four of the checklist graph's steps and the deliberation's synthesis, below
    assert _count(stack.store, EmailRow, org_id=org) == 2 + 4 + 1

    # crossing the wall: hard deny at scope & barriers
    (cross,) = only_decisions("cross")
    assert (cross["outcome"], cross["stage"], cross["rule"]) == (
        "reject",
        "scope_barriers",
        "barrier_crossed",
    )
    assert set(cross["reach"]) == {"east", "west"}

    # not staffed on the target project
    (unstaffed,) = only_decisions("unstaffed")
    assert (unstaffed["outcome"], unstaffed["stage"], unstaffed["rule"]) == (
        "reject",
        "staffing",
        "not_staffed",
    )

    # malformed reply: rejected by the parser, nothing proposed
    malformed = runs["malformed"]
    assert malformed["intents"] == []
    assert malformed["state"]["rejection"]["rule"] == "malformed_json"
    assert malformed["state"]["nodes"]["action"] == "skipped"

    # the failed-run list: each with its class and the retries it has left
    failed = {f["run_id"]: f for f in report.failed}
    classes = {
        step: (
            failed[runs[step]["run_id"]]["failure"],
            failed[runs[step]["run_id"]]["retries_left"],
        )
        for step in ("cross", "unstaffed", "malformed")
    }
    assert classes == {
        "cross": ("barrier", 0),
        "unstaffed": ("authority", 0),
        "malformed": ("validation", 2),
    }
    assert not {runs[s]["run_id"] for s in ("kickoff", "west", "payment")} & set(failed)

    # payment over the cap: held, refused approval by Ben, approved by Ada, paid once
    hold, approved = only_decisions("payment")
    assert hold["outcome"] == "hold" and "spend_cap" in hold["rule"]
    assert any("approves for Project Atlas (buy-side)" in r for r in hold["release"])
    assert approved["outcome"] == "approved" and approved["stage"] == "human_review"
    state = runs["payment"]["state"]
    assert state["status"] == RunStatus.COMPLETED
    assert state["intents"][0]["refused_reviews"] == [
        f"{report.associate_id}: no_approval_authority"
    ]
    intent_id = state["intents"][0]["intent"]["id"]
    assert _count(stack.store, PaymentRow, intent_id=intent_id) == 1
    assert _count(stack.store, PaymentRow, org_id=org) == 2  # and the checklist's storage

    # the checklist as a work graph: the payment's branch held while Birch's ran; the
    # close joined both once Ada approved; West's output never reached East's agent
    held = {s["id"]: s["status"] for s in report.graph_held["state"]["steps"]}
    assert held == {
        "index": "done",
        "storage": "held",
        "access": "waiting",
        "birch": "done",
        "close": "waiting",
    }
    graph = report.graph["state"]
    assert graph["status"] == "completed"
    assert {s["status"] for s in graph["steps"]} == {"done"}

    # the deliberation: three personas, the skeptic's citation across the wall refused and
    # re-entered, the synthesis's email brokered and sent
    deliberation = report.deliberation["state"]
    assert [(p["name"], p["rounds"], p["outcome"]) for p in deliberation["personas"]] == [
        ("analyst", 1, "emitted"),
        ("skeptic", 2, "emitted"),
        ("counsel", 1, "emitted"),
    ]
    (refusal,) = [e for e in deliberation["provenance"] if e["gate"] == "failed"]
    assert refusal["cites"] == ["birch-cim"] and refusal["failures"][0]["check"] == "citation"
    (synthesised,) = deliberation["synthesis"]["intents"]
    assert synthesised["decision"]["outcome"] == "allow" and synthesised["dispatch"]

    # the chain holds every decision, the refusal and both dispatches, and verifies
    audit = report.audit
    assert audit["verification"]["ok"] is True
    kinds = [(e["decision"], e["rule"]) for e in audit["entries"]]
    assert ("review_refused", "no_approval_authority") in kinds
    # kickoff, payment, west; the graph's five steps; the deliberation's synthesis
    assert sum(1 for d, _ in kinds if d == "dispatched") == 3 + 5 + 1
    assert ("reject", "malformed_json") in kinds
    # an outside invoice's new bank details: held, naming the invoice, left for Ada
    (redirected,) = report.runs["redirect"]["state"]["intents"]
    assert redirected["decision"]["outcome"] == "hold"
    # (the East cap is spent by the approved payment: the cap holds it too)
    assert "new_destination" in redirected["decision"]["rule"].split("+")
    assert (
        f"first appears in the inbound invoice {REDIRECT_REF}" in (redirected["decision"]["reason"])
    )
    assert redirected["decision"]["evidence"] == [f"record:{REDIRECT_REF}"]

    # the demo leaves the owner a held payment (with its reason) and an extracted
    # commitment to decide in the console, and says where
    left = waiting_lines(report, "http://console/")
    held = [line for line in left if line.startswith("A payment of $380.00 to Keystone")]
    assert len(held) == 1 and "not established for Project Atlas (buy-side)" in held[0]
    assert held[0].endswith(f"http://console/intents/{redirected['intent']['id']}")
    assert any(
        line.startswith("Confirm the commitment:") and "extracted from" in line for line in left
    )

    # every run is findable by its search attributes
    query = f"VerleticaOrg = '{org}' AND WorkflowType = 'AgentRunWorkflow'"
    found = [w async for w in temporal_env.client.list_workflows(query)]
    # and the redirected payment, the graph's steps, the synthesis
    assert len(found) == len(TASKS) + 1 + 5 + 1


async def test_showcase_keeps_west_memory_behind_the_wall(stack: Stack) -> None:
    """The West note reaches the West planner masked, nobody on East, and the invoice that
    reads as instructions is refused; every read is in the log."""
    report = await play(stack.http, sign_in)
    org, memory = report.org_id, report.memory
    agents = {h: i for i, h in report.handles.items()}
    as_founder = bearer(report.founder_subject)
    contact = ("dana.whitfield@birch-holdings.example", "+1 415 555 0134")

    # stored on west, its contact details tagged
    assert {"email", "phone"} <= set(memory.tagged)

    # an East human's similarity query: a withheld count, nothing of the note
    east = memory.east_query
    assert east["withheld"] >= 1
    assert WEST_NOTE_REF not in {h["view"]["ref"] for h in east["hits"]}
    assert not any(c in str(east) for c in contact)

    # the planners' runs: East recalled nothing of it, West got it
    assert WEST_NOTE_REF not in report.runs["cross"]["state"]["released"]
    west_run = report.runs["west"]["state"]["released"]
    assert WEST_NOTE_REF in west_run and "atlas-kickoff" not in west_run

    # the read log holds those reads, as the founder sees it
    def recall_of(step: str) -> dict[str, Any]:
        handle, task = TASKS[step]
        (row,) = (
            r
            for r in memory.reads
            if (r["path"], r["asker_id"], r["query"]) == ("recall", agents[handle], task)
        )
        return row

    east_read, west_read = recall_of("cross"), recall_of("west")
    assert WEST_NOTE_REF not in east_read["released"] and east_read["withheld"] >= 1
    assert WEST_NOTE_REF in west_read["released"] and west_read["outcome"] == "released"
    (ben_read,) = (r for r in memory.reads if r["asker_id"] == report.associate_id)
    assert ben_read["path"] == "similarity" and WEST_NOTE_REF not in ben_read["released"]
    assert ben_read["withheld"] == east["withheld"]

    # what an agent is given: the West planner the note with its contact masked, the
    # East planner nothing of it (through the gate the runs use, and by similarity)
    now = utc_now()
    recalled = stack.services.memory.recall(
        asker_principal_id=agents["vega"], org_id=org, query=TASKS["west"][1], now=now
    )
    (item,) = (text for text in recalled.released if text.startswith(f"[{WEST_NOTE_REF}]"))
    assert "[email]" in item and "[phone]" in item
    assert not any(c in item for c in contact)
    west = stack.services.memory.query(
        asker_principal_id=agents["vega"], org_id=org, text=WEST_NOTE, now=now, k=1
    )
    (hit,) = west.hits
    assert (hit.view.ref, hit.view.release) == (WEST_NOTE_REF, Release.REDACTED)
    assert {"email", "phone"} <= set(hit.view.masked)
    assert hit.view.text is not None and not any(c in hit.view.text for c in contact)
    blind = stack.services.memory.query(
        asker_principal_id=agents["orion"], org_id=org, text=WEST_NOTE, now=now, k=1
    )
    assert blind.withheld >= 1
    assert all(
        h.view.ref != WEST_NOTE_REF and WEST_NOTE not in (h.view.text or "") for h in blind.hits
    )

    # the invoice that reads as instructions: refused with its reasons, never stored
    assert memory.refusal["status"] == 422
    assert memory.refusal["detail"].startswith("the text reads as instructions: ")
    assert memory.refusal["detail"].removeprefix("the text reads as instructions: ").strip()
    invoice = await stack.http.get(
        f"/v1/orgs/{org}/memory/records/{INVOICE_REF}", headers=as_founder
    )
    assert invoice.status_code == 404
    refusals = [e for e in report.audit["entries"] if e["decision"] == "refused"]
    assert [e["payload"]["ref"] for e in refusals] == [INVOICE_REF]
    assert INVOICE not in str(report.audit)


async def test_a_signal_sent_straight_to_temporal_is_refused(
    stack: Stack, temporal_env: WorkflowEnvironment
) -> None:
    """An approval typed in the Temporal UI or sent with its CLI names an approver but
    proves nothing: recorded and refused, whoever it names. A decision through the API is
    signed, and still climbs the ladder: Ben's is refused for want of authority."""
    report = await play(stack.http, sign_in)
    org, founder = report.org_id, report.founder_id
    agents = {h: i for i, h in report.handles.items()}
    started = await runs.start_run(
        stack.services,
        org,
        founder,
        runs.StartRun(agents["ledger"], TASKS["payment"][1], client_key="again"),
    )
    handle = temporal_env.client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
    state = await until(
        lambda: handle.query(AgentRunWorkflow.state),
        accept=lambda s: s.status is RunStatus.NEEDS_HUMAN,
        what="the payment is held",
    )
    (view,) = state.intents
    intent = view.intent
    attempts = [
        ApprovalSignal(
            intent_id=intent.id, approver_id=agents["vega"], intent_digest=intent.digest
        ),
        ApprovalSignal(
            intent_id=intent.id, approver_id=report.associate_id, intent_digest=intent.digest
        ),
        ApprovalSignal(intent_id=intent.id, approver_id=founder, intent_digest="0" * 64),
        ApprovalSignal(intent_id=intent.id, approver_id=founder, intent_digest=intent.digest),
    ]
    for signal in attempts:
        await handle.signal("approve", signal)
    associate = report.associate_id
    # (the invoice was paid in the showcase: approving it again is said on purpose)
    await runs.decide_hold(
        stack.services, intent.id, associate, associate, approve=True, again=True
    )
    await runs.decide_hold(stack.services, intent.id, founder, founder, approve=False, reason="no")
    final = await handle.result()
    (view,) = final.intents
    rules = ["missing_proof"] * 4 + ["no_approval_authority"]
    assert [r.split(": ")[1] for r in view.refused_reviews] == rules
    assert [r.split(": ")[1].split(" — ")[0] for r in final.refused_signals] == rules
    assert final.refused_signals[3].startswith(f"approve by {founder}: missing_proof — ")
    assert view.decision.outcome == "denied"
    assert view.dispatch is None
    assert _count(stack.store, PaymentRow, intent_id=intent.id) == 0
    refused = _count(
        stack.store, AuditEntryRow, org_id=org, intent_id=intent.id, decision="review_refused"
    )
    assert refused == 5
    assert stack.store.audit.verify(org).ok


async def test_run_start_is_idempotent_by_client_key(stack: Stack) -> None:
    report = await play(stack.http, sign_in)
    agents = {h: i for i, h in report.handles.items()}
    body = {"agent_id": agents["orion"], "task": TASKS["kickoff"][1], "client_key": "demo-kickoff"}
    again = await stack.http.post(
        f"/v1/orgs/{report.org_id}/runs",
        json=body,
        headers=bearer(report.founder_subject),
    )
    assert again.status_code == 201
    assert again.json()["created"] is False
    assert again.json()["run_id"] == report.runs["kickoff"]["run_id"]
