"""The README's old "not detected" row, end to end on the dev server: a database writer
rolls an organization's chain back (the newest entries, every row that names them, and an
earlier head row put back) and leaves the anchor workflow alone. The next verification
finds it, and so does the anchor's next pass, which stops the broker."""

from __future__ import annotations

import dataclasses
import time
import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import delete, insert
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from adapters.store.tables import (
    AuditCheckpointRow,
    AuditEntryRow,
    AuditHeadRow,
    AuditTreeNodeRow,
)
from adapters.temporal.audit_anchor import TemporalAnchor, ensure_anchor
from domain.audit.bundle import verify_bundle
from domain.audit.chain import AuditDraft
from domain.audit.checkpoint import parse_note
from tests.support import TEST_KEYS, Firm, make_settings, until, utc_now, wire
from usecases import audit
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal


async def test_a_rollback_of_the_database_is_found_against_the_anchor(
    temporal_env: WorkflowEnvironment, sqlite_url: str
) -> None:
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=sqlite_url)
    anchor_id = f"anchor-{uuid.uuid4()}"
    svc = dataclasses.replace(
        wire(store, temporal_env.client, settings, utc_now),
        anchor=TemporalAnchor(temporal_env.client, anchor_id),
    )
    firm = Firm(svc)
    anchor = svc.anchor
    assert anchor is not None

    async def anchored_size() -> int:
        note = (await anchor.anchored(firm.org)).note
        return 0 if note is None else parse_note(note).checkpoint().size

    async with build_worker(temporal_env.client, settings, store):
        await ensure_anchor(temporal_env.client, settings.task_queue, timedelta(hours=1), anchor_id)
        first = await until(
            anchored_size, accept=lambda n: n > 0, timeout=60, what="the first anchored checkpoint"
        )
        with store.db.read() as s:
            head = s.get(AuditHeadRow, firm.org)
            assert head is not None
            earlier: dict[str, Any] = head.model_dump()
        assert earlier["seq"] == first
        for i in range(3):  # entries no other row names (the writer removes those too)
            store.audit.append(
                firm.org,
                AuditDraft(
                    event_key=f"late-{i}",
                    actor=firm.founder,
                    decision="recorded",
                    stage="test",
                    rule="later",
                ),
                utc_now(),
            )
        await anchor.nudge()
        grown = await until(
            anchored_size,
            accept=lambda n: n == first + 3,
            timeout=60,
            what="the grown chain anchored",
        )

        anchored = await audit.anchored(svc, firm.org, firm.founder)
        view = audit.audit(svc, firm.org, firm.founder, verify=True, anchored=anchored)
        assert view.verification is not None and view.verification.ok
        assert view.anchored_size == grown == view.head_seq

        # The database writer: delete what is newer than the copied head row, put it back.
        with store.db.transaction() as s:
            s.execute(
                delete(AuditEntryRow).where(
                    AuditEntryRow.org_id == firm.org, AuditEntryRow.seq > first
                )
            )
            s.execute(
                delete(AuditCheckpointRow).where(
                    AuditCheckpointRow.org_id == firm.org, AuditCheckpointRow.size > first
                )
            )
            s.execute(delete(AuditTreeNodeRow).where(AuditTreeNodeRow.org_id == firm.org))
            s.execute(delete(AuditHeadRow).where(AuditHeadRow.org_id == firm.org))
            s.execute(insert(AuditHeadRow).values(**earlier))
        alone = audit.audit(svc, firm.org, firm.founder, verify=True)
        assert alone.verification is not None and alone.verification.ok  # a consistent state

        anchored = await audit.anchored(svc, firm.org, firm.founder)
        assert anchored.note is not None
        assert parse_note(anchored.note).checkpoint().size == grown
        view = audit.audit(svc, firm.org, firm.founder, verify=True, anchored=anchored)
        assert view.verification is not None and not view.verification.ok
        assert "rolled back" in (view.verification.problem or "")
        # An export carries the anchored checkpoint: offline, the same is found.
        found = verify_bundle(
            store.audit.export(firm.org, utc_now(), anchored.note), store.keys.log_keys()
        )
        assert not found.ok and "rolled back" in (found.problem or ""), found

        await anchor.nudge()  # the anchor's next pass stops the broker
        reason = await until(
            lambda: audit.broker_status(svc, firm.org, firm.founder),
            accept=lambda r: r is not None,
            timeout=60,
            what="the broker poisoned by the anchor",
        )
        assert "no longer holds what the anchor holds" in (reason or "")
        assert await anchored_size() == grown  # the anchor did not follow the rollback
        await temporal_env.client.get_workflow_handle(anchor_id).terminate("test over")
    store.close()


async def test_the_anchor_passes_on_its_interval_and_a_new_run_keeps_what_it_anchored(
    temporal_env: WorkflowEnvironment, sqlite_url: str
) -> None:
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=sqlite_url)
    anchor_id = f"anchor-{uuid.uuid4()}"
    anchor = TemporalAnchor(temporal_env.client, anchor_id)
    svc = wire(store, temporal_env.client, settings, utc_now)
    firm = Firm(svc)

    async def size() -> int:
        note = (await anchor.anchored(firm.org)).note
        return 0 if note is None else parse_note(note).checkpoint().size

    async with build_worker(temporal_env.client, settings, store):
        await ensure_anchor(
            temporal_env.client, settings.task_queue, timedelta(seconds=1), anchor_id
        )
        first = await until(size, accept=lambda n: n > 0, timeout=60, what="a first pass")
        for i in range(2):  # later passes come by themselves, one a second (no nudge)
            store.audit.append(
                firm.org,
                AuditDraft(
                    event_key=f"tick-{i}",
                    actor=firm.founder,
                    decision="recorded",
                    stage="test",
                    rule="r",
                ),
                utc_now(),
            )
            await until(
                size, accept=lambda n, i=i: n == first + i + 1, timeout=60, what=f"pass {i}"
            )
        handle = temporal_env.client.get_workflow_handle(anchor_id)
        await handle.terminate("an operator's mistake")
        assert await size() == first + 2  # a closed run's state is still read from history
    # As a worker starts: the anchor is ensured before the worker polls (no worker answers
    # a query then), so the state is read from the ended run's history.
    started_at = time.monotonic()
    await ensure_anchor(temporal_env.client, settings.task_queue, timedelta(seconds=1), anchor_id)
    assert time.monotonic() - started_at < 10
    history = await temporal_env.client.get_workflow_handle(anchor_id).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    assert firm.org in started.input.payloads[0].data.decode()  # the new run starts from it
    async with build_worker(temporal_env.client, settings, store):
        assert await size() == first + 2
        await temporal_env.client.get_workflow_handle(anchor_id).terminate("test over")
    store.close()
