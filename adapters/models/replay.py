"""Capture-replay provider: committed fixtures make every flow run with no API key.

A fixture is keyed by the agent's handle and the task text (the rest of the prompt
carries run-specific identifiers). ``CapturingProvider`` wraps a live provider and
writes what it answered, so a fixture set can be refreshed from the real model.

Each fixture says where it comes from: ``"origin": "captured"`` (written by the
capture mode, with the model that answered) or ``"authored"`` (written by hand for a
scenario; its model is ``"authored"``). Only the capture mode writes ``captured``.
"""

from __future__ import annotations

import json
from pathlib import Path

from domain.canonical import digest
from domain.ports import ModelProvider, ModelReply, ModelRequest

FIXTURES = Path(__file__).parent / "fixtures"


class ReplayMiss(LookupError):
    """No fixture answers this request."""


def fixture_key(agent_handle: str, task: str) -> str:
    """The lookup key of a fixture."""
    return digest({"agent": agent_handle, "task": " ".join(task.split())})


class ReplayProvider:
    """Answers from fixture files (JSON lists of {agent, task, reply, model})."""

    name = "replay"

    def __init__(self, directory: Path = FIXTURES) -> None:
        self._replies: dict[str, tuple[str, str]] = {}
        for path in sorted(directory.glob("*.json")):
            for item in json.loads(path.read_text(encoding="utf-8")):
                key = fixture_key(item["agent"], item["task"])
                self._replies[key] = (item["reply"], item.get("model", "fixture"))

    async def generate(self, request: ModelRequest) -> ModelReply:
        found = self._replies.get(fixture_key(request.agent_handle, request.task))
        if found is None:
            raise ReplayMiss(
                f"no replay fixture for agent {request.agent_handle!r} and task {request.task!r}"
            )
        text, model = found
        return ModelReply(text=text, provider=self.name, model=model)


class CapturingProvider:
    """Passes requests to ``inner`` and appends each answer to a fixture file."""

    def __init__(self, inner: ModelProvider, path: Path) -> None:
        self._inner = inner
        self._path = path
        self.name = f"capture:{inner.name}"

    async def generate(self, request: ModelRequest) -> ModelReply:
        reply = await self._inner.generate(request)
        items = json.loads(self._path.read_text(encoding="utf-8")) if self._path.exists() else []
        items = [
            i
            for i in items
            if fixture_key(i["agent"], i["task"]) != fixture_key(request.agent_handle, request.task)
        ]
        items.append(
            {
                "agent": request.agent_handle,
                "task": request.task,
                "reply": reply.text,
                "model": reply.model,
                "origin": "captured",
            }
        )
        self._path.write_text(json.dumps(items, indent=2) + "\n", encoding="utf-8")
        return reply
