"""The benchmark's table: each figure over several runs, its median, spread and verdict."""

from __future__ import annotations

from rich.console import Console

from bench.figures import Figure, print_figures, repeated


def _figure(value: float, baseline: float, what: str = "throughput") -> Figure:
    return Figure(
        what, "SQLite", value, baseline, "runs/s", "bare", "≥ 0.8", value / baseline >= 0.8
    )


def test_runs_of_one_figure_are_grouped_in_first_seen_order() -> None:
    rounds = [
        [_figure(8, 10), _figure(1, 1, "latency")],
        [_figure(7, 10, "latency"), _figure(9, 10)],
    ]
    got = repeated(rounds)
    assert [r.first.what for r in got] == ["throughput", "latency"]
    assert [f.value for f in got[0].runs] == [8, 9]


def test_a_target_holds_when_most_runs_meet_it() -> None:
    assert repeated([[_figure(8, 10)], [_figure(9, 10)], [_figure(5, 10)]])[0].holds
    missed = repeated([[_figure(8, 10)], [_figure(6, 10)], [_figure(5, 10)]])[0]
    assert not missed.holds and missed.met == 1


def test_the_table_prints_the_median_and_the_spread() -> None:
    console = Console(record=True, width=200)
    rounds = [[_figure(6, 10)], [_figure(8, 10)], [_figure(9, 12)]]
    print_figures(repeated(rounds), "t", console)
    text = console.export_text()
    assert "8 runs/s [6–9]" in text
    assert "0.75 [0.6–0.8]" in text
    assert "NO (1/3)" in text


def test_a_figure_without_a_target_is_neither_met_nor_missed() -> None:
    console = Console(record=True, width=200)
    context = Figure("cpu", "SQLite", 2, 1, "ms", "bare", "(where the time goes)", True)
    print_figures(repeated([[context]]), "t", console)
    text = console.export_text()
    assert "yes" not in text and "—" in text
