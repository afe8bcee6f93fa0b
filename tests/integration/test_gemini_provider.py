"""GeminiProvider over the real google-genai client against a local Gemini-shaped server.

The server speaks the REST shape of ``POST /{version}/models/{model}:generateContent``
and records every request, so the tests check what actually goes over the wire.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from google.genai import errors

from adapters.models.gemini import GeminiAccess, GeminiProvider, GeminiRefused
from domain.model_provider import ModelReply, ModelRequest

API_KEY = "test-key-1234"
MODEL = "gemini-unit-flash"
ROUTE = re.compile(
    r"^/(v1|v1beta|v1alpha|v1beta1)/"
    r"(projects/[^/]+/locations/[^/]+/publishers/google/)?"  # Vertex AI's path
    r"models/(?P<model>[^/:]+):generateContent$"
)
TIMEOUT = 15.0

REPLY_TEXT = '{"summary": "ok", "actions": []}'


def ok_body(text: str = REPLY_TEXT, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 12,
            "candidatesTokenCount": 5,
            "totalTokenCount": 17,
        },
        "modelVersion": "gemini-test-001",
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not None}


def error_body(status: int, message: str, reason: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": reason}}


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class GeminiStub:
    """What the stub answers, and every request it received."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=ok_body)
    requests: list[Recorded] = field(default_factory=list)
    base_url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    queued: list[dict[str, Any] | str] = field(default_factory=list)
    """Bodies answered one per request, in order, before ``body`` again."""
    delay: float = 0.0
    """Seconds to wait before answering (a model that does not answer in time)."""

    def answer(self, status: int, body: dict[str, Any] | str) -> None:
        with self.lock:
            self.status, self.body = status, body

    def answer_in_turn(self, *bodies: dict[str, Any] | str) -> None:
        """Answer the next requests with ``bodies``, one each (status 200)."""
        with self.lock:
            self.status = 200
            self.queued.extend(bodies)


def _handler(stub: GeminiStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _send(self, status: int, body: dict[str, Any] | str) -> None:
            raw = body if isinstance(body, str) else json.dumps(body)
            data = raw.encode("utf-8")
            self.send_response(status)
            ctype = "text/plain" if isinstance(body, str) else "application/json"
            self.send_header("Content-Type", f"{ctype}; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except json.JSONDecodeError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            with stub.lock:
                stub.requests.append(
                    Recorded(
                        method="POST",
                        path=self.path,
                        headers={k.lower(): v for k, v in self.headers.items()},
                        body=body,
                    )
                )
                status, answer = stub.status, stub.queued.pop(0) if stub.queued else stub.body
            if stub.delay:
                time.sleep(stub.delay)
            if not ROUTE.match(self.path.split("?", 1)[0]):
                self._send(404, error_body(404, f"no route {self.path}", "NOT_FOUND"))
                return
            self._send(status, answer)

        def do_GET(self) -> None:  # noqa: N802
            self._send(404, error_body(404, "GET is not served", "NOT_FOUND"))

    return Handler


@pytest.fixture
def gemini_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[GeminiStub]:
    # Nothing from the environment may steer the client elsewhere.
    for var in (
        "GOOGLE_GENAI_API_VERSION",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_API_KEY",
        "GEMINI_API_KEY",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(var, raising=False)
    stub = GeminiStub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    stub.base_url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def request(**overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "agent_handle": "orion",
        "task": "Send the Atlas client the kickoff agenda.",
        "system_prompt": "You are Orion, an engagement planner. Reply with one JSON object.",
        "prompt": "TASK: Send the Atlas client the kickoff agenda.\nRUN: run-42",
    }
    values.update(overrides)
    return ModelRequest(**values)


async def generate(provider: GeminiProvider, req: ModelRequest) -> ModelReply:
    return await asyncio.wait_for(provider.generate(req), timeout=TIMEOUT)


def provider_for(stub: GeminiStub, model: str = MODEL) -> GeminiProvider:
    return GeminiProvider(GeminiAccess(api_key=API_KEY, base_url=stub.base_url), model)


def _texts(content: dict[str, Any]) -> list[str]:
    return [p["text"] for p in content.get("parts", []) if "text" in p]


# ---------------------------------------------------------------------------- success


async def test_generate_returns_the_reply_with_provider_model_and_tokens(
    gemini_stub: GeminiStub,
) -> None:
    reply = await generate(provider_for(gemini_stub), request())

    assert isinstance(reply, ModelReply)
    assert reply.text == REPLY_TEXT
    assert reply.provider == "gemini" == GeminiProvider.name
    assert reply.model == "gemini-test-001"
    assert reply.input_tokens == 12
    assert reply.output_tokens == 5


async def test_one_request_names_the_model_and_carries_the_key_in_the_header(
    gemini_stub: GeminiStub,
) -> None:
    await generate(provider_for(gemini_stub), request())

    assert len(gemini_stub.requests) == 1
    sent = gemini_stub.requests[0]
    assert sent.method == "POST"
    path, _, query = sent.path.partition("?")
    match = ROUTE.match(path)
    assert match is not None, sent.path
    assert match.group("model") == MODEL
    assert sent.headers.get("x-goog-api-key") == API_KEY
    # The key travels in the header only, never in the URL.
    assert API_KEY not in query
    assert API_KEY not in json.dumps(sent.body)
    assert sent.headers.get("content-type", "").startswith("application/json")


async def test_body_carries_prompt_system_instruction_json_mime_and_temperature_zero(
    gemini_stub: GeminiStub,
) -> None:
    req = request()
    await generate(provider_for(gemini_stub), req)

    body = gemini_stub.requests[0].body
    contents = body["contents"]
    assert isinstance(contents, list) and len(contents) == 1
    assert contents[0].get("role", "user") == "user"
    assert _texts(contents[0]) == [req.prompt]

    system = body.get("systemInstruction") or body.get("system_instruction")
    assert system is not None, body
    assert _texts(system) == [req.system_prompt]
    # The system prompt is not smuggled into the user turn, nor the reverse.
    assert req.system_prompt not in json.dumps(contents)

    config = body.get("generationConfig") or body.get("generation_config")
    assert config is not None, body
    assert config.get("responseMimeType", config.get("response_mime_type")) == "application/json"
    assert config["temperature"] == 0


async def test_the_scripted_reply_never_reaches_gemini(gemini_stub: GeminiStub) -> None:
    await generate(provider_for(gemini_stub), request(scripted_reply="SCRIPT-SHOULD-NOT-LEAK"))

    assert "SCRIPT-SHOULD-NOT-LEAK" not in json.dumps(gemini_stub.requests[0].body)


async def test_each_generate_is_one_call(gemini_stub: GeminiStub) -> None:
    provider = provider_for(gemini_stub)
    for i in range(3):
        await generate(provider, request(prompt=f"prompt {i}"))

    assert [_texts(r.body["contents"][0]) for r in gemini_stub.requests] == [
        ["prompt 0"],
        ["prompt 1"],
        ["prompt 2"],
    ]


async def test_text_of_several_parts_is_joined(gemini_stub: GeminiStub) -> None:
    gemini_stub.answer(
        200,
        ok_body(
            candidates=[
                {
                    "content": {
                        "role": "model",
                        "parts": [{"text": '{"summary": "a", '}, {"text": '"actions": []}'}],
                    },
                    "finishReason": "STOP",
                    "index": 0,
                }
            ]
        ),
    )
    reply = await generate(provider_for(gemini_stub), request())

    assert reply.text == '{"summary": "a", "actions": []}'


async def test_model_falls_back_to_the_configured_one_and_tokens_to_none(
    gemini_stub: GeminiStub,
) -> None:
    gemini_stub.answer(200, ok_body(modelVersion=None, usageMetadata=None))
    reply = await generate(provider_for(gemini_stub, model="gemini-configured"), request())

    assert reply.model == "gemini-configured"
    assert reply.input_tokens is None
    assert reply.output_tokens is None
    assert reply.text == REPLY_TEXT
    assert ROUTE.match(gemini_stub.requests[0].path).group("model") == "gemini-configured"  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    ("status", "reason", "error_type"),
    [
        (500, "INTERNAL", errors.ServerError),
        (503, "UNAVAILABLE", errors.ServerError),
        (400, "INVALID_ARGUMENT", GeminiRefused),
        (403, "PERMISSION_DENIED", GeminiRefused),
        (429, "RESOURCE_EXHAUSTED", errors.ClientError),
    ],
)
async def test_http_error_raises_instead_of_an_empty_reply(
    gemini_stub: GeminiStub, status: int, reason: str, error_type: type[Exception]
) -> None:
    """A server error or a rate limit is raised as the client raises it (the run retries
    it); a refusal of the request itself is final (``GeminiRefused``, a ValueError)."""
    gemini_stub.answer(status, error_body(status, f"stub says {reason}", reason))

    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(error_type) as raised:
        await generate(provider_for(gemini_stub), request())
    elapsed = loop.time() - started

    cause = raised.value if isinstance(raised.value, errors.APIError) else raised.value.__cause__
    assert isinstance(cause, errors.APIError)
    assert isinstance(raised.value, ValueError) == (error_type is GeminiRefused)
    assert cause.code == status
    assert cause.status == reason
    assert f"stub says {reason}" in str(raised.value)
    # The provider configures no retries: one request, failing fast.
    assert len(gemini_stub.requests) == 1
    assert elapsed < 5


async def test_non_json_server_error_still_raises(gemini_stub: GeminiStub) -> None:
    gemini_stub.answer(502, "<html>bad gateway</html>")

    with pytest.raises(errors.ServerError) as raised:
        await generate(provider_for(gemini_stub), request())

    assert raised.value.code == 502
    assert len(gemini_stub.requests) == 1


async def test_unreachable_server_raises() -> None:
    # A port with nothing listening: bind, learn the port, close.
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_port
    server.server_close()
    provider = GeminiProvider(
        GeminiAccess(api_key=API_KEY, base_url=f"http://127.0.0.1:{port}"), MODEL
    )

    with pytest.raises(Exception) as raised:  # noqa: B017  (transport error type is httpx's)
        await generate(provider, request())

    assert not isinstance(raised.value, asyncio.TimeoutError)
