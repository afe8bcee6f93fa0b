"""One benchmark figure beside the baseline measured in the same run, and its target; and
the same figure over several runs, printed as its median and spread."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True)
class Figure:
    """A measured value, the baseline it is compared with, and the target on the ratio."""

    what: str
    where: str
    """The database (or "—" when none is involved)."""
    value: float
    baseline: float
    unit: str
    baseline_is: str
    """What the baseline is, in a few words."""
    target: str
    """The goal, in words, e.g. "≥ 0.8" (on the ratio) or "≥ 3,000/s"."""
    met: bool

    @property
    def ratio(self) -> float:
        return self.value / self.baseline if self.baseline else float("inf")


@dataclass(frozen=True)
class Repeated:
    """One figure measured in several runs (each beside its own run's baseline)."""

    runs: tuple[Figure, ...]

    @property
    def first(self) -> Figure:
        return self.runs[0]

    @property
    def met(self) -> int:
        """In how many runs the target was met."""
        return sum(f.met for f in self.runs)

    @property
    def holds(self) -> bool:
        """Met in most runs: for a target on one side and an odd number of runs, the
        same as its median meeting it."""
        return self.met * 2 > len(self.runs)


def repeated(rounds: Sequence[Sequence[Figure]]) -> list[Repeated]:
    """The figures of several runs of the same parts, grouped by figure (in the order of
    the first run they appear in)."""
    grouped: dict[tuple[str, str], list[Figure]] = {}
    for figures in rounds:
        for f in figures:
            grouped.setdefault((f.what, f.where), []).append(f)
    return [Repeated(tuple(fs)) for fs in grouped.values()]


def _number(value: float, unit: str) -> str:
    if value >= 1000:
        return f"{value:,.0f} {unit}"
    if value >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.3g} {unit}"


def _spread(values: Sequence[float], unit: str) -> str:
    """The median, and the lowest and highest of several runs in brackets."""
    middle = _number(statistics.median(values), unit).strip()
    if len(values) < 2:
        return middle
    low, high = min(values), max(values)
    return f"{middle} [{_number(low, '').strip()}–{_number(high, '').strip()}]"


def print_figures(figures: Sequence[Repeated], title: str, console: Console | None = None) -> None:
    """The figures as one table: each as the median of its runs with the lowest and the
    highest in brackets, beside the baseline of the same runs."""
    table = Table(title=title)
    for name in ("figure", "db", "measured", "baseline (same run)", "ratio", "target", "met"):
        table.add_column(name)
    for r in figures:
        f = r.first
        table.add_row(
            f.what,
            f.where,
            _spread([x.value for x in r.runs], f.unit),
            f"{_spread([x.baseline for x in r.runs], f.unit)} ({f.baseline_is})",
            _spread([x.ratio for x in r.runs], ""),
            f.target,
            "—"
            if f.target.startswith("(")
            else f"{'yes' if r.holds else 'NO'} ({r.met}/{len(r.runs)})",
        )
    (console or Console()).print(table)
