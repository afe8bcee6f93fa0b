"""What the runs list and the agents page read of the record, on SQLite and PostgreSQL:
each run's intents' outcomes and its bad end in one read, and what each agent's allowed
and approved actions moved lately."""

from __future__ import annotations

from datetime import timedelta

from adapters.store.store import Store
from domain.governance.intents import Outcome
from domain.runs.outcome import RunEnd, RunOutcome, Spent
from domain.runs.run import RunRecord
from tests.integration.test_wall_readers import _collision_across_the_wall
from tests.support import Firm, payment_intent, utc_now
from usecases import fleet_roster, governance, runs_list
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


async def test_a_filter_by_outcome_finds_a_page_far_down_the_list_newest_first(
    firm: Firm,
) -> None:
    """1,200 runs, one in twenty of the oldest 600 with a payment the broker refused (over
    any budget), the newest of them 600 runs down:
    the filter reads the record 500 runs at a time and still lists each refused run once,
    newest first, at most a page."""
    store = firm.svc.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    ledger = firm.agents["ledger"]
    start = utc_now() - timedelta(days=1)
    refused: list[str] = []
    for i in range(1_200):
        run_id = f"run-{i:04d}"
        firm.svc.runs.create(
            RunRecord(
                id=run_id,
                org_id=firm.org,
                agent_id=ledger,
                task=f"pay invoice {i}",
                workflow_id=f"wf-{run_id}",
                started_by=firm.founder,
                projects=("east",),
                created_at=start + timedelta(seconds=i),
            )
        )
        if i % 20 == 0 and i < 600:
            over = payment_intent(firm.org, ledger, 90_000_000, run_id=run_id)
            assert governance.decide(store.governance, over, utc_now()).outcome is Outcome.REJECT
            refused.append(run_id)
    newest_first = refused[::-1]
    found = await runs_list.listed_runs(
        firm.svc, firm.org, firm.founder, outcomes=(RunOutcome.REFUSED,), limit=20
    )
    assert [line.run.id for line in found] == newest_first[:20]
    every = await runs_list.listed_runs(
        firm.svc, firm.org, firm.founder, outcomes=(RunOutcome.REFUSED,), text="invoice"
    )
    assert [line.run.id for line in every] == newest_first
    assert all(line.outcome is RunOutcome.REFUSED for line in every)
