"""Which backends and embedders the contract suite runs against.

By default every shipped one: the SQL backend on SQLite and on PostgreSQL; the local
embedder and the Gemini embedder (against a local server speaking Gemini's REST shape).
``--adapter pkg.mod:Class`` / ``--embedder pkg.mod:Class`` (``make contracts ADAPTER=…
EMBEDDER=…``) run it against that class alone.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.oauth2.credentials import Credentials

from adapters.memory.backends import checked_embedder, load, memory_adapter
from adapters.memory.embedders import GeminiEmbedder, local_embedder
from adapters.memory.sql import SqlMemoryAdapter
from adapters.models.gemini import GeminiAccess
from adapters.store.db import make_engine
from domain.memory.adapter import MemoryAdapter
from domain.memory.ports import Embedder
from tests.servers import fresh_database_url


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "adapter_kind" in metafunc.fixturenames:
        named = metafunc.config.getoption("--adapter")
        kinds: list[Any] = (
            [named] if named else ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
        )
        metafunc.parametrize("adapter_kind", kinds)
    if "embedder_kind" in metafunc.fixturenames:
        named = metafunc.config.getoption("--embedder")
        kinds = [named] if named else ["local", "gemini", "gemini-vertex"]
        metafunc.parametrize("embedder_kind", kinds)


@pytest.fixture
def adapter(adapter_kind: str, tmp_path: Path, pg_template: str | None) -> Iterator[MemoryAdapter]:
    """A fresh backend of ``adapter_kind`` over an empty, migrated database."""
    kind = "postgres" if adapter_kind == "postgres" else "sqlite"
    for url in fresh_database_url(kind, tmp_path, pg_template):
        engine = make_engine(url)
        try:
            if adapter_kind in ("sqlite", "postgres"):
                yield SqlMemoryAdapter(engine)
            else:
                yield memory_adapter(engine, url, adapter_kind)
        finally:
            engine.dispose()


class _GeminiShape(BaseHTTPRequestHandler):
    """``batchEmbedContents`` answered with a vector drawn from each text's hash, through
    the Gemini API (its key) or Vertex AI (its project's path, a bearer token); anything
    else is a 404, so a request that went the wrong way fails the suite."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        vertex = self.path.startswith("/v1beta1/projects/firm/locations/global/publishers/google/")
        proven = (
            self.headers.get("Authorization") == "Bearer adc-token"
            if vertex
            else self.headers.get("x-goog-api-key") == "contract-key"
        )
        single = self.path.endswith("/models/gemini-embedding-001:embedContent")  # Vertex, one
        if not proven or not (
            single or self.path.endswith("/gemini-embedding-001:batchEmbedContents")
        ):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        embeddings = []
        for request in [body] if single else body["requests"]:
            text = request["content"]["parts"][0]["text"]
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
            size = (
                request.get("outputDimensionality")
                or request["embedContentConfig"]["outputDimensionality"]
            )
            values = np.random.default_rng(seed).standard_normal(size)
            embeddings.append({"values": [float(v) * 3.0 for v in values]})  # not normalised
        answer = {"embedding": embeddings[0]} if single else {"embeddings": embeddings}
        out = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def embedder(embedder_kind: str) -> Iterator[Embedder]:
    """A shipped embedder (Gemini against a local server), or the class named."""
    if embedder_kind == "local":
        yield local_embedder()
    elif embedder_kind in ("gemini", "gemini-vertex"):
        server = HTTPServer(("127.0.0.1", 0), _GeminiShape)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_port}"
            access = (
                GeminiAccess(api_key="contract-key", base_url=url)
                if embedder_kind == "gemini"
                else GeminiAccess(
                    project="firm", credentials=Credentials(token="adc-token"), base_url=url
                )
            )
            yield GeminiEmbedder(access, "gemini-embedding-001")
        finally:
            server.shutdown()
    else:
        yield checked_embedder(load(embedder_kind)(), embedder_kind)
