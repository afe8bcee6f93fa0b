"""Where an approval's request hop goes: each read and the signal, timed inside
``runs.decide_hold`` (issue 25's profile, to reproduce and to check a change against).

``python -m bench.approval_reads [sqlite|postgres]`` starts the bench's dev server and
worker, approves 20 held payments to warm up and 30 more measured, and prints the
median of each port call the approval makes, beside the whole ``decide_hold``, the
governed approval (request to run done) and bare's (signal to workflow done). Not a
figure of ``make bench``: the machine's noise is in every number; compare two runs of it
on one machine, minutes apart.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.store.store import Store
from bench import runs as bench_runs
from bench.stack import Processes, bench_keys, database
from usecases import runs
from worker.ports import build_ports
from worker.temporal import make_client

READS = ("intent", "get", "reach", "intents")
"""The run store's reads an approval makes."""


def _timed(into: dict[str, list[float]], label: str, call: Callable[..., Any]) -> Any:
    if asyncio.iscoroutinefunction(call):

        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                into[label].append(time.perf_counter() - began)

        return timed_async

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            into[label].append(time.perf_counter() - began)

    return timed


async def measure(url: str) -> dict[str, float]:
    """Median milliseconds of each part of the approval, and of the two whole paths."""
    took: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        keys = bench_keys()
        stack = Processes(url, keys, Path(tmp))
        stack.start()
        store = Store.open(url, keys, migrate_schema=False)
        try:
            client = await make_client(stack.settings)
            ports = build_ports(store, client, stack.settings)
            org, founder, agent = bench_runs._firm(ports)
            await bench_runs._approval(ports, client, org, founder, agent, n=20)  # warm up
            for name in READS:
                setattr(ports.runs, name, _timed(took, f"runs.{name}", getattr(ports.runs, name)))
            for port, name in ((ports.directory, "standing"), (ports.gateway, "signal")):
                label = f"{'directory' if port is ports.directory else 'gateway'}.{name}"
                setattr(port, name, _timed(took, label, getattr(port, name)))
            decide = runs.decide_hold
            setattr(runs, "decide_hold", _timed(took, "decide_hold (all of it)", decide))  # noqa: B010
            try:
                governed, _ = await bench_runs._approval(ports, client, org, founder, agent, n=30)
            finally:
                setattr(runs, "decide_hold", decide)  # noqa: B010
            bare, _ = await bench_runs._bare_signal(client, stack.bare_queue, org, agent, n=30)
        finally:
            store.close()
            stack.stop()
    found = {k: statistics.median(v) * 1e3 for k, v in sorted(took.items())}
    found["approval, request to run done"] = governed
    found["bare, signal to workflow done"] = bare
    return found


def main() -> None:
    kind = sys.argv[1] if len(sys.argv) > 1 else "sqlite"
    with database(kind) as url:
        found = asyncio.run(measure(url))
    width = max(map(len, found))
    for label, ms in found.items():
        sys.stdout.write(f"{label:<{width}}  {ms:7.2f} ms\n")


if __name__ == "__main__":
    main()
