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

from temporalio.client import Client

from adapters.store.store import Store
from bench.bare import BareApproval, BareRun, BareRunMerged
from bench.cpu import CpuShare
from bench.hops import Hops, hops, median_hops
from bench.stack import Processes, bench_keys
from domain.organization.kinds import DestinationKind, StaffRole
from domain.runs.run import RunInput, RunStatus
from usecases import destinations, memory, organization, runs
from usecases.context import Ports
from worker.ports import build_ports
from worker.temporal import make_client
from workflows.runs import AgentRunWorkflow


@dataclass(frozen=True)
class Percentiles:
    """p50, p95 and p99 of a set of latencies, in milliseconds."""

    p50: float
    p95: float
    p99: float

    @classmethod
    def of(cls, seconds: list[float]) -> Percentiles:
        cuts = statistics.quantiles([s * 1e3 for s in seconds], n=100, method="inclusive")
        return cls(statistics.median(seconds) * 1e3, cuts[94], cuts[98])


@dataclass(frozen=True)
class RunFigures:
    """One database's run benchmark: governed beside bare, measured in the same run."""

    governed_per_s: float
    bare_per_s: float
    merged_per_s: float
    """The bare workflow of the governed run's current shape (:class:`BareRunMerged`)."""
    in_flight: int
    governed_unloaded: Percentiles
    bare_unloaded: Percentiles
    merged_unloaded: Percentiles
    governed_loaded: Percentiles
    """Each run's start to its end while ``in_flight`` runs are going."""
    bare_loaded: Percentiles
    approval_p50_ms: float
    bare_signal_p50_ms: float
    approval_hops: Hops
    bare_hops: Hops
    governed_cpu: CpuShare
    """CPU per run during the throughput phases: worker, server, client."""
    bare_cpu: CpuShare

    @property
    def governed_p50_ms(self) -> float:
        return self.governed_unloaded.p50

    @property
    def bare_p50_ms(self) -> float:
        return self.bare_unloaded.p50


NOTES = (
    "Kickoff notes for the east project: the client wants a status update every Friday.",
    "The east project's budget was agreed at 40,000 dollars for the first phase.",
    "Atlas asked for the east project's schedule to be sent to their operations team.",
    "Status of the east project: design review done, build starts next week.",
    "East project risks: the permit may be late; the client knows.",
)
"""Five records in the run's project that its task recalls (a run reads what it works on)."""
TASK = "Send Atlas the status of the east project"


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


async def _throughput(
    run_one: Callable[[int], Awaitable[None]], n: int, in_flight: int, took: list[float]
) -> float:
    """Runs per second with ``in_flight`` at a time; each run's latency goes to ``took``."""
    gate = asyncio.Semaphore(in_flight)

    async def one(i: int) -> None:
        async with gate:
            begin = time.perf_counter()
            await run_one(i)
            took.append(time.perf_counter() - begin)

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    return n / (time.perf_counter() - start)


async def _latencies(run_one: Callable[[int], Awaitable[None]], n: int) -> Percentiles:
    samples = []
    for i in range(n):
        start = time.perf_counter()
        await run_one(i)
        samples.append(time.perf_counter() - start)
    return Percentiles.of(samples)


async def measure(
    db_url: str, n: int = 200, in_flight: int = 32, rounds: int = 3, one_at_a_time: int = 100
) -> RunFigures:
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
                    runs.StartRun(agent, TASK, scripted_reply=_mail(f"{tag}-{i}-{time.time_ns()}")),
                )
                state = await runs.wait_run(ports, started.run_id, founder)
                assert state.intents[0].dispatch is not None, state
                assert len(state.released) == len(NOTES), state.released

            def bare_of(shape: Callable[..., Awaitable[str]]) -> Callable[[int], Awaitable[None]]:
                async def one(i: int) -> None:
                    await client.execute_workflow(
                        shape,
                        RunInput(run_id=f"b-{i}", org_id=org, agent_id=agent, task=TASK),
                        id=f"bare-{uuid.uuid4()}",
                        task_queue=stack.bare_queue,
                    )

                return one

            bare, merged = bare_of(BareRun.run), bare_of(BareRunMerged.run)

            await _throughput(governed, 20, 8, [])  # warm up both
            await _throughput(bare, 20, 8, [])
            await _throughput(merged, 20, 8, [])
            g_rates: list[float] = []
            b_rates: list[float] = []
            m_rates: list[float] = []
            g_took: list[float] = []
            b_took: list[float] = []
            g_cpu: list[CpuShare] = []
            b_cpu: list[CpuShare] = []
            for _ in range(rounds):
                meter = stack.cpu_meter(bare=True)
                b_rates.append(await _throughput(bare, n, in_flight, b_took))
                b_cpu.append(meter.per_run(n))
                meter = stack.cpu_meter(bare=False)
                g_rates.append(await _throughput(governed, n, in_flight, g_took))
                g_cpu.append(meter.per_run(n))
                m_rates.append(await _throughput(merged, n, in_flight, []))
            bare_unloaded = await _latencies(bare, one_at_a_time)
            merged_unloaded = await _latencies(merged, one_at_a_time)
            governed_unloaded = await _latencies(governed, one_at_a_time)
            approval, approval_hops = await _approval(ports, client, org, founder, agent)
            bare_signal, bare_hops = await _bare_signal(client, stack.bare_queue, org, agent)
            figures = RunFigures(
                governed_per_s=statistics.median(g_rates),
                bare_per_s=statistics.median(b_rates),
                merged_per_s=statistics.median(m_rates),
                in_flight=in_flight,
                governed_unloaded=governed_unloaded,
                bare_unloaded=bare_unloaded,
                merged_unloaded=merged_unloaded,
                governed_loaded=Percentiles.of(g_took),
                bare_loaded=Percentiles.of(b_took),
                approval_p50_ms=approval,
                bare_signal_p50_ms=bare_signal,
                approval_hops=approval_hops,
                bare_hops=bare_hops,
                governed_cpu=_median_cpu(g_cpu),
                bare_cpu=_median_cpu(b_cpu),
            )
        finally:
            store.close()
            stack.stop()
    return figures


def _median_cpu(shares: list[CpuShare]) -> CpuShare:
    return CpuShare(
        statistics.median(s.worker_ms for s in shares),
        statistics.median(s.server_ms for s in shares),
        statistics.median(s.client_ms for s in shares),
    )


def _firm(ports: Ports) -> tuple[str, str, str]:
    done = organization.onboard(ports, "Bench", f"b{uuid.uuid4().hex[:6]}@bench.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    organization.add_project(ports, org, founder, "east", "East")
    organization.staff(
        ports, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    # Its emails go to an established client and its payments to an established payee:
    # only the payment's amount holds it.
    destinations.establish_all(
        ports,
        org,
        founder,
        [
            destinations.Establish("east", DestinationKind.EMAIL_DOMAIN, "atlas.example"),
            destinations.Establish("east", DestinationKind.PAYEE, "N"),
        ],
    )
    for i, note in enumerate(NOTES):
        memory.remember(ports, org, founder, memory.Remember(f"east-note-{i}", ("east",), note))
    return org, founder, ledger


async def _approval(
    ports: Ports, client: Client, org: str, founder: str, agent: str, n: int = 20
) -> tuple[float, Hops]:
    """A held payment's approval: from the approve request to the run done (the write
    happens just before), with its hops read off the history."""
    samples, hop_samples = [], []
    for _ in range(n):
        started = await runs.start_run(
            ports, org, founder, runs.StartRun(agent, TASK, scripted_reply=_held_payment())
        )
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
        while (
            state := await handle.query(AgentRunWorkflow.state)
        ).status is not RunStatus.NEEDS_HUMAN:
            await asyncio.sleep(0.01)
        intent = state.intents[0].intent
        asked_at, begin = time.time(), time.perf_counter()
        await runs.decide_hold(ports, intent.id, founder, founder, approve=True)
        final = await handle.result()
        samples.append(time.perf_counter() - begin)
        told_at = time.time()
        assert final.intents[0].dispatch is not None, final
        hop_samples.append(hops(await handle.fetch_history(), asked_at, told_at))
    return statistics.median(samples) * 1e3, median_hops(hop_samples)


async def _bare_signal(
    client: Client, queue: str, org: str, agent: str, n: int = 20
) -> tuple[float, Hops]:
    samples, hop_samples = [], []
    for i in range(n):
        handle = await client.start_workflow(
            BareApproval.run,
            RunInput(run_id=f"a-{i}", org_id=org, agent_id=agent, task="bench"),
            id=f"bare-approval-{uuid.uuid4()}",
            task_queue=queue,
        )
        while not await handle.query(BareApproval.waiting):
            await asyncio.sleep(0.01)
        asked_at, begin = time.time(), time.perf_counter()
        await handle.signal(BareApproval.approve)
        await handle.result()
        samples.append(time.perf_counter() - begin)
        hop_samples.append(hops(await handle.fetch_history(), asked_at, time.time()))
    return statistics.median(samples) * 1e3, median_hops(hop_samples)
