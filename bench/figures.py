"""One benchmark figure beside the baseline measured in the same run, and its target."""

from __future__ import annotations

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


def _number(value: float, unit: str) -> str:
    if value >= 1000:
        return f"{value:,.0f} {unit}"
    if value >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.3g} {unit}"


def print_figures(figures: list[Figure], title: str, console: Console | None = None) -> None:
    """The figures as one table."""
    table = Table(title=title)
    for name in ("figure", "db", "measured", "baseline (same run)", "ratio", "target", "met"):
        table.add_column(name)
    for f in figures:
        table.add_row(
            f.what,
            f.where,
            _number(f.value, f.unit),
            f"{_number(f.baseline, f.unit)} ({f.baseline_is})",
            f"{f.ratio:.2f}",
            f.target,
            "yes" if f.met else "NO",
        )
    (console or Console()).print(table)
