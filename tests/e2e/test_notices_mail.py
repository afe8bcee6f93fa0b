"""Notices on the real dev server: a worker with an SMTP server makes sure the notices'
Schedule exists on its queue; one NoticesWorkflow pass writes the founder's notice of a
new hold and the mail reaches a local SMTP server (aiosmtpd) with the link to its page;
the next pass sends nothing again."""

from __future__ import annotations

import uuid
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from temporalio.client import ScheduleActionStartWorkflow
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from adapters.temporal.notices import SCHEDULE_ID
from domain.notices import NoticesInput, NoticesReport
from domain.relay import Outcome
from tests.integration.test_needs_you import scene
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
from worker.bootstrap import build_worker
from workflows.notices import NoticesWorkflow

pytestmark = pytest.mark.temporal


async def test_a_pass_tells_the_founder_of_a_new_hold_by_email_once(
    temporal_env: WorkflowEnvironment, db_url: str, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    settings = make_settings(
        database_url=db_url,
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_starttls=False,
        console_url="https://hv.example/console",
        notice_digest_hour=None,
    )
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    try:
        firm = Firm(wire(store, temporal_env.client, settings, utc_now))
        held = scene(firm).held

        async def one_pass() -> NoticesReport:
            return await temporal_env.client.execute_workflow(
                NoticesWorkflow.run,
                NoticesInput(),
                id=f"notices-{uuid.uuid4()}",
                task_queue=settings.task_queue,
            )

        async with build_worker(temporal_env.client, settings, store):
            first = await one_pass()
            again = await one_pass()
        assert [n.split(":")[3] for n in first.written] == ["email"]
        assert [a.outcome for a in first.attempts] == [Outcome.DELIVERED]
        assert again == NoticesReport()
        [(to, raw)] = inbox.received
        mail = message_from_bytes(raw, policy=policy.default)
        assert isinstance(mail, EmailMessage) and to == "ada@hv.example"
        text = mail.get_body().get_content()  # type: ignore[union-attr]
        assert f"https://hv.example/console/intents/{held.id}" in text
        assert store.audit.verify(firm.org).ok
    finally:
        store.close()


async def test_a_worker_with_a_channel_schedules_the_notices(
    temporal_env: WorkflowEnvironment, sqlite_url: str, smtp: tuple[Inbox, int]
) -> None:
    settings = make_settings(
        database_url=sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        smtp_host="127.0.0.1",
        smtp_port=smtp[1],
        notices_seconds=45,
    )
    handle = temporal_env.client.get_schedule_handle(SCHEDULE_ID)
    async with serving(settings, temporal_env.client):
        described = await schedule_on(handle, settings.task_queue)
        action = described.schedule.action
        assert isinstance(action, ScheduleActionStartWorkflow)
        assert (action.workflow, action.task_queue) == ("NoticesWorkflow", settings.task_queue)
        assert [i.every for i in described.schedule.spec.intervals] == [timedelta(seconds=45)]
