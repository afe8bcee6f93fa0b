"""The notices' activities: write what is new for every person, deliver what waits."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime

from temporalio import activity

from activities.off_loop import in_thread
from domain.errors import NotFound
from domain.notices import (
    Channel,
    NoticeOutbox,
    NoticesInput,
    NoticesReport,
    Notifier,
)
from usecases import notices
from usecases.context import Ports

log = logging.getLogger("verletica.notices")


class NoticeActivities:
    """Reads each person's queue, writes their notices, hands them to their channels."""

    def __init__(
        self,
        ports: Callable[[], Ports],
        outbox: NoticeOutbox,
        notifiers: Mapping[Channel, Notifier],
        settings: notices.NoticeSettings,
        clock: Callable[[], datetime],
    ) -> None:
        self._ports = ports
        self._ports_made: Ports | None = None
        self._outbox = outbox
        self._notifiers = notifiers
        self._settings = settings
        self._clock = clock

    def _write(self, _: NoticesInput) -> NoticesReport:
        # Made on first use: a worker that never tells anyone builds no queue readers.
        if self._ports_made is None:
            self._ports_made = self._ports()
        written: list[str] = []
        for org_id in self._outbox.orgs():
            try:
                told = notices.write(self._ports_made, self._outbox, self._settings, org_id)
                written += (n.id for n in told)
            except NotFound:  # removed while the pass ran
                log.info("organization %s is gone; no notices", org_id)
        return NoticesReport(written=tuple(written))

    def _deliver(self, request: NoticesInput) -> NoticesReport:
        attempts = notices.deliver(self._outbox, self._notifiers, self._clock, request.limit)
        return NoticesReport(attempts=tuple(attempts))

    @activity.defn(name="notices_write")
    async def write(self, request: NoticesInput) -> NoticesReport:
        """Write each person's new notices and due digests (each once, on the chain)."""
        return await in_thread(self._write, request)

    @activity.defn(name="notices_deliver")
    async def deliver(self, request: NoticesInput) -> NoticesReport:
        """One pass over the notices: delivered, given up, or tried at the next pass."""
        return await in_thread(self._deliver, request)
