"""Group commit for the broker's decisions.

A decision is durable when its transaction commits, and a commit costs an fsync, which
bounds one organization to a few thousand decisions a second however fast the rest is.
Decisions that arrive while a batch is committing wait for the next batch, which decides
them all in one transaction (:func:`usecases.governance.decide_many`): one lock, one
fsync. Nothing waits on purpose: a lone decision goes at once, and batches grow only as
large as the load makes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

from domain.governance.intents import Decision, Intent

DecideMany = Callable[[Sequence[Intent], datetime], list[Decision]]

MAX_BATCH = 256
"""The most decisions one transaction holds (the organization's lock is held meanwhile)."""


class DecisionBatcher:
    """Decides intents in batches per organization, on the running event loop; every
    caller gets its own decision (or the exception its batch raised)."""

    def __init__(
        self, decide_many: DecideMany, clock: Callable[[], datetime], max_batch: int = MAX_BATCH
    ) -> None:
        self._decide_many = decide_many
        self._clock = clock
        self._max_batch = max_batch
        self._pending: dict[str, list[tuple[Intent, asyncio.Future[Decision]]]] = {}
        self._draining: dict[str, asyncio.Task[None]] = {}

    async def decide(self, intent: Intent) -> Decision:
        """``intent``'s decision, in the chain when this returns."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(intent.org_id, []).append((intent, future))
        if intent.org_id not in self._draining:
            self._draining[intent.org_id] = asyncio.create_task(self._drain(intent.org_id))
        return await future

    async def _drain(self, org_id: str) -> None:
        try:
            while pending := self._pending.pop(org_id, None):
                batch, rest = pending[: self._max_batch], pending[self._max_batch :]
                if rest:
                    self._pending[org_id] = rest + self._pending.get(org_id, [])
                await self._run(batch)
        finally:
            del self._draining[org_id]

    async def _run(self, batch: list[tuple[Intent, asyncio.Future[Decision]]]) -> None:
        intents = [intent for intent, _ in batch]
        try:
            decisions = await asyncio.to_thread(self._decide_many, intents, self._clock())
        except Exception as exc:  # every caller of the batch sees it (and retries)
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), decision in zip(batch, decisions, strict=True):
            if not future.done():  # a caller that gave up: its decision stands, recorded
                future.set_result(decision)
