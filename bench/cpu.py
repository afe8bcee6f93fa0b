"""CPU time of the processes a benchmark runs (Linux ``/proc``), to say where a run's time
goes: the worker's, the Temporal server's and the client's own."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
    return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass(frozen=True)
class CpuShare:
    """CPU milliseconds per run spent by each process during one measured phase."""

    worker_ms: float
    server_ms: float
    client_ms: float

    @property
    def total_ms(self) -> float:
        return self.worker_ms + self.server_ms + self.client_ms


class CpuMeter:
    """Reads the CPU of a worker, the server and this process before and after a phase."""

    def __init__(self, worker: int, server: int) -> None:
        self._pids = (worker, server, os.getpid())
        self._start = self._read()

    def _read(self) -> tuple[float, ...]:
        return tuple(cpu_seconds(pid) for pid in self._pids)

    def per_run(self, runs: int) -> CpuShare:
        """CPU per run since the meter was made."""
        end = self._read()
        worker, server, client = (
            (b - a) * 1e3 / runs for a, b in zip(self._start, end, strict=True)
        )
        return CpuShare(worker, server, client)
