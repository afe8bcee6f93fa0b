"""The model port: what an agent's reasoning call asks of a model provider."""

from __future__ import annotations

from typing import Protocol

from domain.organization.contracts import Frozen


class ModelRequest(Frozen):
    """One reasoning call: everything the model sees."""

    agent_handle: str
    task: str
    system_prompt: str
    prompt: str
    scripted_reply: str | None = None
    """Only the scripted provider honours this: the exact reply text."""


class ModelReply(Frozen):
    """The model's raw text and where it came from."""

    text: str
    provider: str
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class ModelProvider(Protocol):
    """Generates one reply for one request."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelReply:
        """Return the model's reply text; raise on transport failure."""
        ...
