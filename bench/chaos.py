"""The chaos harness: governed runs across several worker processes on PostgreSQL, while
workers are killed (SIGKILL) and restarted at random and the Temporal dev server is
restarted once. Afterwards it checks what must hold whatever happened:

- every run reached a terminal state;
- no resource was written twice (a second payment of one invoice needs a human's
  approval of the repeat), no intent wrote twice;
- no write happened without an allowing entry before it in the chain;
- no two colliding intents were ever allowed at once;
- no worker ended without being killed (one started while Temporal restarts waits for it);
- the chain verifies, and the broker never found it broken (nothing here tampers with
  it: a poisoning is a false alarm, and every run after it is held);

and reports how long runs took to recover from a lost task: from the kill to the
workflow's next step done (median and worst), how the runs ended, and how long it took.

The harness keeps pace with the machine, as the system it tests does: a busy machine
makes everything slower, and a fixed deadline counted slow runs as lost ones (CI at load
5-9 on 2 cores: 29 of 30). It waits for the runs as long as they keep ending, and gives
up only when none has ended for ``STALL_SECONDS`` (or after ``MOST_SECONDS`` in all).

``make chaos`` (``python -m bench.chaos``) needs ``VERLETICA_TEST_POSTGRES_URL``; the
slower test ``tests/e2e/test_chaos.py`` runs the same harness.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psycopg
from rich.console import Console
from sqlalchemy import select
from temporalio.client import Client, WorkflowExecutionStatus

from adapters.store.db import libpq_url, migrate, normalise_url
from adapters.store.store import Store
from adapters.store.tables import IntentRow
from bench.chaos_report import ChaosReport, check_writes, recoveries, render, why_not_ended
from bench.stack import free_port
from domain.audit.chain import ChainKey, ChainKeys
from domain.errors import Conflict, NotFound, Unavailable
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from usecases import commitments, organization, runs
from usecases.context import Ports
from worker import devserver
from worker.ports import build_ports
from worker.settings import Settings
from worker.temporal import connect

ROOT = Path(__file__).resolve().parents[1]
STALL_SECONDS = 300.0
"""No run ended for this long while some are still going: they are stuck, not slow."""
MOST_SECONDS = 3600.0
"""The harness's outer bound, whatever happens."""


def _reply(*actions: dict[str, object]) -> str:
    return json.dumps({"summary": "chaos", "actions": list(actions)})


def _pay(invoice: str, amount: int, project: str = "east") -> dict[str, object]:
    return {
        "tool": "payments.pay",
        "projects": [project],
        "cost_cents": amount,
        "justification": "due",
        "payload": {
            "payee": "Northwind",
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "chaos",
        },
    }


def _mail(to: str) -> dict[str, object]:
    return {
        "tool": "email.send",
        "projects": ["east"],
        "cost_cents": 0,
        "justification": "j",
        "payload": {"to": to, "subject": "s", "body": "b"},
    }


@dataclass
class Patience:
    """How long the harness waits: while runs keep ending, however slowly; it gives up
    only after ``stall`` seconds with no run ended, or ``most`` seconds in all."""

    began: float
    stall: float = STALL_SECONDS
    most: float = MOST_SECONDS
    ended: int = 0
    last_progress: float = 0.0

    def __post_init__(self) -> None:
        self.last_progress = self.began

    def saw(self, ended: int, now: float) -> None:
        """``ended`` runs have ended by ``now``."""
        if ended != self.ended:
            self.ended, self.last_progress = ended, now

    def exhausted(self, now: float) -> bool:
        return now - self.last_progress > self.stall or now - self.began > self.most


class _Worker:
    def __init__(self, n: int, env: dict[str, str], logs: Path) -> None:
        self.n, self.env, self.logs = n, env, logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = logs / f"worker-{n}.log"
        self.since = 0
        """Where this process's part of the log begins."""

    def start(self) -> None:
        self.since = self.log.stat().st_size if self.log.exists() else 0
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "worker"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def exited(self) -> bool:
        """The process ended without being killed: a defect, whatever the cause."""
        return self.proc is not None and self.proc.poll() is not None

    @property
    def ready(self) -> bool:
        """Polling its task queue. Only such a worker is killed: on a slow machine, killing
        workers still starting would leave none to make progress."""
        return self.alive and b"worker polling" in self._output()

    def tail(self, lines: int = 3) -> str:
        return " | ".join(self._output().decode(errors="replace").strip().splitlines()[-lines:])

    def _output(self) -> bytes:
        with self.log.open("rb") as f:
            f.seek(self.since)
            return f.read()

    @property
    def identity(self) -> str:
        assert self.proc is not None
        return f"{self.proc.pid}@{socket.gethostname()}"

    def kill(self) -> None:
        if self.alive:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@contextmanager
def _postgres(base_url: str) -> Iterator[str]:
    name = f"vt_chaos_{uuid.uuid4().hex[:8]}"
    admin = libpq_url(base_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = normalise_url(base_url).rsplit("/", 1)[0] + f"/{name}"
    try:
        migrate(url)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _tasks(rng: random.Random, count: int) -> list[str]:
    """Replies for ``count`` runs: mail, small and large payments, and pairs of payments
    of one invoice (collisions, and repeats of a paid invoice)."""
    replies: list[str] = []
    for i in range(count):
        kind = i % 5
        if kind == 0:
            replies.append(_reply(_mail(f"client{i}@atlas.example")))
        elif kind == 1:
            replies.append(_reply(_pay(f"INV-{i}", rng.randint(1_000, 20_000))))
        elif kind == 2:
            replies.append(_reply(_pay(f"INV-{i}", 150_000)))  # over the threshold: held
        else:  # kinds 3 and 4 pay one invoice: they collide, or the second repeats it
            replies.append(_reply(_pay(f"SHARED-{i // 5}", rng.randint(1_000, 20_000))))
    return replies


async def run_chaos(
    postgres_url: str,
    runs_count: int = 30,
    workers: int = 3,
    seed: int | None = None,
    logs: Path | None = None,
) -> ChaosReport:
    """Run the harness; see the module's docstring."""
    rng = random.Random(seed)
    report = ChaosReport(runs=runs_count)
    keys = ChainKeys(current=ChainKey(os.urandom(32)))
    with tempfile.TemporaryDirectory() as tmp, _postgres(postgres_url) as db_url:
        data = Path(tmp)
        logs = logs or data
        port, ui = free_port(), free_port()
        settings = Settings(
            database_url=db_url,
            data_dir=str(data),
            temporal_address=f"127.0.0.1:{port}",
            temporal_ui_url=f"http://127.0.0.1:{ui}",
            task_queue=f"chaos-{uuid.uuid4().hex[:6]}",
            model_provider="scripted",
            audit_key=keys.current.secret.hex(),
        )  # type: ignore[call-arg]
        env = {
            **os.environ,
            "VERLETICA_DATABASE_URL": db_url,
            "VERLETICA_TEMPORAL_ADDRESS": settings.temporal_address,
            "VERLETICA_TASK_QUEUE": settings.task_queue,
            "VERLETICA_MODEL_PROVIDER": "scripted",
            "VERLETICA_AUDIT_KEY": keys.current.secret.hex(),
            "VERLETICA_DATA_DIR": str(data),
            # the model "thinks" for a while, as a real one does: kills catch runs mid-step
            "VERLETICA_SCRIPTED_DELAY_MS": "2000",
        }
        server = devserver.start(settings)
        store = Store.open(db_url, keys, migrate_schema=False)
        pool = [_Worker(n, env, logs) for n in range(workers)]
        kills: list[tuple[float, str]] = []
        try:
            # the dev server may take a while to be healthy on a busy machine: wait for it
            client = await connect(settings)
            ports = build_ports(store, client, settings)
            org, founder = _firm(ports)
            for w in pool:
                w.start()
            started: list[runs.RunStarted] = []
            agent = _agent(ports, org, founder)
            submitting = asyncio.create_task(
                _submit(ports, org, founder, agent, rng, runs_count, started)
            )
            approving = asyncio.create_task(_keep_approving(ports, store, org, founder, report))
            began = time.monotonic()
            patience = Patience(began)
            try:
                while True:
                    patience.saw(await _count_terminal(client, started), time.monotonic())
                    if submitting.done() and patience.ended == len(started):
                        break
                    if submitting.done() and patience.exhausted(time.monotonic()):
                        report.problems.append(
                            f"the harness gave up: {patience.ended} of {len(started)} runs "
                            f"ended, none in the last {patience.stall:.0f} s"
                        )
                        break
                    for w in pool:
                        if w.exited:  # restarted as a supervisor would, and reported
                            report.self_exits += 1
                            report.problems.append(f"worker {w.n} exited on its own: {w.tail()}")
                            w.start()
                    victim = rng.choice(pool)
                    if victim.ready:
                        kills.append((time.time(), victim.identity))
                        victim.kill()
                        report.kills += 1
                        await asyncio.sleep(rng.uniform(0.3, 1.0))
                        victim.start()
                    if report.temporal_restarts == 0 and len(started) >= runs_count // 2:
                        server = _restart_temporal(settings, server)
                        report.temporal_restarts += 1
                    await asyncio.sleep(rng.uniform(1.0, 3.0))
            finally:
                approving.cancel()
                await submitting
                report.seconds = time.monotonic() - began
            report.terminal = await _count_terminal(client, started)
            statuses = await _statuses(client, started)
            for status in statuses:
                name = getattr(status, "name", "unknown").lower()
                report.outcomes[name] = report.outcomes.get(name, 0) + 1
            for run, status in zip(started, statuses, strict=True):
                if status in (None, WorkflowExecutionStatus.RUNNING):
                    why = await why_not_ended(client, store, org, run, report.approver_saw)
                    report.problems.append(f"run {run.workflow_id} did not end ({status}): {why}")
            report.recoveries = await recoveries(client, started, kills)
            check_writes(store, org, report)
            report.chain_ok = store.audit.verify(org).ok
        finally:
            for w in pool:
                w.stop()
            store.close()
            devserver.stop(settings, server)
    return report


def _firm(ports: Ports) -> tuple[str, str]:
    done = organization.onboard(ports, "Chaos & Co", "ada@chaos.example", "Ada")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    for slug in ("east", "west"):
        organization.add_project(ports, org, founder, slug, slug.title())
    organization.add_barrier(ports, org, founder, "wall", [["east"], ["west"]])
    organization.staff(
        ports, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
    )
    cap = commitments.add_commitment(
        ports,
        org,
        founder,
        commitments.AddCommitment("cap", SpendCap(limit_cents=10**9), "letter", projects=("east",)),
    )
    commitments.confirm(ports, cap.id, founder)
    return org, founder


def _agent(ports: Ports, org: str, founder: str) -> str:
    return next(p.id for p in organization.principals(ports, org, founder) if p.handle == "ledger")


async def _submit(
    ports: Ports,
    org: str,
    founder: str,
    agent: str,
    rng: random.Random,
    count: int,
    started: list[runs.RunStarted],
) -> None:
    """Start the runs a few at a time while the chaos goes on."""
    for i, reply in enumerate(_tasks(rng, count)):
        while True:
            try:
                started.append(
                    await runs.start_run(
                        ports,
                        org,
                        founder,
                        runs.StartRun(
                            agent, f"chaos {i}", scripted_reply=reply, client_key=f"k{i}"
                        ),
                    )
                )
                break
            except Unavailable:  # Temporal restarting: the client key makes a retry safe
                await asyncio.sleep(0.5)
        await asyncio.sleep(rng.uniform(0.4, 1.0))


async def _keep_approving(
    ports: Ports, store: Store, org: str, founder: str, report: ChaosReport
) -> None:
    """The founder, at the console for the whole run. A click that fails (the database
    slow to answer on a busy machine, Temporal restarting) is clicked again next round, as
    a person would: the approver must outlive any one failure, or a held run would wait
    for a decision nobody is left to make."""
    while True:
        try:
            await _approve_holds(ports, store, org, founder, report.approver_saw)
        except Exception as exc:  # noqa: BLE001 - reported, then tried again
            report.approver_retries += 1
            if report.approver_retries <= 3:
                report.notes.append(f"an approval round failed, tried again: {exc!r:.200}")
        await asyncio.sleep(0.5)


async def _approve_holds(
    ports: Ports, store: Store, org: str, founder: str, saw: dict[str, str]
) -> None:
    """The founder approves every hold a human may release (not the collisions), and
    notes in ``saw`` what became of each. A repeat of an invoice another run paid is
    approved on purpose too (``again``): the harness is an approver who says yes."""
    with store.db.read() as s:
        held = list(
            s.execute(
                select(IntentRow.id).where(IntentRow.org_id == org, IntentRow.status == "hold")
            ).scalars()
        )
    for intent_id in held:
        with store.governance.unit(org, datetime.now(UTC)) as unit:
            latest = unit.latest(intent_id)
        if latest is None or "collision" in latest.rule.split("+"):
            saw[intent_id] = f"skipped: latest {latest and (latest.outcome, latest.rule)}"
            continue
        try:
            await runs.decide_hold(ports, intent_id, founder, founder, approve=True, again=True)
            saw[intent_id] = f"sent for {latest.rule} at {datetime.now(UTC):%H:%M:%S}"
        except (Unavailable, Conflict, NotFound) as exc:
            # Temporal down, or the run moved on: try again next round
            saw[intent_id] = f"not sent: {exc!r:.200}"


async def _statuses(client: Client, started: list[runs.RunStarted]) -> list[object]:
    out = []
    for run in started:
        try:
            out.append((await client.get_workflow_handle(run.workflow_id).describe()).status)
        except Exception:  # noqa: BLE001 - Temporal restarting: not terminal yet
            out.append(None)
    return out


async def _count_terminal(client: Client, started: list[runs.RunStarted]) -> int:
    running = {None, WorkflowExecutionStatus.RUNNING}
    return sum(1 for s in await _statuses(client, started) if s not in running)


def _restart_temporal(settings: Settings, server: object) -> object:
    devserver.stop(settings, server)  # type: ignore[arg-type]
    time.sleep(1.0)
    return devserver.start(settings)


def main() -> None:
    url = os.environ.get("VERLETICA_TEST_POSTGRES_URL")
    if not url:
        raise SystemExit("set VERLETICA_TEST_POSTGRES_URL (a PostgreSQL server to create a db in)")
    runs_count = int(os.environ.get("CHAOS_RUNS", "30"))
    report = asyncio.run(run_chaos(url, runs_count=runs_count, seed=None))
    render(report, Console())
    raise SystemExit(0 if report.sound else 1)


if __name__ == "__main__":
    main()
