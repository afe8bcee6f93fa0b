"""The web console's pages with a long needs-you queue: server time of each page, in
process (an HTTP request through the whole app: the session read, the person proven
through the front door, the use case, the template), against the same queue as JSON
from the API (the use case without a page).

The queue holds ``items`` extracted commitments awaiting confirmation (every one an
item with its evidence and two actions) and a held payment; the organization's chain
holds their entries.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace

from fastapi.testclient import TestClient

from adapters.ingress.local_issuer import LOCAL_AUDIENCE, LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.store.store import Store
from api.console import session as cookies
from api.http.app import create_app, tune_gc
from bench.stack import bench_keys
from domain.ingress import ConsoleSignIn
from domain.organization.contracts import Identity, SpendCap
from domain.organization.kinds import IdentityKind
from usecases import commitments, organization
from worker.ports import build_ports
from worker.settings import Settings

PAGES = (
    "/console/queue",
    "/console/queue?partial=1",
    "/console/workspace",
    "/console/audit",
    "/console/metrics",
    "/console/runs",
)


class _Keys:
    def __init__(self, document: dict[str, object]) -> None:
        self.document = document

    def fetch(self) -> dict[str, object]:
        return self.document


@dataclass(frozen=True)
class PageFigures:
    """Server time per page (median and p95 of ``requests``), and the JSON queue's."""

    items: int
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


def measure(url: str, items: int = 1000, requests: int = 20) -> PageFigures:
    """Build the organization, then time each page ``requests`` times."""
    issuer = LocalIssuer.generate("http://127.0.0.1:9")
    settings = Settings(database_url=url, environment="development")
    store = Store.open(url, bench_keys(), migrate_schema=False)
    try:
        ports = replace(
            build_ports(store, None, settings),
            tokens=OidcVerifier(issuer.issuer, LOCAL_AUDIENCE, KeySet(_Keys(issuer.jwks()))),
            console=ConsoleSignIn(
                issuer=issuer.issuer, client_id=LOCAL_AUDIENCE, session_key=bytes(32)
            ),
            budgets=None,
        )
        made = organization.onboard(ports, "Bench & Co", "ada@bench.example", "Ada")
        org, founder = made.org.id, made.founder.id
        organization.add_project(ports, org, founder, "east", "East")
        with ports.configuration.change(org, founder, ports.clock) as change:
            change.link_identity(
                Identity(
                    org_id=org,
                    kind=IdentityKind.OIDC,
                    external_id="ada@bench.example",
                    principal_id=founder,
                )
            )
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
        token = issuer.mint("ada@bench.example", LOCAL_AUDIENCE, seconds=24 * 3600)
        app = create_app(settings, ports)
        tune_gc()  # as the API process does once it has started
        with TestClient(app, base_url="http://127.0.0.1") as client:
            found = cookies.Session(
                id_token=token,
                subject="ada@bench.example",
                principal_id=founder,
                org_id=org,
                csrf="x",
                expires_at=int(time.time()) + 24 * 3600,
            )
            value = cookies._signer(bytes(32), "session").dumps(found.model_dump())
            client.cookies.set(cookies.SESSION_COOKIE, value, path="/console")
            p50: dict[str, float] = {}
            p95: dict[str, float] = {}
            for path in PAGES:
                _timed(client, path, 2)  # warm: templates compiled, caches filled
                took = _timed(client, path, requests)
                p50[path], p95[path] = statistics.median(took), _p95(took)
            headers = {"Authorization": f"Bearer {token}"}
            api = f"/v1/orgs/{org}/needs-you"
            _timed(client, api, 2, headers=headers)
            json_took = _timed(client, api, requests, headers=headers)
        return PageFigures(
            items=items,
            p50_ms=p50,
            p95_ms=p95,
            json_p50_ms=statistics.median(json_took),
            json_p95_ms=_p95(json_took),
        )
    finally:
        store.close()
