"""The web console's pages with a long needs-you queue: server time of each page, in
process (an HTTP request through the whole app: the session read, the person proven
through the front door, the use case, the template), against the same queue as JSON
from the API (the use case without a page).

The queue holds ``items`` extracted commitments awaiting confirmation (every one an
item with its evidence and two actions); the organization holds ``runs`` runs, one in
ten with a payment the broker decided (let through, or refused over the budget), and
the chain holds all their entries. Temporal is not reached (the runs list says what
the record knows).
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpx
import uvicorn
from fastapi.testclient import TestClient

from adapters.ingress.local_issuer import LOCAL_AUDIENCE, LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.store.store import Store
from api.console import session as cookies
from api.http.app import create_app, tune_gc
from bench.stack import bench_keys
from domain.governance.intents import Intent, Outcome
from domain.ingress import ConsoleSignIn
from domain.organization.contracts import Identity, SpendCap
from domain.organization.kinds import IdentityKind, StaffRole
from domain.runs.run import RunRecord, RunState
from usecases import commitments, governance, memory, organization
from usecases.context import Ports
from worker.ports import build_ports
from worker.settings import Settings

PAGES = (
    "/console/queue",
    "/console/queue?partial=1",
    "/console/workspace",
    "/console/audit",
    "/console/metrics",
    "/console/runs",
    "/console/runs?outcome=refused&q=invoice",
    "/console/agents",
    "/console/decided",
    "/console/memory?q=kickoff notes",
    "/console/intents/{held}",
)
"""The pages timed; ``{held}`` is a payment the broker held for a person."""


class _Keys:
    def __init__(self, document: dict[str, object]) -> None:
        self.document = document

    def fetch(self) -> dict[str, object]:
        return self.document


@dataclass(frozen=True)
class PageFigures:
    """Server time per page (median and p95 of ``requests``), and the JSON queue's."""

    items: int
    runs: int
    p50_ms: dict[str, float]
    p95_ms: dict[str, float]
    json_p50_ms: float
    json_p95_ms: float


def _timed(client: TestClient, path: str, requests: int, **kwargs: object) -> list[float]:
    took = []
    for _ in range(requests):
        started = time.perf_counter()
        answer = client.get(path, **kwargs)  # type: ignore[arg-type]
        took.append((time.perf_counter() - started) * 1000)
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:200]}")
    return took


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(int(len(ordered) * 0.95) - 1, 0)]


def _runs(ports: Ports, store: Store, org: str, founder: str, ledger: str, count: int) -> None:
    """``count`` runs of Ledger's, one in ten with a payment the broker decided."""
    now = ports.clock()
    for i in range(count):
        run_id = f"bench-run-{i}"
        store.runs.create(
            RunRecord(
                id=run_id,
                org_id=org,
                agent_id=ledger,
                task=f"Pay invoice B-{i} for the east engagement",
                workflow_id=f"run-ledger-{run_id}",
                started_by=founder,
                projects=("east",),
                created_at=now,
            )
        )
        if i % 10 == 0:
            amount = 5_000 if i % 20 else 90_000_000  # the second: over any run's budget
            governance.decide(
                store.governance, payment_intent(org, ledger, amount, run_id), ports.clock()
            )


def payment_intent(org: str, agent: str, amount: int, run_id: str) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=org,
        run_id=run_id,
        principal_id=agent,
        tool="payments.pay",
        projects=("east",),
        cost_cents=amount,
        justification="due",
        requested_by=None,
        payload={
            "payee": "Northwind",
            "invoice": run_id,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
    )


@dataclass(frozen=True)
class _Firm:
    """A founded firm for the bench: its ports, its founder signed in (the ID token and
    the console's session cookie), Ledger staffed on East."""

    settings: Settings
    store: Store
    ports: Ports
    org: str
    founder: str
    ledger: str
    token: str
    session: str


@contextmanager
def _firm(url: str, name: str, email: str, **ports: Any) -> Iterator[_Firm]:
    """Found ``name`` on ``url`` with ``email`` as its founder (``ports`` replace those
    the worker would build); the store is closed after."""
    issuer = LocalIssuer.generate("http://127.0.0.1:9")
    settings = Settings(database_url=url, environment="development")
    store = Store.open(url, bench_keys(), migrate_schema=False)
    try:
        built = replace(
            build_ports(store, None, settings),
            tokens=OidcVerifier(issuer.issuer, LOCAL_AUDIENCE, KeySet(_Keys(issuer.jwks()))),
            console=ConsoleSignIn(
                issuer=issuer.issuer, client_id=LOCAL_AUDIENCE, session_key=bytes(32)
            ),
            budgets=None,
            **ports,
        )
        made = organization.onboard(built, name, email, "Ada")
        org, founder = made.org.id, made.founder.id
        organization.add_project(built, org, founder, "east", "East")
        with built.configuration.change(org, founder, built.clock) as change:
            change.link_identity(
                Identity(
                    org_id=org, kind=IdentityKind.OIDC, external_id=email, principal_id=founder
                )
            )
        ledger = next(a.id for a in made.agents if a.handle == "ledger")
        organization.staff(
            built, org, founder, organization.AssignStaff(ledger, "east", StaffRole.MEMBER)
        )
        token = issuer.mint(email, LOCAL_AUDIENCE, seconds=24 * 3600)
        found = cookies.Session(
            id_token=token,
            subject=email,
            principal_id=founder,
            org_id=org,
            csrf="x",
            expires_at=int(time.time()) + 24 * 3600,
        )
        session = cookies._signer(bytes(32), "session").dumps(found.model_dump())
        yield _Firm(settings, store, built, org, founder, ledger, token, session)
    finally:
        store.close()


def measure(url: str, items: int = 1000, requests: int = 20, runs: int = 10_000) -> PageFigures:
    """Build the organization, then time each page ``requests`` times."""
    with _firm(url, "Bench & Co", "ada@bench.example") as firm:
        ports, org, founder = firm.ports, firm.org, firm.founder
        memory.remember(
            ports, org, founder, memory.Remember("kickoff", ("east",), "East kickoff notes")
        )
        _runs(ports, firm.store, org, founder, firm.ledger, runs)
        held = payment_intent(org, firm.ledger, 250_000, "bench-run-1")  # over $1,000: held
        decided = governance.decide(firm.store.governance, held, ports.clock())
        assert decided.outcome is Outcome.HOLD, decided
        for i in range(items):
            commitments.add_commitment(
                ports,
                org,
                founder,
                commitments.AddCommitment(
                    f"cap {i}",
                    SpendCap(limit_cents=100_000 + i, currency="USD"),
                    "engagement letter",
                    projects=("east",),
                ),
            )
        app = create_app(firm.settings, ports)
        tune_gc()  # as the API process does once it has started
        with TestClient(app, base_url="http://127.0.0.1") as client:
            client.cookies.set(cookies.SESSION_COOKIE, firm.session, path="/console")
            p50: dict[str, float] = {}
            p95: dict[str, float] = {}
            for path in PAGES:
                page = path.format(held=held.id)
                _timed(client, page, 2)  # warm: templates compiled, caches filled
                took = _timed(client, page, requests)
                p50[path], p95[path] = statistics.median(took), _p95(took)
            headers = {"Authorization": f"Bearer {firm.token}"}
            api = f"/v1/orgs/{org}/needs-you"
            _timed(client, api, 2, headers=headers)
            json_took = _timed(client, api, requests, headers=headers)
        return PageFigures(
            items=items,
            runs=runs,
            p50_ms=p50,
            p95_ms=p95,
            json_p50_ms=statistics.median(json_took),
            json_p95_ms=_p95(json_took),
        )


class _Gateway:
    """A run gateway whose one run's state the bench changes by hand (no Temporal): what
    an open run page is told, and when."""

    def __init__(self) -> None:
        self.summary = "0"

    async def state(self, workflow_id: str) -> tuple[str, RunState | None]:
        return "running", RunState(run_id=workflow_id, summary=self.summary)

    async def statuses(self, workflow_ids: Sequence[str]) -> dict[str, str]:
        return {}

    def ui_url(self, workflow_id: str) -> str:
        return f"http://ui/{workflow_id}"


@dataclass(frozen=True)
class LiveFigures:
    """How long after its run changed an open run page was told (server-sent event
    received), and how long the whole page takes to load, median and p95."""

    p50_ms: float
    p95_ms: float
    page_p50_ms: float
    page_p95_ms: float


def live_latency(url: str, changes: int = 20) -> LiveFigures:
    """Serve the app on a loopback port, open a run page's event stream as a browser
    does, change the run ``changes`` times and time each change's arrival."""
    gateway = _Gateway()
    with _firm(url, "Live & Co", "ada@live.example", gateway=gateway) as firm:
        _runs(firm.ports, firm.store, firm.org, firm.founder, firm.ledger, 1)
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(firm.settings, firm.ports), host="127.0.0.1", port=0, log_level="error"
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}/console/runs/bench-run-0"
        jar = {cookies.SESSION_COOKIE: firm.session}
        took: list[float] = []
        pages: list[float] = []
        try:
            with httpx.Client(cookies=jar, timeout=30) as http:
                for _ in range(changes):
                    started = time.perf_counter()
                    http.get(base).raise_for_status()
                    pages.append((time.perf_counter() - started) * 1000)
                with http.stream("GET", f"{base}/live") as stream:
                    lines = stream.iter_lines()
                    _next_event(lines)  # the page as it is when opened
                    for i in range(changes):
                        time.sleep(0.13 * (i % 4))  # changes fall anywhere between looks
                        gateway.summary = str(i + 1)
                        changed = time.perf_counter()
                        _next_event(lines)
                        took.append((time.perf_counter() - changed) * 1000)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
        return LiveFigures(
            p50_ms=statistics.median(took),
            p95_ms=_p95(took),
            page_p50_ms=statistics.median(pages),
            page_p95_ms=_p95(pages),
        )


def _next_event(lines: Iterator[str]) -> None:
    """Read up to the end of the next server-sent event."""
    seen = False
    for line in lines:
        if line.startswith("event: live"):
            seen = True
        elif seen and line == "":
            return
    raise RuntimeError("the stream ended")
