"""Helpers the tests share: the keys and settings every test process uses, the ports as a
test wires them and the firm it onboards, waiting until something is so, racing calls on
threads, a payment intent, a decision signed as the API signs it, and running a workflow to
its end on the time-skipping test server."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import signal
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, overload

import uvicorn
from fastapi import FastAPI
from temporalio.client import (
    Client,
    ScheduleActionStartWorkflow,
    ScheduleDescription,
    ScheduleHandle,
    WorkflowExecutionStatus,
)
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment

from adapters.ingress.local_issuer import LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.store.store import Store
from adapters.temporal.heartbeat import SCHEDULE_ID as HEARTBEAT_SCHEDULE
from adapters.temporal.learning import SCHEDULE_ID as LEARNING_SCHEDULE
from adapters.temporal.notices import SCHEDULE_ID as NOTICES_SCHEDULE
from adapters.temporal.relay import SCHEDULE_ID as RELAY_SCHEDULE
from domain.audit.chain import ChainKey, ChainKeys
from domain.governance.approvals import ApprovalKey, ApprovalKeys, sign
from domain.governance.intents import (
    ApprovalRequest,
    ApprovalVerdict,
    Decision,
    Intent,
    held_decision,
)
from domain.governance.ports import GovernanceStore
from domain.governance.review import decided
from domain.organization.kinds import DestinationKind, StaffRole
from domain.runs.run import RunState
from tests.fakes.governance import FIRM_DESTINATIONS, FIRM_PAYEE, TEST_PAYEES
from usecases import destinations, memory, organization
from usecases.context import Ports
from usecases.organization import Onboarded
from worker.__main__ import serve
from worker.ports import build_ports
from worker.settings import Settings
from workflows.runs import AgentRunWorkflow

T = TypeVar("T")


_PAYEES = itertools.count()


def next_payee() -> str:
    """The next of :data:`TEST_PAYEES` (established in every test firm), in turn: a test's
    payments go to different vendors unless it makes more than 32 of them."""
    return TEST_PAYEES[next(_PAYEES) % len(TEST_PAYEES)]


def establish_test_payees(svc: Ports, org: str, founder: str, projects: Sequence[str]) -> None:
    """Establish the test vendors on ``projects`` of an organization a test founded itself."""
    destinations.establish_all(
        svc,
        org,
        founder,
        [
            destinations.Establish(project, DestinationKind.PAYEE, payee)
            for project in projects
            for payee in (FIRM_PAYEE, *TEST_PAYEES)
        ],
    )


def payment_intent(
    org: str,
    agent: str,
    amount: int,
    invoice: str | None = None,
    run_id: str | None = None,
) -> Intent:
    """A payment on project ``east`` (a fresh invoice unless one is named), to the next of
    the firm's established vendors (:func:`next_payee`)."""
    invoice = invoice or f"INV-{uuid.uuid4().hex[:6]}"
    return Intent(
        id=str(uuid.uuid4()),
        org_id=org,
        run_id=run_id or f"run-{uuid.uuid4().hex[:8]}",
        principal_id=agent,
        tool="payments.pay",
        projects=("east",),
        cost_cents=amount,
        justification="due",
        payload={
            "payee": next_payee(),
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
    )


def model_reply(*actions: dict[str, Any]) -> str:
    """The model's reply proposing ``actions`` (for the scripted provider)."""
    return json.dumps({"summary": "s", "actions": list(actions)})


def pay_action(invoice: str, amount: int = 200_000) -> dict[str, Any]:
    """A proposed payment on project ``east``, to the next of the firm's vendors."""
    return {
        "tool": "payments.pay",
        "projects": ["east"],
        "cost_cents": amount,
        "justification": "due",
        "payload": {
            "payee": next_payee(),
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
    }


EMAIL_ACTION: dict[str, Any] = {
    "tool": "email.send",
    "projects": ["east"],
    "cost_cents": 0,
    "justification": "j",
    "payload": {"to": "cfo@client.example", "subject": "s", "body": "b"},
}
"""A proposed email on project ``east``."""

TEST_APPROVAL_KEY = bytes(range(100, 132))
"""The approval key every test process uses."""
APPROVAL_KEYS = ApprovalKeys(current=ApprovalKey(TEST_APPROVAL_KEY))
"""The approval keys of tests that call the broker's review directly."""

TEST_KEYS = ChainKeys(current=ChainKey(bytes(range(32))))
"""The audit key every test process uses (worker subprocesses get it by environment)."""
TEST_DATA_DIR = tempfile.mkdtemp(prefix="verletica-test-")
"""Where test settings keep key files: never the checkout's own ``.verletica``."""
TEST_ISSUER = LocalIssuer.generate("https://id.harborvale-test.example")
"""The OIDC issuer of the tests' people; the API verifies its tokens by its key set."""
TEST_AUDIENCE = "verletica-test"


def test_tokens() -> OidcVerifier:
    """The verifier of :data:`TEST_ISSUER`'s tokens, as the API builds one from settings."""
    return OidcVerifier(TEST_ISSUER.issuer, TEST_AUDIENCE, KeySet(StaticKeys(TEST_ISSUER.jwks())))


class StaticKeys:
    """A key set known in advance (an issuer whose JWKS a test holds)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def fetch(self) -> dict[str, Any]:
        return self.document


def utc_now() -> datetime:
    return datetime.now(UTC)


def make_settings(**overrides: object) -> Settings:
    """Settings for a test: its own task queue, the scripted provider unless told."""
    values: dict[str, object] = {
        "task_queue": f"tq-{uuid.uuid4()}",
        "model_provider": "scripted",
        "embedder": "local",
        "audit_key": TEST_KEYS.current.secret.hex(),
        "approval_key": TEST_APPROVAL_KEY.hex(),
        "data_dir": TEST_DATA_DIR,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Wired(Ports):
    """The ports as a test wires them, with the store and settings they were built from."""

    store: Store | None = None
    settings: Settings | None = None


def wire(
    store: Store, client: Client | None, settings: Settings, clock: Callable[[], datetime] = utc_now
) -> Wired:
    """The use cases' ports over ``store`` and ``client`` (None: no Temporal)."""
    base = replace(build_ports(store, client, settings, clock), tokens=test_tokens())
    return Wired(
        **{f.name: getattr(base, f.name) for f in fields(Ports)}, store=store, settings=settings
    )


class Firm:
    """An onboarded firm: east and west behind a wall, staffed as in the showcase."""

    def __init__(self, svc: Ports) -> None:
        self.svc = svc
        self.onboarded: Onboarded = organization.onboard(
            svc, "Harbor & Vale", "ada@hv.example", "Ada"
        )
        self.org = self.onboarded.org.id
        self.founder = self.onboarded.founder.id
        self.agents = {a.handle: a.id for a in self.onboarded.agents}
        organization.add_project(svc, self.org, self.founder, "east", "Atlas")
        organization.add_project(svc, self.org, self.founder, "west", "Birch")
        organization.add_barrier(svc, self.org, self.founder, "wall", [["east"], ["west"]])
        self.associate = organization.add_human(
            svc, self.org, self.founder, "ben@hv.example", "Ben"
        ).id
        for who, project in (("orion", "east"), ("vega", "west"), ("ledger", "east")):
            organization.staff(
                svc,
                self.org,
                self.founder,
                organization.AssignStaff(self.agents[who], project, StaffRole.MEMBER),
            )
        organization.staff(
            svc,
            self.org,
            self.founder,
            organization.AssignStaff(self.associate, "east", StaffRole.MEMBER),
        )
        memory.remember(
            svc,
            self.org,
            self.founder,
            memory.Remember("birch-cim", ("west",), "Birch CIM projections"),
        )
        memory.remember(
            svc,
            self.org,
            self.founder,
            memory.Remember("atlas-kickoff", ("east",), "Atlas kickoff notes"),
        )
        destinations.establish_all(
            svc,
            self.org,
            self.founder,
            [destinations.Establish(p, kind, value) for p, kind, value in FIRM_DESTINATIONS],
        )


def signed(
    intent: Intent,
    approver_id: str,
    verdict: ApprovalVerdict = ApprovalVerdict.APPROVE,
    *,
    run_id: str | None = None,
    now: datetime,
    keys: ApprovalKeys = APPROVAL_KEYS,
    hold: Decision | None = None,
    store: GovernanceStore | None = None,
) -> ApprovalRequest:
    """A decision on ``intent`` with the proof the API would sign for run ``run_id``
    (the intent's own run unless told), answering the hold ``hold``, or the intent's
    newest decision in ``store`` (as the API reads it); with neither, it names no hold."""
    if hold is None and store is not None:
        with store.unit(intent.org_id, now) as unit:
            hold = unit.latest(intent.id)
    request = ApprovalRequest(
        intent_id=intent.id,
        approver_id=approver_id,
        verdict=verdict,
        intent_digest=intent.digest,
        hold=None if hold is None else held_decision(hold),
    )
    proof = sign(keys, decided(request, run_id or intent.run_id), now)
    return request.model_copy(update={"proof": proof})


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` on their own threads, released together; results or exceptions."""
    results: list[Any] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def work(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except Exception as exc:  # noqa: BLE001 - a refusal is a result here
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@overload
async def until(
    condition: Callable[[], Awaitable[T]],
    *,
    accept: Callable[[T], object] = ...,
    timeout: float = ...,
    interval: float = ...,
    what: str,
) -> T: ...
@overload
async def until(
    condition: Callable[[], T],
    *,
    accept: Callable[[T], object] = ...,
    timeout: float = ...,
    interval: float = ...,
    what: str,
) -> T: ...
async def until(
    condition: Callable[[], Any],
    *,
    accept: Callable[[Any], object] = bool,
    timeout: float = 60,
    interval: float = 0.1,
    what: str,
) -> Any:
    """The first value of ``condition`` (a function, sync or async) that ``accept`` takes
    (by default: the first truthy one), asking every ``interval`` seconds; after
    ``timeout`` seconds an AssertionError names ``what`` and the last value seen.

    Timeouts are generous: on a loaded machine a durable system is slower, not wrong."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if accept(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(_not_seen(what, timeout, value))
        await asyncio.sleep(interval)


def until_sync(
    condition: Callable[[], T],
    *,
    accept: Callable[[T], object] = bool,
    timeout: float = 60,
    interval: float = 0.1,
    what: str,
) -> T:
    """:func:`until` for code with no event loop (subprocesses, servers in threads)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if accept(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(_not_seen(what, timeout, value))
        time.sleep(interval)


def _not_seen(what: str, timeout: float, value: object) -> str:
    shown = repr(value)
    if len(shown) > 3000:  # a log read whole: its end says why
        shown = "..." + shown[-3000:]
    return f"{what}: not within {timeout:g} s; last seen: {shown}"


async def skip_to_the_end(
    env: WorkflowEnvironment, workflow_id: str, step: timedelta = timedelta(seconds=30)
) -> RunState:
    """Let a run finish on the time-skipping server, moving its clock ``step`` at a time
    (timers and retry back-offs take no real time), and return its final state."""
    handle = env.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
    for _ in range(2_000):
        description = await handle.describe()
        if description.status is not WorkflowExecutionStatus.RUNNING:
            break
        await env.sleep(step)
    return await handle.result()


async def schedule_on(handle: ScheduleHandle, task_queue: str) -> ScheduleDescription:
    """The Schedule behind ``handle`` once a worker has made it start workflows on
    ``task_queue`` (it may not exist yet, or still name another queue)."""

    async def described() -> ScheduleDescription | None:
        with contextlib.suppress(RPCError):  # not made yet
            return await handle.describe()
        return None

    def on_queue(described: ScheduleDescription | None) -> bool:
        action = None if described is None else described.schedule.action
        return isinstance(action, ScheduleActionStartWorkflow) and action.task_queue == task_queue

    found = await until(
        described, accept=on_queue, timeout=120, what=f"the Schedule starts on {task_queue}"
    )
    assert found is not None
    return found


@asynccontextmanager
async def serving(settings: Settings, client: Client) -> AsyncIterator[None]:
    """A worker started as ``verletica worker`` starts one (:func:`worker.__main__.serve`);
    on exit it is stopped, its signal handlers removed and every Schedule it made sure of
    deleted from the shared dev server."""
    worker = asyncio.create_task(serve(settings))
    try:
        yield
    finally:
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        for schedule in (HEARTBEAT_SCHEDULE, LEARNING_SCHEDULE, RELAY_SCHEDULE, NOTICES_SCHEDULE):
            with contextlib.suppress(RPCError):
                await client.get_schedule_handle(schedule).delete()


def free_port() -> int:
    """A free TCP port on this machine's loopback address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """An ASGI app served by uvicorn on a loopback port, in a thread."""

    def __init__(self, app: FastAPI, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        # A page left open on a live stream (server-sent events) would keep the server
        # from stopping until the join below gave up: close what is still open after 1 s.
        config = uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        until_sync(lambda: self.server.started, timeout=60, interval=0.05, what=f"{self.url} up")
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
