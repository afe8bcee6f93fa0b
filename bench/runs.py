"""Governed runs against a bare workflow of the same shape, on one dev server: throughput
with many runs in flight, latency one at a time, and an approval's round trip."""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from adapters.store.store import Store
from bench.bare import BareApproval, BareRun
from bench.stack import Processes, bench_keys
from domain.organization.kinds import StaffRole
from domain.runs.run import RunInput, RunStatus
from usecases import organization, runs
from usecases.context import Ports
from worker.ports import build_ports
from worker.temporal import make_client
from workflows.runs import AgentRunWorkflow


@dataclass
class RunFigures:
    """Medians of one database's run benchmark."""

    governed_per_s: float
    bare_per_s: float
    governed_p50_ms: float
    bare_p50_ms: float
    approval_p50_ms: float
    bare_signal_p50_ms: float


def _mail(i: str) -> str:
    return json.dumps(
        {
            "summary": "s",
            "actions": [
                {
                    "tool": "email.send",
                    "projects": ["east"],
                    "cost_cents": 0,
                    "justification": "j",
                    "payload": {"to": f"c{i}@atlas.example", "subject": "s", "body": "b"},
                }
            ],
        }
    )


def _held_payment() -> str:
    invoice = uuid.uuid4().hex[:10]
    return json.dumps(
        {
            "summary": "s",
            "actions": [
                {
                    "tool": "payments.pay",
                    "projects": ["east"],
                    "cost_cents": 150_000,
                    "justification": "j",
                    "payload": {
                        "payee": "N",
                        "invoice": invoice,
                        "amount_cents": 150_000,
                        "currency": "USD",
                        "memo": "m",
                    },
                }
            ],
        }
    )


async def _throughput(run_one: Callable[[int], Awaitable[None]], n: int, in_flight: int) -> float:
    gate = asyncio.Semaphore(in_flight)

    async def one(i: int) -> None:
        async with gate:
            await run_one(i)

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return n / (time.perf_counter() - start)


async def _latencies(run_one: Callable[[int], Awaitable[None]], n: int) -> float:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        await run_one(i)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


async def measure(db_url: str, n: int = 200, in_flight: int = 32, rounds: int = 3) -> RunFigures:
    keys = bench_keys()
    with tempfile.TemporaryDirectory() as tmp:
        stack = Processes(db_url, keys, Path(tmp))
        stack.start()
        store = Store.open(db_url, keys, migrate_schema=False)
        try:
            client = await make_client(stack.settings)
            ports = build_ports(store, client, stack.settings)
            org, founder, agent = _firm(ports)
            tag = uuid.uuid4().hex[:6]

            async def governed(i: int) -> None:
                started = await runs.start_run(
                    ports,
                    org,
                    founder,
                    runs.StartRun(
                        agent, "bench", scripted_reply=_mail(f"{tag}-{i}-{time.time_ns()}")
                    ),
                )
                state = await runs.wait_run(ports, started.run_id, founder)
                assert state.intents[0].dispatch is not None, state

            async def bare(i: int) -> None:
                await client.execute_workflow(
                    BareRun.run,
                    RunInput(run_id=f"b-{i}", org_id=org, agent_id=agent, task="bench"),
                    id=f"bare-{uuid.uuid4()}",
                    task_queue=stack.bare_queue,
                )

            await _throughput(governed, 20, 8)  # warm up both
            await _throughput(bare, 20, 8)
            g_rates, b_rates = [], []
            for _ in range(rounds):
                b_rates.append(await _throughput(bare, n, in_flight))
                g_rates.append(await _throughput(governed, n, in_flight))
            figures = RunFigures(
                governed_per_s=statistics.median(g_rates),
                bare_per_s=statistics.median(b_rates),
                bare_p50_ms=await _latencies(bare, 20),
                governed_p50_ms=await _latencies(governed, 20),
                approval_p50_ms=await _approval(ports, client, org, founder, agent),
                bare_signal_p50_ms=await _bare_signal(client, stack.bare_queue, org, agent),
            )
        finally:
            store.close()
            stack.stop()
    return figures


def _firm(ports: Ports) -> tuple[str, str, str]:
    done = organization.onboard(ports, "Bench", f"b{uuid.uuid4().hex[:6]}@bench.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    organization.add_project(ports, org, founder, "east", "East")
    organization.staff(
        ports, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    return org, founder, ledger


async def _approval(ports: Ports, client: object, org: str, founder: str, agent: str) -> float:
    """A held payment's approval: from the approve request to the run done (the write
    happens just before)."""
    samples = []
    for _ in range(10):
        started = await runs.start_run(
            ports, org, founder, runs.StartRun(agent, "pay", scripted_reply=_held_payment())
        )
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)  # type: ignore[attr-defined]
        while (
            state := await handle.query(AgentRunWorkflow.state)
        ).status is not RunStatus.NEEDS_HUMAN:
            await asyncio.sleep(0.01)
        intent = state.intents[0].intent
        begin = time.perf_counter()
        await runs.decide_hold(ports, intent.id, founder, founder, approve=True)
        final = await handle.result()
        samples.append(time.perf_counter() - begin)
        assert final.intents[0].dispatch is not None, final
    return statistics.median(samples) * 1e3


async def _bare_signal(client: object, queue: str, org: str, agent: str) -> float:
    samples = []
    for i in range(10):
        handle = await client.start_workflow(  # type: ignore[attr-defined]
            BareApproval.run,
            RunInput(run_id=f"a-{i}", org_id=org, agent_id=agent, task="bench"),
            id=f"bare-approval-{uuid.uuid4()}",
            task_queue=queue,
        )
        while not await handle.query(BareApproval.waiting):
            await asyncio.sleep(0.01)
        begin = time.perf_counter()
        await handle.signal(BareApproval.approve)
        await handle.result()
        samples.append(time.perf_counter() - begin)
    return statistics.median(samples) * 1e3
