"""Durable decisions per second for one organization with many runs deciding at once,
against the database's own floor: one-row transactions committed one after another
(on SQLite, one fsync each).

Every decision is the real one (snapshot under the organization's lock, the stages, the
intent, decision and claim rows, the signed audit entry), committed before its caller
hears of it. The runs propose emails to distinct clients; payments would add the spend
reads that :mod:`adapters.store.governance` does for money (see the note on issue 6).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import psycopg

from activities.governance_batching import DecisionBatcher
from adapters.store.db import libpq_url
from adapters.store.store import Store
from bench.stack import bench_keys
from domain.governance.intents import Intent, Outcome
from domain.organization.kinds import DestinationKind, StaffRole
from usecases import destinations, governance, organization
from worker.ports import build_ports
from worker.settings import Settings


@dataclass(frozen=True)
class DecisionFigures:
    """Decisions per second with group commit, one at a time, and the commit floor."""

    grouped_per_s: float
    single_per_s: float
    floor_per_s: float


def utc_now() -> datetime:
    return datetime.now(UTC)


def sqlite_floor(n: int = 2000) -> float:
    """One-row transactions per second on a fresh SQLite file, as durable as ours (WAL,
    synchronous=FULL)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(os.path.join(tmp, "floor.db"), isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        start = time.perf_counter()
        for i in range(n):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t (v) VALUES (?)", (f"row {i}",))
            conn.execute("COMMIT")
        elapsed = time.perf_counter() - start
        conn.close()
    return n / elapsed


def postgres_floor(url: str, n: int = 2000) -> float:
    """One-row transactions per second on PostgreSQL (its default, durable commit)."""
    table = f"floor_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(libpq_url(url)) as conn:
        conn.execute(f"CREATE TABLE {table} (id serial PRIMARY KEY, v text)")
        conn.commit()
        try:
            start = time.perf_counter()
            for i in range(n):
                conn.execute(f"INSERT INTO {table} (v) VALUES (%s)", (f"row {i}",))
                conn.commit()
            elapsed = time.perf_counter() - start
        finally:
            conn.execute(f"DROP TABLE {table}")
            conn.commit()
    return n / elapsed


def _firm(store: Store, url: str) -> tuple[str, str]:
    ports = build_ports(store, None, Settings(database_url=url))
    done = organization.onboard(ports, "Decide", f"d{uuid.uuid4().hex[:6]}@bench.example")
    org, founder = done.org.id, done.founder.id
    agent = next(a.id for a in done.agents if a.handle == "orion")
    organization.add_project(ports, org, founder, "east", "East")
    organization.staff(
        ports, org, founder, organization.AssignStaff(agent, "east", StaffRole.MEMBER)
    )
    # Its emails go to the firm's own people: established, and no mailing however many.
    destinations.establish(
        ports,
        org,
        founder,
        destinations.Establish("east", DestinationKind.EMAIL_DOMAIN, "bench.example"),
    )
    return org, agent


def _email(org: str, agent: str, run: int, i: int) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=org,
        run_id=f"run-{run}",
        principal_id=agent,
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="follow up",
        payload={"to": f"c{run}-{i}@bench.example", "subject": "Status", "body": "On track."},
    )


async def _grouped(store: Store, org: str, agent: str, runs: int, each: int) -> float:
    batcher = DecisionBatcher(
        lambda intents, now: governance.decide_many(store.governance, intents, now), utc_now
    )

    async def run(r: int, each: int) -> None:
        for i in range(each):
            decision = await batcher.decide(_email(org, agent, r, i))
            assert decision.outcome is Outcome.ALLOW, decision

    # Warm up the batcher's path (its thread, prepared statements) with the same shape.
    await asyncio.gather(*(run(1_000_000 + r, 4) for r in range(runs)))
    start = time.perf_counter()
    await asyncio.gather(*(run(r, each) for r in range(runs)))
    return runs * each / (time.perf_counter() - start)


def measure(url: str, runs: int = 64, each: int = 40) -> DecisionFigures:
    """Decide ``runs`` × ``each`` intents, ``runs`` at a time, on ``url``."""
    store = Store.open(url, bench_keys(), migrate_schema=False)
    try:
        org, agent = _firm(store, url)
        for i in range(50):  # warm up (caches, connections)
            governance.decide(store.governance, _email(org, agent, -1, i), utc_now())
        start = time.perf_counter()
        single = 300
        for i in range(single):
            governance.decide(store.governance, _email(org, agent, -2, i), utc_now())
        single_per_s = single / (time.perf_counter() - start)
        grouped_per_s = asyncio.run(_grouped(store, org, agent, runs, each))
        assert store.audit.verify(org).ok
    finally:
        store.close()
    floor = sqlite_floor() if url.startswith("sqlite") else postgres_floor(url)
    return DecisionFigures(grouped_per_s, single_per_s, floor)
