"""The mail relay against a local SMTP server (aiosmtpd), on the real dev server: an
email delivered, one bounced (550), one refused for now (451) and delivered at the next
pass; each attempt on the chain with its code, never the message; nothing sent twice."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from email import message_from_bytes

import pytest
from sqlalchemy import select
from temporalio.client import ScheduleActionStartWorkflow
from temporalio.testing import WorkflowEnvironment

from adapters.store.relay import SqlOutbox
from adapters.store.store import Store
from adapters.store.tables import EmailRow
from adapters.temporal.relay import SCHEDULE_ID as RELAY_SCHEDULE
from domain.governance.intents import Intent, Outcome
from domain.relay import LEASE, RelayInput, RelayReport
from tests.smtp import Inbox
from tests.support import (
    TEST_KEYS,
    Firm,
    make_settings,
    schedule_on,
    serving,
    utc_now,
    wire,
)
from usecases import governance
from usecases.context import Ports
from worker.bootstrap import build_connectors, build_worker
from workflows.relay import RelayWorkflow

pytestmark = pytest.mark.temporal


class Relay:
    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)


@pytest.fixture
async def relay(
    temporal_env: WorkflowEnvironment, db_url: str, smtp: tuple[Inbox, int]
) -> AsyncIterator[Relay]:
    settings = make_settings(
        database_url=db_url, smtp_host="127.0.0.1", smtp_port=smtp[1], smtp_starttls=False
    )
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    yield Relay(temporal_env, store, wire(store, temporal_env.client, settings, utc_now))
    store.close()


def _send(relay: Relay, to: str) -> str:
    """Orion's email to ``to``, allowed and written to the outbox by its connector."""
    firm, store = relay.firm, relay.store
    intent = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4()}",
        principal_id=firm.agents["orion"],
        tool="email.send",
        projects=("east",),
        payload={"to": to, "subject": "Kickoff", "body": "SECRET-BODY-5521 see you Friday"},
        cost_cents=0,
        justification="the client asked",
    )
    allowed = governance.decide(store.governance, intent, utc_now())
    assert allowed.outcome is Outcome.ALLOW, allowed
    governance.dispatch(
        store.governance, build_connectors(store, utc_now), firm.org, allowed, utc_now(), intent
    )
    return intent.id


def _states(store: Store) -> dict[str, tuple[str, int, int | None]]:
    with store.db.read() as s:
        rows = s.execute(select(EmailRow)).scalars()
        return {r.to: (r.delivery_state, r.attempts, r.last_code) for r in rows}


async def test_delivered_bounced_and_retried_each_on_the_record(
    relay: Relay, smtp: tuple[Inbox, int]
) -> None:
    inbox, _ = smtp
    store, firm = relay.store, relay.firm
    sent = {
        to: _send(relay, to)
        for to in ("ok@atlas.example", "gone@atlas.example", "slow@atlas.example")
    }
    client = relay.temporal.client

    async def one_pass() -> RelayReport:
        return await client.execute_workflow(
            RelayWorkflow.run,
            RelayInput(),
            id=f"relay-{uuid.uuid4()}",
            task_queue=relay.svc.settings.task_queue,  # type: ignore[union-attr]
        )

    async with build_worker(client, relay.svc.settings, store):  # type: ignore[arg-type]
        first = await one_pass()
        assert sorted((a.outcome, a.code) for a in first.attempts) == [
            ("bounced", 550),
            ("delivered", 250),
            ("retried", 451),
        ]
        assert _states(store) == {
            "ok@atlas.example": ("delivered", 1, 250),
            "gone@atlas.example": ("bounced", 1, 550),
            "slow@atlas.example": ("pending", 1, 451),
        }
        second = await one_pass()
        assert [(a.intent_id, a.attempt, a.outcome) for a in second.attempts] == [
            (sent["slow@atlas.example"], 2, "delivered")
        ]
        third = await one_pass()
        assert third.attempts == ()  # delivered and bounced ones are never sent again

    assert sorted(to for to, _ in inbox.received) == ["ok@atlas.example", "slow@atlas.example"]
    ids = {message_from_bytes(raw)["Message-ID"] for _, raw in inbox.received}
    assert all(any(sent[to] in i for i in ids) for to in ("ok@atlas.example", "slow@atlas.example"))
    entries = [e for e in store.audit.entries(firm.org) if e.stage == "relay"]
    assert sorted((e.intent_id == sent["slow@atlas.example"], e.rule) for e in entries) == [
        (False, "email_bounced"),
        (False, "email_delivered"),
        (True, "email_delivered"),
        (True, "email_retried"),
    ]
    assert all(e.actor == "relay:smtp" for e in entries)
    assert "SECRET-BODY-5521" not in str([e.payload for e in entries])
    assert "Kickoff" not in str([e.payload for e in entries])
    assert store.audit.verify(firm.org).ok


async def test_a_worker_with_an_smtp_server_schedules_the_relay(
    temporal_env: WorkflowEnvironment, sqlite_url: str, smtp: tuple[Inbox, int]
) -> None:
    """A worker started as ``verletica worker`` does, with an SMTP host, makes sure the
    relay's Schedule runs RelayWorkflow on its queue at the configured interval."""
    settings = make_settings(
        database_url=sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        smtp_host="127.0.0.1",
        smtp_port=smtp[1],
        relay_seconds=30,
    )
    handle = temporal_env.client.get_schedule_handle(RELAY_SCHEDULE)
    async with serving(settings, temporal_env.client):
        described = await schedule_on(handle, settings.task_queue)
        action = described.schedule.action
        assert isinstance(action, ScheduleActionStartWorkflow)
        assert (action.workflow, action.task_queue) == ("RelayWorkflow", settings.task_queue)
        assert [i.every for i in described.schedule.spec.intervals] == [timedelta(seconds=30)]


def test_a_claimed_email_is_not_claimed_again_until_its_lease_runs_out(relay: Relay) -> None:
    """Two passes never send one email at once; a pass that died lets go after the lease."""
    intent_id = _send(relay, "ok@atlas.example")
    outbox = SqlOutbox(relay.store.db, TEST_KEYS)
    now = utc_now()
    assert [e.intent_id for e in outbox.claim(10, now)] == [intent_id]
    assert outbox.claim(10, now + timedelta(minutes=1)) == []
    assert [e.intent_id for e in outbox.claim(10, now + LEASE + timedelta(seconds=1))] == [
        intent_id
    ]
