"""The needs-you queue against the real dev server (SQLite and PostgreSQL): a held
payment shows in the queue, is approved through the action the queue lists, dispatches
once and leaves the queue; the metrics count the hold as resolved."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from rich.console import Console
from sqlalchemy import func, select
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, PaymentRow
from api.http.app import create_app
from api.local.demo import play
from api.local.demo_report import render
from tests.identity import sign_in, signed_in
from tests.support import (
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    pay_action,
    until,
    utc_now,
    wire,
)
from usecases.context import Ports
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal


class Stack:
    def __init__(self, store: Store, services: Ports, http: httpx.AsyncClient) -> None:
        self.store, self.services, self.http = store, services, http
        self.firm = Firm(services)

    def headers(self, who: str) -> dict[str, str]:
        return signed_in(self.services, who)

    def count(self, table: Any, **where: Any) -> int:
        with self.store.db.transaction() as s:
            query = select(func.count()).select_from(table)
            for name, value in where.items():
                query = query.where(getattr(table, name) == value)
            return int(s.execute(query).scalar_one())


async def _stack(
    temporal_env: WorkflowEnvironment, db_url: str, provider: str
) -> AsyncIterator[Stack]:
    settings = make_settings(database_url=db_url, model_provider=provider)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    services = wire(store, temporal_env.client, settings, utc_now)
    app = create_app(settings, services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://verletica") as http:
            async with build_worker(temporal_env.client, settings, store):
                yield Stack(store, services, http)
    store.close()


@pytest.fixture
async def stack(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Stack]:
    """API in process (ASGI, bearer tokens), a worker on the scripted provider."""
    async for made in _stack(temporal_env, db_url, "scripted"):
        yield made


@pytest.fixture
async def demo_stack(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Stack]:
    """The same on the replay provider, as the demo runs."""
    async for made in _stack(temporal_env, db_url, "replay"):
        yield made


async def test_a_held_payment_is_approved_from_the_queue_dispatches_once_and_leaves_it(
    stack: Stack,
) -> None:
    firm, http = stack.firm, stack.http
    queue_url = f"/v1/orgs/{firm.org}/needs-you"
    r = await http.post(
        f"/v1/orgs/{firm.org}/runs",
        json={
            "agent_id": firm.agents["ledger"],
            "task": "pay the Atlas invoice",
            "scripted_reply": model_reply(pay_action("NY-1", 250_000)),
        },
        headers=stack.headers(firm.founder),
    )
    assert r.status_code == 201, r.text
    run_id = r.json()["run_id"]

    async def held() -> dict[str, Any] | None:
        answer = await http.get(queue_url, headers=stack.headers(firm.founder))
        assert answer.status_code == 200, answer.text
        return next((i for i in answer.json()["items"] if i["kind"] == "held_intent"), None)

    item = await until(held, what="the hold reaches the queue")
    assert item["money_cents"] == 250_000
    assert any(e["label"] == "release" for e in item["evidence"])
    # the East associate sees it too (East is theirs), and may not approve it
    seen = await http.get(queue_url, headers=stack.headers(firm.associate))
    assert item["subject_id"] in {i.get("subject_id") for i in seen.json()["items"]}

    approve = next(a for a in item["actions"] if a["kind"] == "approve")
    r = await http.post(
        approve["path"], json={"reason": "from the queue"}, headers=stack.headers(firm.founder)
    )
    assert r.status_code == 202, r.text

    async def status() -> str:
        view = await http.get(f"/v1/runs/{run_id}", headers=stack.headers(firm.founder))
        return str(view.json()["workflow_status"])

    await until(status, accept=lambda s: s == "completed", what="the run completes")
    intent_id = item["subject_id"]
    assert stack.count(PaymentRow, intent_id=intent_id) == 1
    assert stack.count(AuditEntryRow, intent_id=intent_id, decision="approved") == 1
    assert stack.count(AuditEntryRow, intent_id=intent_id, decision="dispatched") == 1
    assert await held() is None

    m = await http.get(f"/v1/orgs/{firm.org}/metrics", headers=stack.headers(firm.founder))
    resolution = m.json()["hold_resolution"]
    assert resolution["resolved"] == 1 and resolution["by_outcome"] == {"approved": 1}
    assert resolution["open"] == 0 and resolution["median_seconds"] is not None


async def test_the_demo_shows_the_queue_while_the_payment_is_held_and_the_metrics(
    demo_stack: Stack,
) -> None:
    report = await play(demo_stack.http, sign_in)
    kinds = [i["kind"] for i in report.needs_you["items"]]
    assert kinds[0] == "held_intent" and "failed_run" in kinds
    # The payment of step 5 and the checklist graph's storage payment, both approved.
    assert report.metrics["hold_resolution"]["by_outcome"] == {"approved": 2}
    # The demo confirms its one kickoff offer into a playbook.
    assert report.metrics["repeated_process_precision"]["confirmed"] == 1
    console = Console(width=200, record=True)
    render(report, console)
    shown = console.export_text()
    assert "needs you" in shown and "Autonomy" in shown
    assert "work graph Atlas diligence checklist: completed" in shown
    assert "provenance" in shown and "not released to skeptic" in shown
