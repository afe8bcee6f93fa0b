"""The HTTP API. Every route that acts or reads an organization's data takes its
principal from a proof (a bearer ID token, a Slack or Teams signature), checked by the
front door in :mod:`usecases.ingress`; see ``api/http/deps.py``."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from temporalio.service import RPCError

from adapters.tracing import install, tracer_provider
from api.console import routes as console
from api.http.deps import DEV_HEADER, is_loopback
from api.http.limits import MAX_BODY_BYTES, BodyLimits
from api.http.routers import (
    audit,
    channels,
    commitments,
    counterfactual,
    deliberation,
    destinations,
    fleet,
    heartbeat,
    ingress,
    learning,
    memory,
    needs_you,
    offers,
    organization,
    runs,
    work_graph,
)
from api.refusals import LONG_WORD, REFUSALS, brief, refusal_text
from domain.ingress import Unauthenticated
from domain.text import NUL
from usecases.context import Ports
from worker.ports import build_ports, open_store
from worker.settings import Settings
from worker.temporal import connect

CONSOLE_STATIC = Path(__file__).parents[1] / "console" / "static"

__all__ = ["MAX_BODY_BYTES", "create_app"]

log = logging.getLogger("verletica.api")

API_PREFIX = "/v1"
"""The version every API route lives under; routers name their paths without it."""
ECHO_LIMIT = 200
"""The most of a refused input that a 422 repeats back, in characters."""


def _brief(value: Any) -> Any:
    """``value`` as the client sent it, or the start of it when it is long."""
    text = str(jsonable_encoder(value))
    if len(text) <= ECHO_LIMIT:
        return value
    return f"{text[:ECHO_LIMIT]}… ({len(text)} characters in all)"


async def _invalid(_: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422, but repeating at most the start of each refused input."""
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        error = dict(error)
        if "input" in error:
            error["input"] = _brief(error["input"])
        # an unknown field's name and a message can repeat what was sent, too
        error["loc"] = [brief(p, LONG_WORD) if isinstance(p, str) else p for p in error["loc"]]
        error["msg"] = brief(str(error.get("msg", "")).removeprefix("Value error, "))
        error.pop("ctx", None)
        error.pop("url", None)
        errors.append(error)
    return JSONResponse(status_code=422, content={"detail": jsonable_encoder(errors)})


async def _unauthenticated(_: Request, exc: Exception) -> JSONResponse:
    """401 with a machine-readable reason; never the token or secret refused."""
    assert isinstance(exc, Unauthenticated)
    return JSONResponse(
        status_code=401,
        content={"reason": exc.reason.value, "detail": exc.detail},
        headers={"WWW-Authenticate": f'Bearer error="invalid_token", reason="{exc.reason.value}"'},
    )


def refuse_nul(request: Request) -> None:
    """No path segment, query value or header may carry a NUL character (U+0000)."""
    for where, items in (
        ("path", request.path_params.items()),
        ("query", request.query_params.multi_items()),
        ("header", request.headers.items()),
    ):
        for name, value in items:
            if NUL in str(value):
                raise RequestValidationError(
                    [
                        {
                            "type": "value_error",
                            "loc": (where, name),
                            "msg": f"{where} {name} contains a NUL character (U+0000), "
                            "which is not allowed",
                            "input": _brief(value),
                        }
                    ]
                )


def _announce(ports: Ports, settings: Settings | None) -> None:
    """Say, loudly, how this API proves who is asking; refuse the development header on
    an address other machines can reach."""
    if ports.dev_principal_header:
        host = settings.api_host if settings is not None else "127.0.0.1"
        if not is_loopback(host):
            raise RuntimeError(
                f"VERLETICA_DEV_PRINCIPAL_HEADER is set and the API binds {host}: the "
                f"{DEV_HEADER} header would let anyone who reaches it act as anyone. "
                "Bind a loopback address, or configure an OIDC issuer instead."
            )
        log.warning(
            "DEVELOPMENT MODE: the %s header names the acting principal, unproven. "
            "Never run like this where anyone else can reach the API.",
            DEV_HEADER,
        )
    if ports.tokens is None:
        log.warning(
            "no OIDC issuer is configured (VERLETICA_OIDC_*): no bearer token proves "
            "anyone, and only the development header, if enabled, names a principal"
        )


CONSOLE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; "
    "form-action 'self'; base-uri 'none'; object-src 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""Headers on every console response."""

GC_THRESHOLDS = (50_000, 20, 100)
"""Python's collector, tuned for a server: a page of the needs-you queue allocates
hundreds of thousands of short-lived objects, and with the default thresholds (700, 10,
10) a full collection every few requests scanned every long-lived one (the caches, the
embedder's tables): 250-350 ms pauses at 1,000 queue items (``make bench``)."""


def tune_gc() -> None:
    """Move what start-up built out of the collector's sight and collect less often: the
    API process calls it once its ports are built."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(settings: Settings | None = None, ports: Ports | None = None) -> FastAPI:
    """Build the app; ``ports`` may be injected (tests), else built in the lifespan."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if ports is not None:
            app.state.ports = ports
            _announce(ports, settings)
            yield
            return
        conf = settings or Settings()
        store = open_store(conf)
        # The runs this process starts are the roots of their traces (the worker's spans
        # nest under them): traced as the worker is, through the same allowlist.
        provider = tracer_provider(conf.tracing, "verletica-api", conf.otlp_endpoint)
        install(provider)
        client = await connect(conf, provider)
        app.state.ports = build_ports(store, client, conf)
        _announce(app.state.ports, conf)
        tune_gc()
        yield
        store.close()
        if provider is not None:
            provider.shutdown()

    app = FastAPI(
        title="Verletica",
        version="0.1.0",
        lifespan=lifespan,
        dependencies=[Depends(refuse_nul)],
    )
    app.add_middleware(BodyLimits)

    def error(status: int) -> Any:
        async def handler(_: Request, exc: Exception) -> JSONResponse:
            # refusal_text: at most 200 characters, never pydantic's internals
            return JSONResponse(status_code=status, content={"detail": refusal_text(exc)})

        return handler

    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(Unauthenticated, _unauthenticated)
    for kind, answer in REFUSALS.items():
        app.add_exception_handler(kind, error(answer.status))
    app.add_exception_handler(RPCError, error(503))
    for router in (
        organization.router,
        destinations.router,
        commitments.router,
        runs.router,
        audit.router,
        memory.router,
        ingress.router,
        channels.router,
        heartbeat.router,
        learning.router,
        needs_you.router,
        counterfactual.router,
        offers.router,
        fleet.router,
        work_graph.router,
        deliberation.router,
    ):
        app.include_router(router, prefix=API_PREFIX)

    @app.middleware("http")
    async def console_headers(request: Request, call_next: Any) -> Any:
        """The console's pages: never cached (a page read after sign-out stays unread),
        never framed, scripts and styles only from the console itself."""
        response = await call_next(request)
        if request.url.path.startswith("/console/"):
            response.headers.update(CONSOLE_HEADERS)
            if not request.url.path.startswith("/console/static/"):
                response.headers["Cache-Control"] = "no-store"
        return response

    app.include_router(console.router)
    app.mount("/console/static", StaticFiles(directory=CONSOLE_STATIC), name="console-static")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/console/", status_code=303)

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return app
