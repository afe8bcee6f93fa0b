"""The learning pass's store, on SQLite and PostgreSQL: the 7-day window of work events
read from the audit chain and the runs' intents, and the pass's one write (candidate
experiences, every acceptance and refusal in the chain, once)."""

from __future__ import annotations

import uuid
from datetime import timedelta

from fastapi.testclient import TestClient

from adapters.store.learning import SqlLearning, event_id
from adapters.store.store import Store
from domain.governance.intents import Intent, Outcome, Stage
from domain.learning.records import Experience, InsightStatus, LearningPass, Refused, WorkEvent
from domain.learning.validator import LEARNING
from tests.support import Firm, payment_intent, utc_now
from usecases import governance
from worker.bootstrap import build_connectors


def _wall_crossing(firm: Firm, run_id: str) -> Intent:
    """Vega (west) pays on east: the broker rejects it."""
    return payment_intent(firm.org, firm.agents["vega"], 1_000, run_id=run_id)


def _window(store: Store, firm: Firm, limit: int = 100) -> list[WorkEvent]:
    now = utc_now()
    return SqlLearning(store.db, store.keys).window(
        firm.org, now - timedelta(days=7), now + timedelta(seconds=1), limit
    )


def test_the_window_holds_the_runs_decisions_dispatches_and_refusals(
    firm: Firm, store: Store
) -> None:
    ledger = firm.agents["ledger"]
    old = payment_intent(firm.org, ledger, 1_000, run_id="run-old")
    governance.decide(store.governance, old, utc_now() - timedelta(days=8))  # out of the window
    paid = payment_intent(firm.org, ledger, 1_000, run_id="run-a")
    allowed = governance.decide(store.governance, paid, utc_now())
    assert allowed.outcome is Outcome.ALLOW
    governance.dispatch(
        store.governance, build_connectors(store, utc_now), firm.org, allowed, utc_now(), paid
    )
    held = payment_intent(firm.org, ledger, 200_000, run_id="run-b")
    assert governance.decide(store.governance, held, utc_now()).outcome is Outcome.HOLD
    crossing = _wall_crossing(firm, "run-b")
    assert governance.decide(store.governance, crossing, utc_now()).outcome is Outcome.REJECT
    governance.record_run_rejection(
        store.governance,
        governance.RunRef(firm.org, "run-c", ledger),
        stage=Stage.PARSER,
        rule="malformed_json",
        payload={},
        now=utc_now(),
    )

    events = _window(store, firm)
    entries = {e.seq: e for e in store.audit.entries(firm.org)}
    assert [(e.episode_id, e.kind) for e in events] == [
        ("run-a", "decision"),
        ("run-a", "dispatch"),
        ("run-b", "decision"),
        ("run-b", "decision"),
        ("run-c", "run_refused"),
    ]
    # Each event is its audit entry, by sequence: stable across passes.
    for event in events:
        entry = entries[int(event.id[1:])]
        assert event.id == event_id(entry.seq) and entry.stage != "configuration"
    assert events[0].principal_id == ledger and events[0].summary.startswith("payments.pay: allow")
    assert events[3].principal_id == firm.agents["vega"] and "reject" in events[3].summary
    assert "old" not in {e.episode_id for e in events}
    # The most recent ``limit``, oldest first.
    assert [e.id for e in _window(store, firm, limit=2)] == [e.id for e in events[-2:]]


def _pass(firm: Firm, events: list[WorkEvent]) -> LearningPass:
    now = utc_now()
    pass_id = str(uuid.uuid4())
    return LearningPass(
        id=pass_id,
        org_id=firm.org,
        workflow_id="learning-test",
        window_from=now - timedelta(days=7),
        window_to=now,
        events=len(events),
        accepted=(
            Experience(
                id=str(uuid.uuid4()),
                org_id=firm.org,
                lesson="Payments over the threshold wait for a human.",
                cites=(events[0].id, events[2].id),
                episodes=(events[0].episode_id, events[2].episode_id),
                general=True,
                pass_id=pass_id,
                created_at=now,
            ),
        ),
        refused=(
            Refused(rule="changes_policy", reason="it would change policy", index=1),
            Refused(rule="too_many_insights", reason="7 insights"),
        ),
        provider="scripted",
        model="script",
        reply_digest="d" * 64,
    )


def test_a_pass_is_recorded_once_as_candidates_and_chain_entries(firm: Firm, store: Store) -> None:
    ledger = firm.agents["ledger"]
    for run in ("run-a", "run-b"):
        governance.decide(
            store.governance, payment_intent(firm.org, ledger, 1_000, run_id=run), utc_now()
        )
        governance.decide(
            store.governance, payment_intent(firm.org, ledger, 2_000, run_id=run), utc_now()
        )
    learning = SqlLearning(store.db, store.keys)
    events = _window(store, firm)
    learned = _pass(firm, events)
    head = store.audit.head(firm.org)
    assert head is not None

    learning.record(learned)
    learning.record(learned)  # a retried recording writes nothing twice

    (kept,) = learning.experiences(firm.org)
    assert kept == learned.accepted[0] and kept.status is InsightStatus.CANDIDATE
    added = store.audit.entries(firm.org, after_seq=head.seq)
    assert [(e.stage, e.decision, e.rule) for e in added] == [
        (LEARNING, "candidate", "insight_accepted"),
        (LEARNING, "refused", "changes_policy"),
        (LEARNING, "refused", "too_many_insights"),
    ]
    assert added[0].payload["experience_id"] == kept.id
    assert added[0].payload["cites"] == list(kept.cites)
    assert all(e.payload["pass_id"] == learned.id for e in added)
    assert store.audit.verify(firm.org).ok
    # The learning pass's own entries are not work events of the next window.
    assert {e.id for e in _window(store, firm)} == {e.id for e in events}


def test_the_routes_without_temporal(firm: Firm, store: Store, api: TestClient) -> None:
    founder = {"X-Verletica-Principal": firm.founder}
    associate = {"X-Verletica-Principal": firm.associate}
    answer = api.post(f"/v1/orgs/{firm.org}/learning", headers=founder)
    assert answer.status_code == 503, answer.text
    assert api.post(f"/v1/orgs/{firm.org}/learning", headers=associate).status_code == 403
    assert api.get(f"/v1/orgs/{firm.org}/experiences", headers=founder).json() == []
    ledger = firm.agents["ledger"]
    for run in ("run-a", "run-b"):
        governance.decide(
            store.governance, payment_intent(firm.org, ledger, 1_000, run_id=run), utc_now()
        )
        governance.decide(
            store.governance, payment_intent(firm.org, ledger, 2_000, run_id=run), utc_now()
        )
    learned = _pass(firm, _window(store, firm))
    SqlLearning(store.db, store.keys).record(learned)
    listed = api.get(f"/v1/orgs/{firm.org}/experiences", headers=associate)
    assert [Experience.model_validate(x) for x in listed.json()] == list(learned.accepted)
    outsider = {"X-Verletica-Principal": "nobody"}
    assert api.get(f"/v1/orgs/{firm.org}/experiences", headers=outsider).status_code in (401, 404)
