"""Scripted provider: the caller states the exact reply text (tests, rehearsals)."""

from __future__ import annotations

from domain.ports import ModelReply, ModelRequest


class ScriptMissing(ValueError):
    """A run on the scripted provider came without a scripted reply."""


class ScriptedProvider:
    """Returns ``request.scripted_reply`` verbatim."""

    name = "scripted"

    async def generate(self, request: ModelRequest) -> ModelReply:
        if request.scripted_reply is None:
            raise ScriptMissing("the scripted provider needs scripted_reply on the run")
        return ModelReply(text=request.scripted_reply, provider=self.name, model="script")
