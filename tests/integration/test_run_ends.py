"""What the runs list and the agents page read of the record, on SQLite and PostgreSQL:
each run's intents' outcomes and its bad end in one read, and what each agent's allowed
and approved actions moved lately."""

from __future__ import annotations

from datetime import timedelta

from adapters.store.store import Store
from domain.governance.intents import Outcome
from domain.runs.outcome import RunEnd
from tests.support import Firm, payment_intent, utc_now
from usecases import governance


def test_the_record_tells_each_runs_course_and_each_agents_spending(firm: Firm) -> None:
    store = firm.svc.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    ledger = firm.agents["ledger"]
    small = payment_intent(firm.org, ledger, 5_000, run_id="run-small")
    large = payment_intent(firm.org, ledger, 250_000, run_id="run-large")
    assert governance.decide(store.governance, small, utc_now()).outcome is Outcome.ALLOW
    assert governance.decide(store.governance, large, utc_now()).outcome is Outcome.HOLD
    governance.record_run_failure(
        store.governance,
        governance.RunRef(firm.org, "run-broken", ledger),
        rule="run_failed",
        reason="the model was unreachable",
        now=utc_now(),
    )
    ends = store.runs.ends(firm.org, ["run-small", "run-large", "run-broken", "run-quiet"])
    assert ends == {
        "run-small": RunEnd(statuses=("allow",)),
        "run-large": RunEnd(statuses=("hold",)),
        "run-broken": RunEnd(ended_badly="run_failed"),
    }
    assert store.runs.ends("another-org", ["run-broken"]) == {}  # another firm's: nothing
    assert store.runs.ends(firm.org, []) == {}
    # Only what was let through counts, and only since the day asked.
    assert store.runs.spent(firm.org, utc_now() - timedelta(days=30)) == {ledger: 5_000}
    assert store.runs.spent(firm.org, utc_now() + timedelta(minutes=5)) == {}
