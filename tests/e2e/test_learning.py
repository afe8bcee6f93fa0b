"""The learning pass on the real dev server (SQLite and PostgreSQL): the 7-day window
goes to the model once, the validator keeps what stands on it as candidate experiences
and puts every refusal, with its rule, in the audit chain. An accepted insight changes no
policy, even one that describes a policy change in benign words. The Schedule exists once
a worker starts; the replay provider answers from the committed fixture."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import SQLModel
from temporalio.client import ScheduleActionStartWorkflow
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer
from typer.testing import CliRunner

from adapters.models.replay import ReplayProvider
from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from adapters.temporal.learning import SCHEDULE_ID, ensure_learning_schedule
from api.cli.main import app as cli_app
from domain.errors import Conflict, Forbidden
from domain.governance.intents import Decision, Intent, Outcome
from domain.learning.records import InsightStatus, LearningPass, WorkEvent
from domain.learning.validator import LEARNING
from domain.organization.contracts import SpendCap
from domain.organization.kinds import IdentityKind
from domain.tools import REGISTRY
from tests.identity import cli_against
from tests.support import (
    TEST_KEYS,
    Firm,
    Wired,
    make_settings,
    payment_intent,
    schedule_on,
    serving,
    utc_now,
    wire,
)
from usecases import commitments, governance, ingress, learning
from worker.bootstrap import build_worker
from workflows.learning import LearningWorkflow

pytestmark = pytest.mark.temporal

BENIGN_POLICY = (
    "A larger spend cap for Atlas and a shorter approval path for repeat Northwind invoices "
    "would fit how the team works."
)
"""Describes a policy change without the words the overreach rules look for: accepted, as
a candidate, and still it changes nothing."""


class Learning:
    """A firm with two runs' worth of decisions in its window, and a worker."""

    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Wired) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)
        ledger = self.firm.agents["ledger"]
        for run in ("run-a", "run-b"):
            for amount in (1_000, 200_000):  # allowed; held for a human
                intent = payment_intent(self.firm.org, ledger, amount, run_id=run)
                governance.decide(store.governance, intent, utc_now())

    def window(self) -> list[WorkEvent]:
        now = utc_now()
        assert self.svc.experiences is not None
        return self.svc.experiences.window(
            self.firm.org, now - timedelta(days=7), now + timedelta(seconds=1), 100
        )

    async def learn(self, reply: str, model: Any = None) -> LearningPass:
        async with build_worker(
            self.temporal.client, self.svc.settings, self.store, model=model or ScriptedProvider()
        ):
            return await learning.run_now(
                self.svc,
                self.firm.org,
                self.firm.founder,
                None if isinstance(model, ReplayProvider) else reply,
            )


@pytest.fixture
async def learn(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Learning]:
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    settings = make_settings(database_url=db_url)
    yield Learning(temporal_env, store, wire(store, temporal_env.client, settings, utc_now))
    store.close()


def _reply(*insights: dict[str, Any]) -> str:
    return json.dumps({"insights": list(insights)})


def _of(events: list[WorkEvent], episode: str) -> list[str]:
    return [e.id for e in events if e.episode_id == episode]


async def test_a_pass_keeps_candidates_and_records_every_refusal(learn: Learning) -> None:
    firm, store = learn.firm, learn.store
    events = learn.window()
    a, b = _of(events, "run-a"), _of(events, "run-b")
    assert len(a) == len(b) == 2
    head = store.audit.head(firm.org)
    assert head is not None
    reply = _reply(
        {"lesson": "Small payments clear; large ones wait for a human.", "cites": [a[0], b[0]],
         "general": True},
        {"lesson": "Large payments wait.", "cites": [a[1]], "general": True},
        {"lesson": "Payments repeat.", "cites": [b[0]]},
        {"lesson": "Grant Ledger write access to the west ledger.", "cites": [b[1]]},
        {"lesson": "Nothing like this happened.", "cites": ["a999999"]},
    )  # fmt: skip

    learned = await learn.learn(reply)

    assert learned.events == len(events) and learned.error is None
    assert [x.lesson for x in learned.accepted] == [
        "Small payments clear; large ones wait for a human."
    ]
    (kept,) = learned.accepted
    assert kept.status is InsightStatus.CANDIDATE and kept.episodes == ("run-a", "run-b")
    assert [(r.index, r.rule) for r in learned.refused] == [
        (1, "single_episode"),
        (2, "event_cited_twice"),
        (3, "grants_access"),
        (4, "unknown_event"),
    ]
    assert learning.experiences(learn.svc, firm.org, firm.founder) == [kept]
    added = store.audit.entries(firm.org, after_seq=head.seq)
    assert [(e.stage, e.decision, e.rule) for e in added] == [
        (LEARNING, "candidate", "insight_accepted"),
        (LEARNING, "refused", "single_episode"),
        (LEARNING, "refused", "event_cited_twice"),
        (LEARNING, "refused", "grants_access"),
        (LEARNING, "refused", "unknown_event"),
    ]
    assert all(e.payload["requested_by"] == firm.founder for e in added)
    assert store.audit.verify(firm.org).ok
    # The next pass sees the candidate among the earlier experiences.
    again = await learn.learn(_reply())
    assert (again.prior, again.accepted, again.refused) == (1, (), ())


async def test_only_the_founder_starts_a_pass(learn: Learning) -> None:
    with pytest.raises(Forbidden):
        await learning.run_now(learn.svc, learn.firm.org, learn.firm.associate, _reply())
    # Any member reads the experiences.
    assert learning.experiences(learn.svc, learn.firm.org, learn.firm.associate) == []


def _rows(store: Store) -> dict[str, dict[str, str]]:
    """Every row of every table, by table and primary key, as canonical JSON."""
    tables: dict[str, dict[str, str]] = {}
    with store.db.read() as s:
        for table in SQLModel.metadata.sorted_tables:
            keys = [c.name for c in table.primary_key.columns]
            rows: dict[str, str] = {}
            for row in s.execute(select(table)).mappings():
                key = json.dumps([row[k] for k in keys], default=str)
                rows[key] = json.dumps(dict(row), default=str, sort_keys=True)
            tables[table.name] = rows
    return tables


def _fixed_intents(learn: Learning) -> list[Intent]:
    """The same three intents each time (fresh ids and invoices): one allowed, one held
    for a human (over the approval threshold), one refused at the wall."""
    firm, run = learn.firm, f"run-{uuid.uuid4().hex[:6]}"
    return [
        payment_intent(firm.org, firm.agents["ledger"], 1_000, run_id=run),
        payment_intent(firm.org, firm.agents["ledger"], 200_000, run_id=run),
        payment_intent(firm.org, firm.agents["vega"], 1_000, run_id=run),
    ]


def _decided(learn: Learning) -> list[tuple[str, str, str, str]]:
    decisions: list[Decision] = [
        governance.decide(learn.store.governance, i, utc_now()) for i in _fixed_intents(learn)
    ]
    return [(d.outcome, d.stage, d.rule, d.reason) for d in decisions]


async def test_an_accepted_insight_changes_no_policy(learn: Learning) -> None:
    """Every policy table (charters, staffing, barriers, commitments, identities,
    principals…) and every other row but the pass's own are unchanged, the tools'
    approval thresholds too, and the broker decides a fixed set of intents the same."""
    svc, firm, store = learn.svc, learn.firm, learn.store
    cap = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Atlas cap", SpendCap(limit_cents=500_000), "sow.pdf", projects=("east",)
        ),
    )
    commitments.confirm(svc, cap.id, firm.founder)
    ingress.link_identity(
        svc, firm.org, firm.founder, firm.associate, IdentityKind.OIDC, f"sub-{uuid.uuid4()}"
    )
    events = learn.window()
    decided_before = _decided(learn)
    assert [d[0] for d in decided_before] == [Outcome.ALLOW, Outcome.HOLD, Outcome.REJECT]
    tools_before = {name: spec.model_dump(mode="json") for name, spec in REGISTRY.items()}
    before = _rows(store)

    a, b = _of(events, "run-a"), _of(events, "run-b")
    learned = await learn.learn(
        _reply({"lesson": BENIGN_POLICY, "cites": [a[0], b[0]], "general": True})
    )

    assert [x.lesson for x in learned.accepted] == [BENIGN_POLICY] and learned.refused == ()
    after = _rows(store)
    changed = {
        name: {
            k
            for k in set(before[name]) | set(after[name])
            if before[name].get(k) != after[name].get(k)
        }
        for name in after
    }
    changed = {name: keys for name, keys in changed.items() if keys}
    assert set(changed) == {"experiences", "audit_entries", "audit_heads"}, changed
    # Only added rows, never an edited one (the chain's head moves, as on every append).
    assert all(k not in before[n] for n in ("experiences", "audit_entries") for k in changed[n])
    for key in changed["audit_entries"]:
        assert json.loads(after["audit_entries"][key])["stage"] == LEARNING
    for policy in ("charters", "staffing", "barriers", "commitments", "identities", "principals"):
        assert before[policy] == after[policy] and before[policy], policy
    assert {name: spec.model_dump(mode="json") for name, spec in REGISTRY.items()} == tools_before
    assert _decided(learn) == decided_before
    assert store.audit.verify(firm.org).ok

    # Promoted by the founder (not by Ben, not twice), the lesson is vouched for, and
    # still no policy: the same tables and decisions as before.
    (kept,) = learned.accepted
    with pytest.raises(Forbidden):
        learning.review(svc, kept.id, firm.associate, promote=True, reason="I agree")
    promoted = learning.review(
        svc, kept.id, firm.founder, promote=True, reason="  it matches our practice "
    )
    assert (promoted.status, promoted.reviewed_by, promoted.review_reason) == (
        InsightStatus.PROMOTED,
        firm.founder,
        "it matches our practice",
    )
    with pytest.raises(Conflict):
        learning.review(svc, kept.id, firm.founder, promote=False, reason="changed my mind")
    promoted_rows = _rows(store)
    for policy in ("charters", "staffing", "barriers", "commitments", "identities", "principals"):
        assert before[policy] == promoted_rows[policy], policy
    assert _decided(learn) == decided_before
    entries = [e for e in store.audit.entries(firm.org) if e.rule == "experience_promoted"]
    assert [e.payload["experience_id"] for e in entries] == [kept.id]
    assert store.audit.verify(firm.org).ok


async def test_a_dismissed_lesson_is_not_shown_to_later_passes(learn: Learning) -> None:
    events = learn.window()
    a, b = _of(events, "run-a"), _of(events, "run-b")
    lesson = "Kickoff mails went out after the payment was held."
    first = await learn.learn(_reply({"lesson": lesson, "cites": [a[0], b[0]], "general": True}))
    (kept,) = first.accepted
    learning.review(learn.svc, kept.id, learn.firm.founder, promote=False, reason="not a pattern")
    again = await learn.learn(_reply())
    assert again.prior == 0


async def test_the_replay_provider_answers_from_the_committed_fixture(learn: Learning) -> None:
    """The fixture's key (agent ``learning``, task ``Learning pass``) is the same for every
    window; its insights cite the organization's first entries, which are configuration,
    never work events: both are refused, deterministically, on the record."""
    learned = await learn.learn("", ReplayProvider())
    assert (learned.provider, learned.model) == ("replay", "authored")
    assert learned.accepted == ()
    assert [(r.index, r.rule) for r in learned.refused] == [
        (0, "unknown_event"),
        (1, "no_evidence"),
    ]


async def test_the_schedule_exists_once_a_worker_starts(
    temporal_env: WorkflowEnvironment, sqlite_url: str
) -> None:
    """A worker started as ``verletica worker`` does creates the learning Schedule at the
    configured interval; creating it again updates it (every worker calls it)."""
    settings = make_settings(
        database_url=sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        learning_seconds=7200,
    )
    handle = temporal_env.client.get_schedule_handle(SCHEDULE_ID)
    async with serving(settings, temporal_env.client):
        described = await schedule_on(handle, settings.task_queue)
        action = described.schedule.action
        assert isinstance(action, ScheduleActionStartWorkflow)
        assert (action.workflow, action.task_queue) == ("LearningWorkflow", settings.task_queue)
        assert [i.every for i in described.schedule.spec.intervals] == [timedelta(seconds=7200)]
        await ensure_learning_schedule(
            temporal_env.client, settings.task_queue, timedelta(seconds=600)
        )
        again = await handle.describe()
        assert [i.every for i in again.schedule.spec.intervals] == [timedelta(seconds=600)]


async def test_the_command_line_runs_a_pass_and_lists_the_experiences(
    learn: Learning, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    svc, firm = learn.svc, learn.firm
    cli_against(monkeypatch, tmp_path, svc, learn.temporal.client, db_url, firm.founder)
    async with build_worker(
        learn.temporal.client, svc.settings, learn.store, model=ReplayProvider()
    ):
        ran = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["learn", "run", "--org", firm.org]
        )
    assert ran.exit_code == 0, ran.output
    assert "unknown_event" in ran.output and "no_evidence" in ran.output
    listed = await asyncio.to_thread(
        CliRunner().invoke, cli_app, ["learn", "experiences", "--org", firm.org]
    )
    assert listed.exit_code == 0, listed.output
    assert "experiences" in listed.output


async def test_a_passes_history_replays(learn: Learning) -> None:
    """The recorded history of a pass replays against the workflow code (no
    non-determinism)."""
    learned = await learn.learn(_reply())
    history = await learn.temporal.client.get_workflow_handle(learned.workflow_id).fetch_history()
    await Replayer(
        workflows=[LearningWorkflow], data_converter=pydantic_data_converter
    ).replay_workflow(history)
