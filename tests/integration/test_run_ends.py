"""What the runs list and the agents page read of the record, on SQLite and PostgreSQL:
each run's intents' outcomes and its bad end in one read, and what each agent's allowed
and approved actions moved lately."""

from __future__ import annotations

from datetime import timedelta

from adapters.store.store import Store
from domain.governance.intents import Outcome
from domain.runs.outcome import RunEnd, Spent
from tests.integration.test_wall_readers import _collision_across_the_wall
from tests.support import Firm, payment_intent, utc_now
from usecases import fleet_roster, governance
from usecases.context import Ports


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
    # another firm's: nothing, whatever it holds
    assert store.runs.ends("another-org", ["run-small", "run-large", "run-broken"]) == {}
    assert store.runs.ends(firm.org, []) == {}
    # Only what was let through counts, and only since the day asked.
    assert store.runs.spent(firm.org, utc_now() - timedelta(days=30)) == [
        Spent(agent_id=ledger, reach=("east",), cents=5_000)
    ]
    assert store.runs.spent(firm.org, utc_now() + timedelta(minutes=5)) == []
    assert store.runs.spent("another-org", utc_now() - timedelta(days=30)) == []


def test_what_an_agent_moved_counts_only_where_the_reader_may_read(
    firm: Firm, services: Ports
) -> None:
    """Ledger paid on West, then moved East: an East member's agents page says nothing
    of the West payment (a total is as telling as the payment); the founder's says it."""
    _collision_across_the_wall(firm, services)
    ledger = firm.agents["ledger"]

    def moved(reader: str) -> int:
        (card,) = [c for c in fleet_roster.roster(services, firm.org, reader, []) if c.id == ledger]
        return card.spent.get("USD", 0)

    assert moved(firm.associate) == 0
    assert moved(firm.founder) == 12_000


def test_what_an_agent_moved_is_told_by_currency_never_added_across_them(firm: Firm) -> None:
    store = firm.svc.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    ledger = firm.agents["ledger"]
    dollars = payment_intent(firm.org, ledger, 5_000)
    euros = payment_intent(firm.org, ledger, 3_000)
    euros = euros.model_copy(update={"payload": {**euros.payload, "currency": "EUR"}})
    for intent in (dollars, euros):
        assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.ALLOW
    assert sorted(
        s.currency for s in store.runs.spent(firm.org, utc_now() - timedelta(days=1))
    ) == [
        "EUR",
        "USD",
    ]
    (card,) = [
        c for c in fleet_roster.roster(firm.svc, firm.org, firm.founder, []) if c.id == ledger
    ]
    assert card.spent == {"EUR": 3_000, "USD": 5_000}
