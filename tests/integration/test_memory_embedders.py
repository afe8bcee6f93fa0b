"""Embedders: the local default works with the network cut off and ranks meaning; the
Gemini embedder speaks the REST shape of batchEmbedContents (against a local server)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import numpy as np
import pytest

from adapters.memory.embedders import GeminiEmbedder, WordLlamaEmbedder
from adapters.models.gemini import GeminiAccess
from domain.memory.ports import EmbedPurpose


def _vectors(rows: list[bytes], dims: int) -> np.ndarray:
    return np.stack([np.frombuffer(r, dtype="<f4") for r in rows]).reshape(len(rows), dims)


def test_the_local_embedder_needs_no_network_and_ranks_meaning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the embedder tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    embedder = WordLlamaEmbedder()
    texts = [
        "The invoice for the Atlas engagement is overdue.",
        "Atlas has not paid its bill yet.",
        "The team offsite is planned for the mountains.",
    ]
    m = _vectors(embedder.embed(texts, EmbedPurpose.DOCUMENT), embedder.dimensions)
    assert m.shape == (3, 256)
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    assert m[0] @ m[1] > m[0] @ m[2] + 0.1
    assert embedder.embed([], EmbedPurpose.QUERY) == []


class _Stub:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.reply: Any = None
        self.status = 200


@pytest.fixture
def stub() -> Iterator[tuple[_Stub, str]]:
    state = _Stub()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, body))
            n = len(body["requests"])
            reply = state.reply or {
                "embeddings": [{"values": [float(i + 1), 0.0, 0.0] + [0.0] * 765} for i in range(n)]
            }
            out = json.dumps(reply).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield state, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_gemini_embeds_in_batches_with_the_task_and_dimensions(stub: tuple[_Stub, str]) -> None:
    state, url = stub
    embedder = GeminiEmbedder(GeminiAccess(api_key="key", base_url=url), "gemini-embedding-001")
    rows = embedder.embed([f"t{i}" for i in range(130)], EmbedPurpose.QUERY)
    assert len(rows) == 130 and len(state.requests) == 2  # at most 100 a call
    path, body = state.requests[0]
    assert path.endswith("/models/gemini-embedding-001:batchEmbedContents")
    first = body["requests"][0]
    assert first["taskType"] == "RETRIEVAL_QUERY" and first["outputDimensionality"] == 768
    assert first["content"]["parts"][0]["text"] == "t0"
    m = _vectors(rows, 768)
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)  # normalised here
    assert embedder.name == "gemini-embedding-001-768"


def test_gemini_answers_of_the_wrong_shape_or_errors_raise(stub: tuple[_Stub, str]) -> None:
    state, url = stub
    embedder = GeminiEmbedder(GeminiAccess(api_key="key", base_url=url), "gemini-embedding-001")
    state.reply = {"embeddings": [{"values": [1.0, 2.0]}]}
    with pytest.raises(ValueError, match="wrong shape"):
        embedder.embed(["a"], EmbedPurpose.DOCUMENT)
    state.reply, state.status = {"error": {"code": 500, "message": "boom"}}, 500
    with pytest.raises(Exception, match="500"):
        embedder.embed(["a"], EmbedPurpose.DOCUMENT)
