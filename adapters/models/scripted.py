"""Scripted provider: the caller states the exact reply text (tests, rehearsals)."""

from __future__ import annotations

import asyncio

from domain.model_provider import ModelReply, ModelRequest


class ScriptMissing(ValueError):
    """A run on the scripted provider came without a scripted reply."""


class ScriptedProvider:
    """Returns ``request.scripted_reply`` verbatim, after ``delay_seconds`` (to rehearse a
    model's latency: the chaos harness kills workers while runs wait on it)."""

    name = "scripted"

    def __init__(self, delay_seconds: float = 0.0) -> None:
        self._delay = delay_seconds

    async def generate(self, request: ModelRequest) -> ModelReply:
        if self._delay:
            await asyncio.sleep(self._delay)
        if request.scripted_reply is None:
            raise ScriptMissing("the scripted provider needs scripted_reply on the run")
        return ModelReply(text=request.scripted_reply, provider=self.name, model="script")
