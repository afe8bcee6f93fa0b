"""One way to build a Temporal client, used by the worker, the API, the CLI and tests."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from opentelemetry.trace import TracerProvider
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError, RPCStatusCode

from domain.errors import Unavailable
from worker.settings import Settings

T = TypeVar("T")
log = logging.getLogger("verletica.temporal")


async def make_client(settings: Settings, tracer: TracerProvider | None = None) -> Client:
    """Connect with the pydantic data converter; TLS and API key for a production cluster.
    With a ``tracer``, what the client starts and signals is traced: a run's workflow and
    every step of it become children of the span that started it (one trace per run)."""
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        tls=settings.temporal_tls or api_key is not None,
        api_key=api_key,
        interceptors=[] if tracer is None else [TracingInterceptor(tracer.get_tracer("temporal"))],
    )


def unanswered(exc: BaseException) -> bool:
    """True when ``exc`` says the server did not answer (not up yet, restarting), as
    opposed to answering no (a wrong API key, a namespace that does not exist)."""
    if isinstance(exc, RPCError):
        return exc.status is RPCStatusCode.UNAVAILABLE
    # The SDK's bridge reports a refused or dropped connection as a bare RuntimeError.
    return isinstance(exc, RuntimeError) and "connect" in str(exc).lower()


async def patiently(settings: Settings, what: str, call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, again and again while the Temporal server does not answer, for up to
    ``settings.temporal_connect_wait_seconds``: a worker or API started a moment before
    its server, or while it restarts, waits for it instead of exiting. Anything else the
    server says is raised at once; after the wait, :class:`Unavailable` says what to do."""
    deadline = time.monotonic() + settings.temporal_connect_wait_seconds
    delay = 0.25
    while True:
        try:
            return await call()
        except Exception as exc:
            if not unanswered(exc):
                raise
            if time.monotonic() + delay > deadline:
                raise Unavailable(
                    f"Temporal at {settings.temporal_address} did not answer ({what}) within "
                    f"{settings.temporal_connect_wait_seconds:g} s: start it (`verletica up`, "
                    "or `temporal server start-dev`), or set VERLETICA_TEMPORAL_ADDRESS"
                ) from exc
            log.warning(
                "Temporal at %s does not answer yet (%s); trying again in %.1f s",
                settings.temporal_address,
                what,
                delay,
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def connect(settings: Settings, tracer: TracerProvider | None = None) -> Client:
    """A client, waiting for a server that is not up yet (see :func:`patiently`)."""
    return await patiently(settings, "connect", lambda: make_client(settings, tracer))
