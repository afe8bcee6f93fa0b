"""The model provider contract (``model_contract.py``) run against every shipped
provider: Gemini through the Gemini API and through Vertex AI (each against a local
server speaking Gemini's REST shape), capturing Gemini, replay and scripted; and
against a broken provider, which must fail it. A class named ``pkg.mod:Class`` is
loaded, and refused when it does not satisfy the port, as a memory backend is."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.oauth2.credentials import Credentials

from adapters.memory.backends import BackendRefused
from adapters.models.gemini import GeminiAccess, GeminiProvider
from adapters.models.plugin import model_provider
from adapters.models.replay import CapturingProvider, ReplayProvider
from adapters.models.scripted import ScriptedProvider
from domain.model_provider import ModelReply, ModelRequest
from tests.contracts.failing import failed_checks
from tests.contracts.model_contract import CHECKS, Call, Harness
from tests.integration.test_gemini_provider import (
    GeminiStub,
    error_body,
    gemini_stub,  # noqa: F401  (the fixture)
    ok_body,
)
from tests.support import make_settings
from worker.bootstrap import build_model

MODEL = "gemini-contract"
TIMEOUT = 1.0


def _request(task: str = "Send the Atlas client the kickoff agenda.", **more: Any) -> ModelRequest:
    return ModelRequest(
        agent_handle="orion",
        task=task,
        system_prompt="Reply with one JSON object.",
        prompt=f"TASK: {task}",
        **more,
    )


class GeminiHarness:
    """Gemini against the local server; through Vertex AI when ``vertex``."""

    reports_usage = True

    def __init__(self, stub: GeminiStub, *, vertex: bool = False, capture: Path | None = None):
        self.stub, self.vertex, self.capture = stub, vertex, capture

    def _provider(self, timeout: float = 30.0) -> Any:
        access = (
            GeminiAccess(
                project="firm-project",
                location="europe-west4",
                credentials=Credentials(token="adc-token"),  # what ADC would have found
                base_url=self.stub.base_url,
                timeout_seconds=timeout,
            )
            if self.vertex
            else GeminiAccess(
                api_key="contract-key", base_url=self.stub.base_url, timeout_seconds=timeout
            )
        )
        gemini = GeminiProvider(access, MODEL)
        return gemini if self.capture is None else CapturingProvider(gemini, self.capture)

    def answering(self, text: str, tokens: tuple[int, int] | None) -> Call:
        usage = (
            None
            if tokens is None
            else {
                "promptTokenCount": tokens[0],
                "candidatesTokenCount": tokens[1],
                "totalTokenCount": sum(tokens),
            }
        )
        self.stub.answer(200, ok_body(text, usageMetadata=usage))
        return Call(self._provider(), _request())

    def asked_for_json(self) -> bool | None:
        sent = self.stub.requests[-1]
        if self.vertex:
            assert "/projects/firm-project/locations/europe-west4/" in sent.path, sent.path
            assert sent.headers.get("authorization") == "Bearer adc-token"
        else:
            assert sent.headers.get("x-goog-api-key") == "contract-key"
        config = sent.body.get("generationConfig", {})
        return config.get("responseMimeType") == "application/json"

    def unanswerable(self) -> Call:
        self.stub.answer(400, error_body(400, "invalid argument", "INVALID_ARGUMENT"))
        return Call(self._provider(), _request())

    def transport_failure(self) -> Call | None:
        self.stub.answer(503, error_body(503, "overloaded", "UNAVAILABLE"))
        return Call(self._provider(), _request())

    def not_answering(self) -> tuple[Call, float] | None:
        self.stub.answer(200, ok_body())
        self.stub.delay = TIMEOUT + 10
        return Call(self._provider(timeout=TIMEOUT), _request()), TIMEOUT


class ReplayHarness:
    """Replay over a fixture folder of its own."""

    reports_usage = False

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def answering(self, text: str, tokens: tuple[int, int] | None) -> Call:
        task = "Send the Atlas client the kickoff agenda."
        fixture = [{"agent": "orion", "task": task, "reply": text, "model": "captured-x"}]
        (self.folder / "fixtures.json").write_text(json.dumps(fixture), encoding="utf-8")
        return Call(ReplayProvider(self.folder), _request(task))

    def asked_for_json(self) -> bool | None:
        return None

    def unanswerable(self) -> Call:
        return Call(ReplayProvider(self.folder), _request("A task no fixture answers."))

    def transport_failure(self) -> Call | None:
        return None

    def not_answering(self) -> tuple[Call, float] | None:
        return None


class ScriptedHarness:
    """The scripted provider: the request carries its reply."""

    reports_usage = False

    def answering(self, text: str, tokens: tuple[int, int] | None) -> Call:
        return Call(ScriptedProvider(), _request(scripted_reply=text))

    def asked_for_json(self) -> bool | None:
        return None

    def unanswerable(self) -> Call:
        return Call(ScriptedProvider(), _request())

    def transport_failure(self) -> Call | None:
        return None

    def not_answering(self) -> tuple[Call, float] | None:
        return None


class Swallowing:
    """A broken provider: it reports tokens it never counted, turns every failure into an
    empty reply, waits for ever on a model that does not answer, and has no name."""

    name = ""

    def __init__(self, inner: GeminiProvider) -> None:
        self._inner = inner

    async def generate(self, request: ModelRequest) -> ModelReply:
        try:
            reply = await self._inner.generate(request)
        except Exception:  # noqa: BLE001 - the defect under test
            return ModelReply(text="", provider="broken", model="broken", input_tokens=-1)
        return reply.model_copy(update={"input_tokens": 1, "output_tokens": None})


class BrokenHarness(GeminiHarness):
    def _provider(self, timeout: float = 30.0) -> Any:
        return Swallowing(super()._provider(timeout=3600.0))


HARNESSES: dict[str, Callable[..., Harness]] = {
    "gemini": lambda stub, tmp: GeminiHarness(stub),
    "vertex": lambda stub, tmp: GeminiHarness(stub, vertex=True),
    "capture": lambda stub, tmp: GeminiHarness(stub, capture=tmp / "captured.json"),
    "replay": lambda stub, tmp: ReplayHarness(tmp),
    "scripted": lambda stub, tmp: ScriptedHarness(),
}


@pytest.fixture(params=sorted(HARNESSES))
def harness(request: pytest.FixtureRequest, gemini_stub: GeminiStub, tmp_path: Path) -> Harness:  # noqa: F811
    return HARNESSES[request.param](gemini_stub, tmp_path)


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_a_shipped_provider_keeps_the_contract(
    harness: Harness, check: Callable[..., None]
) -> None:
    check(harness)


def test_a_broken_provider_fails_the_contract(gemini_stub: GeminiStub) -> None:  # noqa: F811
    """Every check it breaks fails, so the suite can fail."""

    def fresh() -> BrokenHarness:
        gemini_stub.delay = 0.0
        return BrokenHarness(gemini_stub)

    failed = failed_checks(CHECKS, fresh)
    assert failed == [
        "satisfies_the_port",
        "reports_usage_as_counted",
        "raises_what_it_cannot_answer",
        "raises_a_transport_failure_to_be_retried",
        "gives_up_within_its_timeout",
    ], failed


class NotAProvider:
    """Named, but its generate is not a coroutine and takes no request."""

    name = "sync"

    def generate(self) -> ModelReply:
        return ModelReply(text="{}", provider="sync", model="sync")


class Mine:
    """A provider of one's own: any class satisfying the port is a drop-in."""

    name = "mine"

    async def generate(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text='{"summary": "mine", "actions": []}', provider="mine", model="m1")


def test_a_provider_named_by_import_path_is_checked_at_start_up() -> None:
    mine = build_model(make_settings(model_provider=f"{__name__}:Mine"))
    reply = asyncio.run(mine.generate(_request()))
    assert (mine.name, reply.provider) == ("mine", "mine")
    with pytest.raises(BackendRefused, match=r"generate\(\) is not a coroutine"):
        model_provider(f"{__name__}:NotAProvider")
    with pytest.raises(BackendRefused, match="takes no parameter 'request'"):
        model_provider(f"{__name__}:NotAProvider")
    with pytest.raises(BackendRefused, match="import path"):
        model_provider("no-colon-here")
    with pytest.raises(ValueError, match="pkg.mod:Class"):
        make_settings(model_provider="gpt")


def test_vertex_ai_or_an_api_key_never_both() -> None:
    with pytest.raises(ValueError, match="not both"):
        make_settings(gemini_api_key="k", gemini_vertex_project="p")
    with pytest.raises(ValueError, match="one of them"):
        GeminiAccess()
    vertex = make_settings(gemini_vertex_project="p", model_provider=None, embedder=None)
    assert (vertex.resolved_provider, vertex.resolved_embedder) == ("gemini", "gemini")


@pytest.fixture(autouse=True)
def _no_machine_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ("GEMINI_API_KEY", "VERLETICA_GEMINI_API_KEY", "VERLETICA_MODEL_PROVIDER"):
        monkeypatch.delenv(var, raising=False)
    yield
