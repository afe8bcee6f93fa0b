"""`make bench`: every speed figure of the governance path beside a baseline measured in
the same run, with its target.

- runs: governed against a bare workflow of the same shape on one dev server
  (throughput with 32 in flight, unloaded p50, approval signal → connector write);
- decisions: durable decisions per second for one organization with concurrent runs,
  against the database's one-row commit floor;
- pure stages: p99 of the broker's stages on a large organization against a small one
  (and, beside it, reading what each intent carries out of the firm: done before the lock);
- chain: verification against SHA-256 over the same entries (in the database, with its
  cross-checks; and an export offline, with the public key alone), and an inclusion
  proof's check against one SHA-256 of its entry;
- memory: a gated top-10 similarity query over 10k and 100k records against an ungated
  numpy top-10, and ingestion against embedding alone;
- console: the web console's pages with 1,000 items in the needs-you queue, server time
  in process, against the same queue as JSON from the API;
- cli_start: ``verletica --help`` as a subprocess, median and spread of 3, against
  ``python -c pass`` (the interpreter's own start).

PostgreSQL figures need ``VERLETICA_TEST_POSTGRES_URL`` (a server where a database can be
created); without it they are skipped, and the table says so.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from adapters.store.audit import VERIFIED_KEPT
from bench import chain, cli_start, decisions, memory, pure, runs
from bench import console as pages
from bench.figures import Figure, print_figures, repeated
from bench.hops import HOPS
from bench.stack import database

app = typer.Typer(add_completion=False)


class Part(StrEnum):
    """One group of figures."""

    RUNS = "runs"
    DECISIONS = "decisions"
    PURE = "pure"
    CHAIN = "chain"
    MEMORY = "memory"
    CONSOLE = "console"
    CLI_START = "cli_start"


def _run_figures(kind: str, where: str, quick: bool) -> list[Figure]:
    with database(kind) as url:
        if quick:
            got = asyncio.run(runs.measure(url, n=60, in_flight=16, rounds=1, one_at_a_time=20))
        else:
            got = asyncio.run(runs.measure(url))
    throughput = got.governed_per_s / got.bare_per_s
    p50 = got.governed_p50_ms / got.bare_p50_ms
    approval = got.approval_p50_ms / got.bare_signal_p50_ms
    flight = f"{got.in_flight} in flight"
    figures = [
        Figure(
            f"run throughput, {flight}",
            where,
            got.governed_per_s,
            got.bare_per_s,
            "runs/s",
            "bare, 4 activities + 1 local",
            "≥ 0.8",
            throughput >= 0.8,
        ),
        Figure(
            f"run throughput, {flight}, beside bare of the governed run's shape now",
            where,
            got.governed_per_s,
            got.merged_per_s,
            "runs/s",
            "bare, 3 activities + 1 local",
            "(context)",
            True,
        ),
        Figure(
            "run latency p50, one at a time",
            where,
            got.governed_p50_ms,
            got.bare_p50_ms,
            "ms",
            "bare, 4 activities + 1 local",
            "≤ 1.3",
            p50 <= 1.3,
        ),
        Figure(
            "run latency p50, one at a time, beside bare of the governed run's shape now",
            where,
            got.governed_p50_ms,
            got.merged_unloaded.p50,
            "ms",
            "bare, 3 activities + 1 local",
            "(context)",
            True,
        ),
        Figure(
            "approval signal → run done, p50",
            where,
            got.approval_p50_ms,
            got.bare_signal_p50_ms,
            "ms",
            "bare signal + activity",
            "≤ 1.5",
            approval <= 1.5,
        ),
    ]
    for load, governed, bare in (
        ("one at a time", got.governed_unloaded, got.bare_unloaded),
        (flight, got.governed_loaded, got.bare_loaded),
    ):
        figures += [
            Figure(
                f"whole path {stat}, {load} (start → decided, audited, written)",
                where,
                mine,
                theirs,
                "ms",
                "bare, 4 activities + 1 local",
                "(published)",
                True,
            )
            for stat, mine, theirs in (
                ("p50", governed.p50, bare.p50),
                ("p95", governed.p95, bare.p95),
                ("p99", governed.p99, bare.p99),
            )
        ]
    figures += [
        Figure(
            f"CPU per run, {part}, {flight}",
            where,
            mine,
            theirs,
            "ms",
            "bare, 4 activities + 1 local",
            "(where the time goes)",
            True,
        )
        for part, mine, theirs in (
            ("worker", got.governed_cpu.worker_ms, got.bare_cpu.worker_ms),
            ("Temporal server", got.governed_cpu.server_ms, got.bare_cpu.server_ms),
            ("client", got.governed_cpu.client_ms, got.bare_cpu.client_ms),
            ("all three", got.governed_cpu.total_ms, got.bare_cpu.total_ms),
        )
    ]
    figures += [
        Figure(
            f"approval hop: {name}, p50",
            where,
            mine,
            theirs,
            "ms",
            "bare signal + activity",
            "(where the time goes)",
            True,
        )
        for name, mine, theirs in zip(HOPS, got.approval_hops.ms, got.bare_hops.ms, strict=True)
    ]
    return figures


def _decision_figures(kind: str, where: str, quick: bool) -> list[Figure]:
    goal = 3000.0 if kind == "sqlite" else 800.0
    with database(kind) as url:
        got = decisions.measure(url, runs=32 if quick else 64, each=20 if quick else 40)
    return [
        Figure(
            "durable decisions/s, one org, concurrent runs",
            where,
            got.grouped_per_s,
            got.floor_per_s,
            "/s",
            "one-row commits",
            f"≥ {goal:,.0f}/s",
            got.grouped_per_s >= goal,
        ),
        Figure(
            "durable decisions/s, one at a time",
            where,
            got.single_per_s,
            got.floor_per_s,
            "/s",
            "one-row commits",
            "(context)",
            True,
        ),
    ]


def _pure_figures(quick: bool) -> list[Figure]:
    n = 5_000 if quick else 20_000
    large = pure.stage_times(pure.LARGE, n=n)
    small = pure.stage_times(pure.SMALL, n=n)
    return [
        Figure(
            "pure stages p99, large org",
            "—",
            large.p99_ms,
            small.p99_ms,
            "ms",
            "small org",
            "≤ 0.05 ms",
            large.p99_ms <= 0.05,
        ),
        Figure(
            "pure stages p50, large org",
            "—",
            large.p50_ms,
            small.p50_ms,
            "ms",
            "small org",
            "(context)",
            True,
        ),
        Figure(
            "reading what an intent carries out, p99 (before the lock)",
            "—",
            large.read_p99_ms,
            small.read_p99_ms,
            "ms",
            "small org",
            "(context)",
            True,
        ),
    ]


def _chain_figures(kind: str, where: str, quick: bool) -> list[Figure]:
    with database(kind) as url:
        got = chain.measure(url, n=10_000 if quick else 100_000)
    return [
        Figure(
            f"chain verification ({got.entries:,} entries)",
            where,
            got.verify_per_s,
            got.sha256_per_s,
            "entries/s",
            "SHA-256 alone",
            "≥ 200,000/s",
            got.verify_per_s >= 200_000,
        ),
        Figure(
            f"export verified offline, public key only ({got.entries:,} entries)",
            where,
            got.offline_per_s,
            got.offline_sha256_per_s,
            "entries/s",
            "SHA-256 alone",
            "≥ 200,000/s",
            got.offline_per_s >= 200_000,
        ),
        Figure(
            "inclusion proof checked (median)",
            where,
            got.proof_check_us,
            got.proof_sha256_us,
            "µs",
            "SHA-256 of the entry",
            "≤ 1,000 µs",
            got.proof_check_us <= 1_000,
        ),
        Figure(
            f"chain verified and listed again, rows unchanged ({got.entries:,} entries, "
            f"{min(got.entries, VERIFIED_KEPT):,} kept)",
            where,
            got.again_per_s,
            got.listed_per_s,
            "entries/s",
            "verified and listed the first time",
            "(context)",
            True,
        ),
    ]


def _memory_figures(kind: str, where: str, quick: bool) -> list[Figure]:
    figures = []
    for nodes in (10_000,) if quick else (10_000, 100_000):
        with database(kind) as url:
            got = memory.measure(url, nodes=nodes, queries=50 if quick else 200)
        figures += [
            Figure(
                f"memory gated top-10 p95, {nodes:,} records",
                where,
                got.p95_ms,
                got.baseline_p95_ms,
                "ms",
                "ungated numpy top-10",
                "≤ 50 ms",
                got.p95_ms <= 50,
            ),
            Figure(
                f"memory gated top-10 p50, {nodes:,} records",
                where,
                got.p50_ms,
                got.baseline_p50_ms,
                "ms",
                "ungated numpy top-10",
                "(context)",
                True,
            ),
            Figure(
                f"memory query right after a write, {nodes:,} records",
                where,
                got.after_write_ms,
                got.cold_ms,
                "ms",
                "first query (reads every vector)",
                "(context)",
                True,
            ),
        ]
    figures += [
        Figure(
            "memory ingestion, one-line notes, with the tagger",
            where,
            got.ingest_per_s,
            got.embed_per_s,
            "/s",
            "embedding alone",
            "≥ 200/s" if kind == "sqlite" else "(context)",
            got.ingest_per_s >= 200 if kind == "sqlite" else True,
        ),
        Figure(
            "memory ingestion, business documents, with the tagger",
            where,
            got.business_per_s,
            got.business_rules_per_s,
            "/s",
            "the rules alone finding names",
            "(the tagger's cost)",
            True,
        ),
    ]
    if kind == "sqlite":  # the finder touches no database: once is enough
        finder = memory.measure_finder(count=100 if quick else 300)
        figures.append(
            Figure(
                f"identifying detail, p95 per 2 KB document, median of {finder.rounds}",
                "in process",
                finder.p95_ms,
                finder.rules_p95_ms,
                "ms",
                "the rules alone",
                "(cost)",
                True,
            )
        )
    return figures


def _console_figures(kind: str, where: str, quick: bool) -> list[Figure]:
    with database(kind) as url:
        got = pages.measure(
            url,
            items=200 if quick else 1000,
            requests=10 if quick else 30,
            runs=1_000 if quick else 10_000,
        )
    with database(kind) as url:
        live = pages.live_latency(url, changes=10 if quick else 30)
    figures = [
        Figure(
            f"console: a run's change reaches its open page {stat}",
            where,
            value,
            base,
            "ms",
            "the whole run page, loaded again",
            "≤ 1,000 ms",
            value <= 1000,
        )
        for stat, value, base in (
            ("p50", live.p50_ms, live.page_p50_ms),
            ("p95", live.p95_ms, live.page_p95_ms),
        )
    ]
    for path, name in (
        ("/console/queue", "console: needs-you page"),
        ("/console/queue?partial=1", "console: queue refresh (partial)"),
        ("/console/audit", "console: audit page (verified)"),
        ("/console/workspace", "console: workspace page"),
        ("/console/metrics", "console: metrics page"),
        ("/console/runs", "console: runs page"),
        ("/console/runs?outcome=refused&q=invoice", "console: runs found by outcome and words"),
        ("/console/agents", "console: agents page"),
        ("/console/decided", "console: what you decided"),
        ("/console/memory?q=kickoff notes", "console: memory search"),
        ("/console/intents/{held}", "console: a held payment's page"),
    ):
        for stat, value, base in (
            ("p50", got.p50_ms[path], got.json_p50_ms),
            ("p95", got.p95_ms[path], got.json_p95_ms),
        ):
            figures.append(
                Figure(
                    f"{name} {stat}, {got.items:,} queue items, {got.runs:,} runs",
                    where,
                    value,
                    base,
                    "ms",
                    "the queue as JSON (API)",
                    "≤ 300 ms",
                    value <= 300,
                )
            )
    return figures


def _cli_start_figures() -> list[Figure]:
    got = cli_start.measure(runs=3)
    return [
        Figure(
            f"CLI start: verletica --help, median of {got.runs}",
            "—",
            got.help_ms,
            got.bare_ms,
            "ms",
            "python -c pass",
            "≤ 500 ms",
            got.help_ms <= 500,
        )
    ]


@app.command()
def main(
    only: Annotated[
        list[Part] | None, typer.Option(help="Measure only these parts (repeatable).")
    ] = None,
    quick: Annotated[
        bool, typer.Option(help="Fewer runs and entries: a smoke test, not a figure.")
    ] = False,
    repeat: Annotated[
        int | None,
        typer.Option(min=1, help="Measure everything this many times (default 3; 1 with --quick)."),
    ] = None,
) -> None:
    """Measure the governance path and print one table."""
    console = Console(width=None if sys.stdout.isatty() else 200)
    parts = set(only or list(Part))
    kinds = [("sqlite", "SQLite")]
    if os.environ.get("VERLETICA_TEST_POSTGRES_URL"):
        kinds.append(("postgres", "PostgreSQL"))
    else:
        console.print("[yellow]VERLETICA_TEST_POSTGRES_URL is not set: SQLite only.[/]")
    times = repeat or (1 if quick else 3)
    rounds: list[list[Figure]] = []
    started = time.perf_counter()
    for round_ in range(1, times + 1):
        console.print(f"[bold]run {round_} of {times}[/]")
        rounds.append(_measure(parts, kinds, quick, console))
    took = time.perf_counter() - started
    title = (
        f"Verletica governance path ({'quick, ' if quick else ''}median of {times} runs, "
        f"lowest–highest in brackets, {took:.0f} s)"
    )
    print_figures(repeated(rounds), title, console)


def _measure(
    parts: set[Part], kinds: list[tuple[str, str]], quick: bool, console: Console
) -> list[Figure]:
    """One run of every part asked for."""
    figures: list[Figure] = []
    if Part.CLI_START in parts:
        console.print("command-line start …")
        figures += _cli_start_figures()
    if Part.PURE in parts:
        console.print("pure stages …")
        figures += _pure_figures(quick)
    for kind, where in kinds:
        if Part.DECISIONS in parts:
            console.print(f"decisions on {where} …")
            figures += _decision_figures(kind, where, quick)
        if Part.CHAIN in parts:
            console.print(f"chain on {where} …")
            figures += _chain_figures(kind, where, quick)
        if Part.MEMORY in parts:
            console.print(f"memory on {where} …")
            figures += _memory_figures(kind, where, quick)
        if Part.CONSOLE in parts:
            console.print(f"console on {where} …")
            figures += _console_figures(kind, where, quick)
        if Part.RUNS in parts:
            console.print(f"runs on {where} …")
            figures += _run_figures(kind, where, quick)
    return figures


if __name__ == "__main__":
    app()
