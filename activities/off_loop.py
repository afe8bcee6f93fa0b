"""Run blocking work off the event loop, heartbeating while it runs.

A worker that dies mid-step is noticed by its missed heartbeats within the step's
heartbeat timeout (seconds), not when the step's whole start-to-close limit runs out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from temporalio import activity

P = ParamSpec("P")
T = TypeVar("T")

BEAT_SECONDS = 0.5


async def beating(work: Awaitable[T]) -> T:
    """Await ``work``; a regular activity heartbeats meanwhile."""
    task = asyncio.ensure_future(work)
    if activity.in_activity() and not activity.info().is_local:
        while not task.done():
            await asyncio.wait({task}, timeout=BEAT_SECONDS)
            if not task.done():
                activity.heartbeat()
    return await task


async def in_thread(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on a thread; a regular activity heartbeats meanwhile."""
    return await beating(asyncio.to_thread(fn, *args, **kwargs))
