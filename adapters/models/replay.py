"""Capture-replay provider: committed fixtures make every flow run with no API key.

A fixture is keyed by the agent's handle and the task text (the rest of the prompt
carries run-specific identifiers). ``CapturingProvider`` wraps a live provider and
writes what it answered, so a fixture set can be refreshed from the real model.

Each fixture says where it comes from: ``"origin": "captured"`` (written by the
capture mode, with the model that answered) or ``"authored"`` (written by hand for a
scenario; its model is ``"authored"``). Only the capture mode writes ``captured``.

With no model configured, a person trying Verletica may give the model's reply for a
task no fixture answers (``verletica run … --reply FILE``): it is used as given, and
recorded as provider ``given``. The broker treats it as it treats any model's reply.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from domain.canonical import digest
from domain.model_provider import ModelProvider, ModelReply, ModelRequest

FIXTURES = Path(__file__).parent / "fixtures"


class ReplayMiss(LookupError):
    """No fixture answers this request."""


MISS_HINT = (
    "`verletica fixtures` lists the tasks that have one; give the model's reply yourself "
    "with `verletica run <agent> <task> --reply FILE`, or set GEMINI_API_KEY to ask Gemini"
)
GIVEN = "given"
"""The provider recorded for a reply a person gave (``--reply``)."""


class Fixture(BaseModel):
    """One committed reply: which agent and task it answers, where it came from."""

    agent: str
    task: str
    reply: str
    model: str = "fixture"
    origin: str = "authored"
    file: str = ""


def fixtures(directory: Path = FIXTURES) -> list[Fixture]:
    """Every fixture in ``directory``, file by file, in order."""
    found = []
    for path in sorted(directory.glob("*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            found.append(Fixture.model_validate({**item, "file": path.name}))
    return found


def answered_tasks(directory: Path = FIXTURES) -> dict[str, tuple[str, ...]]:
    """The tasks the fixtures answer, by agent handle, in file order (what a person
    trying Verletica offline may give each agent)."""
    found: dict[str, list[str]] = {}
    for item in fixtures(directory):
        tasks = found.setdefault(item.agent, [])
        if item.task not in tasks:
            tasks.append(item.task)
    return {agent: tuple(tasks) for agent, tasks in found.items()}


def fixture_key(agent_handle: str, task: str) -> str:
    """The lookup key of a fixture."""
    return digest({"agent": agent_handle, "task": " ".join(task.split())})


class ReplayProvider:
    """Answers from fixture files (JSON lists of {agent, task, reply, model})."""

    name = "replay"

    def __init__(self, directory: Path = FIXTURES) -> None:
        self._replies: dict[str, tuple[str, str]] = {}
        for item in fixtures(directory):
            self._replies[fixture_key(item.agent, item.task)] = (item.reply, item.model)

    async def generate(self, request: ModelRequest) -> ModelReply:
        if request.scripted_reply is not None:
            return ModelReply(text=request.scripted_reply, provider=GIVEN, model=GIVEN)
        found = self._replies.get(fixture_key(request.agent_handle, request.task))
        if found is None:
            raise ReplayMiss(
                f"no replay fixture for agent {request.agent_handle!r} and task "
                f"{request.task!r}: {MISS_HINT}"
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
