"""The front door's memory in the database (SQLite and PostgreSQL): a nonce passes once,
also when two API processes race with it; budget ceilings hold under concurrency."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from adapters.store.db import make_engine
from adapters.store.ingress import Budgets, Nonces, SqlFrontDoor
from adapters.store.session import Database
from domain.ingress import BudgetCeilings, Refusal, RefusedRequest, Unauthenticated

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def databases(db_url: str) -> Iterator[tuple[Database, Database]]:
    """Two processes' views of one database: separate engines, separate pools."""
    first, second = Database(make_engine(db_url)), Database(make_engine(db_url))
    yield first, second
    first.dispose()
    second.dispose()


def _refusal(call: Callable[[], None]) -> Refusal | None:
    try:
        call()
    except Unauthenticated as exc:
        return exc.reason
    return None


def test_a_nonce_passes_once_until_it_expires(databases: tuple[Database, Database]) -> None:
    nonces = Nonces(databases[0])
    window = NOW + timedelta(minutes=5)
    assert _refusal(lambda: nonces.first_use("slack", "n1", window, NOW)) is None
    again = _refusal(lambda: nonces.first_use("slack", "n1", window, NOW + timedelta(seconds=1)))
    assert again is Refusal.REPLAYED
    assert _refusal(lambda: nonces.first_use("teams", "n1", window, NOW)) is None  # another door
    later = NOW + timedelta(minutes=6)  # past its window: the request would be stale anyway
    assert (
        _refusal(lambda: nonces.first_use("slack", "n1", later + timedelta(minutes=5), later))
        is None
    )
    assert nonces.forget_expired(NOW + timedelta(hours=1)) == 2


def test_two_processes_racing_with_one_nonce_let_exactly_one_through(
    databases: tuple[Database, Database],
) -> None:
    doors = [Nonces(databases[i % 2]) for i in range(8)]
    outcomes: list[Refusal | None] = []
    lock = threading.Lock()
    start = threading.Barrier(len(doors))

    def knock(door: Nonces) -> None:
        start.wait()
        got = _refusal(lambda: door.first_use("api", "jti-42", NOW + timedelta(minutes=5), NOW))
        with lock:
            outcomes.append(got)

    threads = [threading.Thread(target=knock, args=(d,)) for d in doors]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes, key=str) == [None] + [Refusal.REPLAYED] * 7


def _ceilings(per_principal: int, per_org: int, cents: int = 1000) -> BudgetCeilings:
    return BudgetCeilings(
        period="day",
        requests_per_principal=per_principal,
        requests_per_org=per_org,
        model_cents_per_principal=cents,
        model_cents_per_org=cents * 2,
    )


def test_budget_ceilings_hold_and_a_refusal_counts_nothing(
    databases: tuple[Database, Database],
) -> None:
    budgets = Budgets(databases[0])

    def charge(who: str, when: datetime = NOW) -> Refusal | None:
        return _refusal(lambda: budgets.charge("org", who, when, _ceilings(3, 5)))

    assert [charge("ada") for _ in range(4)] == [None, None, None, Refusal.OVER_BUDGET]
    assert [charge("ben") for _ in range(3)] == [None, None, Refusal.OVER_BUDGET]  # org: 5
    assert charge("ada", NOW + timedelta(days=1)) is None  # a new period
    assert _refusal(lambda: budgets.charge("org", "cy", NOW, _ceilings(0, 9))) is (
        Refusal.OVER_BUDGET
    )


def test_model_spend_is_reserved_against_its_own_ceiling(
    databases: tuple[Database, Database],
) -> None:
    budgets = Budgets(databases[0])
    ceilings = _ceilings(100, 100, cents=1000)  # 1000 a principal, 2000 the organization

    def run(who: str, cents: int) -> Refusal | None:
        return _refusal(lambda: budgets.charge("org", who, NOW, ceilings, model_cents=cents))

    assert run("ada", 600) is None
    assert run("ada", 500) is Refusal.OVER_BUDGET  # 1100 > 1000
    assert run("ada", 400) is None  # exactly 1000: the refusal above reserved nothing
    assert run("ben", 1001) is Refusal.OVER_BUDGET  # more than a principal may ever reserve
    assert run("ben", 1000) is None  # the organization's 2000, reached
    assert run("cy", 1) is Refusal.OVER_BUDGET
    assert run("cy", 0) is None  # a request that starts no run still passes


def test_concurrent_charges_never_pass_a_ceiling(databases: tuple[Database, Database]) -> None:
    results: list[Refusal | None] = []
    lock = threading.Lock()
    start = threading.Barrier(20)

    def charge(i: int) -> None:
        budgets = Budgets(databases[i % 2])
        start.wait()
        got = _refusal(lambda: budgets.charge("org", f"p{i % 2}", NOW, _ceilings(6, 9)))
        with lock:
            results.append(got)

    threads = [threading.Thread(target=charge, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert results.count(None) == 9  # the organization's ceiling, never passed
    assert results.count(Refusal.OVER_BUDGET) == 11


def test_refusals_are_logged_newest_first_without_secrets(
    databases: tuple[Database, Database],
) -> None:
    door = SqlFrontDoor(databases[0])
    for i, reason in enumerate((Refusal.BAD_SIGNATURE, Refusal.REPLAYED)):
        door.refused(
            RefusedRequest(
                at=NOW + timedelta(seconds=i),
                channel="api",
                reason=reason,
                detail="x" * 2000,
                path="/v1/whoami",
            )
        )
    newest, oldest = SqlFrontDoor(databases[1]).refusals(limit=2)
    assert (newest.reason, oldest.reason) == (Refusal.REPLAYED, Refusal.BAD_SIGNATURE)
    assert len(newest.detail) == 500


def test_the_front_door_sweeps_expired_nonces_as_it_goes(
    databases: tuple[Database, Database],
) -> None:
    door = SqlFrontDoor(databases[0])
    for i in range(3):
        door.first_use("api", f"old-{i}", NOW + timedelta(minutes=1), NOW)
    door.first_use("api", "fresh", NOW + timedelta(hours=2), NOW + timedelta(minutes=5))
    assert Nonces(databases[1]).forget_expired(NOW) == 0  # nothing swept yet: not due
    door.first_use("api", "later", NOW + timedelta(hours=2), NOW + timedelta(minutes=11))
    assert Nonces(databases[1]).forget_expired(NOW + timedelta(minutes=11)) == 0  # swept
    replayed = _refusal(
        lambda: door.first_use(
            "api", "fresh", NOW + timedelta(hours=2), NOW + timedelta(minutes=12)
        )
    )
    assert replayed is Refusal.REPLAYED  # what has not expired is kept
