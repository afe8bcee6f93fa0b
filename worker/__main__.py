"""``python -m worker``: run one worker until interrupted."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from datetime import timedelta

from temporalio.client import Client

from adapters.memory.backends import BackendRefused
from adapters.temporal.audit_anchor import ensure_anchor
from adapters.temporal.heartbeat import ensure_schedule
from adapters.temporal.learning import ensure_learning_schedule
from adapters.temporal.notices import ensure_notices_schedule
from adapters.temporal.relay import ensure_relay_schedule
from adapters.tracing import install, tracer_provider
from domain.errors import Unavailable
from worker.bootstrap import build_notifiers, build_worker
from worker.bytecode import keep_bytecode
from worker.ports import open_store
from worker.settings import Settings
from worker.temporal import connect, patiently

log = logging.getLogger("verletica.worker")


async def serve(settings: Settings) -> None:
    """Connect, verify the audit chains, make sure the heartbeat is scheduled, and poll
    the task queue until SIGINT/SIGTERM."""
    store = open_store(settings)
    client = await connect(settings)
    provider = tracer_provider(settings.tracing, "verletica-worker", settings.otlp_endpoint)
    install(provider)
    worker = build_worker(client, settings, store, tracer=provider)
    await patiently(settings, "schedules", lambda: _schedules(client, settings))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("worker polling %s on %s", settings.task_queue, settings.temporal_address)
    async with worker:
        await stop.wait()
    store.close()
    if provider is not None:
        provider.shutdown()


async def _schedules(client: Client, settings: Settings) -> None:
    """Every worker makes sure the heartbeat's Schedule (and the learning pass's, the
    relay's when SMTP is set, the notices' when a channel is) exists with the configured
    interval, and that the audit anchor runs: idempotent, the first creates them and the
    others find them."""
    await ensure_schedule(
        client, settings.task_queue, timedelta(seconds=settings.heartbeat_seconds)
    )
    await ensure_learning_schedule(
        client, settings.task_queue, timedelta(seconds=settings.learning_seconds)
    )
    if settings.smtp_host is not None:
        await ensure_relay_schedule(
            client, settings.task_queue, timedelta(seconds=settings.relay_seconds)
        )
    await ensure_anchor(client, settings.task_queue, timedelta(seconds=settings.anchor_seconds))
    if build_notifiers(settings):
        await ensure_notices_schedule(
            client, settings.task_queue, timedelta(seconds=settings.notices_seconds)
        )


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = Settings()
    keep_bytecode(settings.data_dir)
    try:
        asyncio.run(serve(settings))
    except (BackendRefused, Unavailable) as exc:
        log.error("%s", exc)
        logging.shutdown()
        sys.stdout.flush()
        # The SDK's native threads (a refused connection's) may still be about; letting
        # the interpreter finalise around them can abort it (SIGABRT, "PyGILState_Release")
        # and lose the exit code, so leave at once with ours.
        os._exit(2)


if __name__ == "__main__":
    main()
