"""The command line's start-up: ``verletica --help`` as a subprocess, beside the
interpreter's own start (``python -c pass``) measured in the same run, the two taking
turns so that a machine busier in one moment slows both."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

VERLETICA = Path(sys.executable).parent / "verletica"


@dataclass(frozen=True)
class StartFigures:
    """Wall times in milliseconds: the median of ``runs`` and their spread (max - min)."""

    help_ms: float
    help_spread_ms: float
    bare_ms: float
    bare_spread_ms: float
    runs: int


def _wall_ms(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1e3


def measure(runs: int = 3) -> StartFigures:
    """``runs`` timed starts of each, after one untimed start of each (a cold page cache
    or stale bytecode is not what a second call costs)."""
    help_command = [str(VERLETICA), "--help"]
    bare_command = [sys.executable, "-c", "pass"]
    _wall_ms(help_command)
    _wall_ms(bare_command)
    helps, bares = [], []
    for _ in range(runs):
        bares.append(_wall_ms(bare_command))
        helps.append(_wall_ms(help_command))
    return StartFigures(
        help_ms=statistics.median(helps),
        help_spread_ms=max(helps) - min(helps),
        bare_ms=statistics.median(bares),
        bare_spread_ms=max(bares) - min(bares),
        runs=runs,
    )
