"""Group commit: concurrent decisions share transactions, and each caller gets its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from activities.governance_batching import DecisionBatcher
from domain.governance.intents import Decision, Intent, Outcome, Stage

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def intent(i: int, org: str = "o") -> Intent:
    return Intent(
        id=f"i{i}",
        org_id=org,
        run_id="r",
        principal_id="a",
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="j",
        payload={"to": f"c{i}@x.example", "subject": "s", "body": "b"},
    )


class Recorder:
    """A decide_many that records its batches and takes a little while, as a commit does."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.fail_on = fail_on
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()

    def __call__(self, intents: Sequence[Intent], now: datetime) -> list[Decision]:
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            self.batches.append([i.id for i in intents])
            threading.Event().wait(0.01)
            if self.fail_on is not None and any(i.id == self.fail_on for i in intents):
                raise RuntimeError("the database went away")
            return [
                Decision(
                    intent_id=i.id,
                    outcome=Outcome.ALLOW,
                    stage=Stage.AUDIT,
                    rule="all_stages_passed",
                    reason=f"for {i.id}",
                    decided_at=now,
                )
                for i in intents
            ]
        finally:
            with self._lock:
                self.in_flight -= 1


async def test_concurrent_decisions_share_batches_and_each_gets_its_own() -> None:
    recorder = Recorder()
    batcher = DecisionBatcher(recorder, lambda: NOW)
    decisions = await asyncio.gather(*(batcher.decide(intent(i)) for i in range(100)))
    assert [d.intent_id for d in decisions] == [f"i{i}" for i in range(100)]
    assert [d.reason for d in decisions] == [f"for i{i}" for i in range(100)]
    assert sorted(i for batch in recorder.batches for i in batch) == sorted(
        f"i{i}" for i in range(100)
    )
    assert len(recorder.batches) < 10
    assert recorder.most_in_flight == 1  # one transaction at a time per organization


async def test_a_lone_decision_goes_at_once_and_later_ones_wait_for_the_next_batch() -> None:
    recorder = Recorder()
    batcher = DecisionBatcher(recorder, lambda: NOW)
    assert (await batcher.decide(intent(0))).intent_id == "i0"
    first = asyncio.ensure_future(batcher.decide(intent(1)))
    await asyncio.sleep(0.002)  # the batch of i1 is committing
    later = await asyncio.gather(*(batcher.decide(intent(i)) for i in range(2, 6)))
    await first
    assert [d.intent_id for d in later] == ["i2", "i3", "i4", "i5"]
    assert recorder.batches == [["i0"], ["i1"], ["i2", "i3", "i4", "i5"]]


async def test_a_batch_holds_at_most_max_batch_in_arrival_order() -> None:
    recorder = Recorder()
    batcher = DecisionBatcher(recorder, lambda: NOW, max_batch=7)
    await asyncio.gather(*(batcher.decide(intent(i)) for i in range(40)))
    assert all(len(b) <= 7 for b in recorder.batches)
    assert [i for batch in recorder.batches for i in batch] == [f"i{i}" for i in range(40)]


async def test_organizations_are_batched_apart() -> None:
    recorder = Recorder()
    batcher = DecisionBatcher(recorder, lambda: NOW)
    await asyncio.gather(*(batcher.decide(intent(i, org=f"org{i % 2}")) for i in range(20)))
    for batch in recorder.batches:
        assert len({int(i[1:]) % 2 for i in batch}) == 1, batch


async def test_a_failed_batch_fails_its_callers_only() -> None:
    recorder = Recorder(fail_on="i3")
    batcher = DecisionBatcher(recorder, lambda: NOW, max_batch=4)
    results = await asyncio.gather(
        *(batcher.decide(intent(i)) for i in range(12)), return_exceptions=True
    )
    failed = {f"i{n}" for n, r in enumerate(results) if isinstance(r, Exception)}
    doomed = next(b for b in recorder.batches if "i3" in b)
    assert failed == set(doomed)
    assert all(isinstance(r, Decision) for n, r in enumerate(results) if f"i{n}" not in failed)
    # and the batcher goes on afterwards
    assert (await batcher.decide(intent(99))).intent_id == "i99"


async def test_a_caller_that_gives_up_does_not_disturb_the_others() -> None:
    recorder = Recorder()
    batcher = DecisionBatcher(recorder, lambda: NOW)
    first = asyncio.ensure_future(batcher.decide(intent(0)))
    waiting = [asyncio.ensure_future(batcher.decide(intent(i))) for i in range(1, 6)]
    await asyncio.sleep(0)
    waiting[0].cancel()
    await first
    done = await asyncio.gather(*waiting[1:])
    assert [d.intent_id for d in done] == ["i2", "i3", "i4", "i5"]
    with pytest.raises(asyncio.CancelledError):
        await waiting[0]
