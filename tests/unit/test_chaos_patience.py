"""The chaos harness waits as long as runs keep ending (a busy machine is slow, not
failing), and gives up only when they stop: CI on a loaded machine counted slow runs as
lost ones when the harness had a fixed 300 s deadline."""

from __future__ import annotations

from bench.chaos import Patience


def test_runs_that_keep_ending_slowly_are_waited_for_past_any_fixed_deadline() -> None:
    patience = Patience(began=0.0, stall=300.0, most=3600.0)
    for minute in range(1, 31):  # one run ends every minute: 30 minutes in all
        now = minute * 60.0
        assert not patience.exhausted(now - 1), minute
        patience.saw(minute, now)
    assert patience.ended == 30 and not patience.exhausted(1800.0 + 299)


def test_runs_that_stop_ending_are_given_up_on_after_the_stall() -> None:
    patience = Patience(began=0.0, stall=300.0, most=3600.0)
    patience.saw(29, 120.0)
    patience.saw(29, 400.0)  # the same count: no progress
    assert not patience.exhausted(420.0)
    assert patience.exhausted(421.0)


def test_the_outer_bound_holds_whatever_happens() -> None:
    patience = Patience(began=0.0, stall=300.0, most=3600.0)
    for second in range(0, 3700, 100):
        patience.saw(second, float(second))  # always progress
    assert patience.exhausted(3601.0)
