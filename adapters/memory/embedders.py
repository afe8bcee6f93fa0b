"""Embedders: a real local model by default, Gemini's embedding model when a key is set.

The local default is WordLlama (``l2_supercat``, 256 dimensions): its weights ship inside
its wheel, so embedding works right after installation and nothing is downloaded at
run time; it needs no torch. It is a static model (token embeddings pooled), far cheaper
and weaker than a transformer; the README gives the numbers behind the choice.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from google.genai import types

from adapters.models.gemini import GeminiAccess
from domain.memory.ports import EmbedPurpose


def _rows(matrix: Any) -> list[bytes]:
    """L2-normalised float32 rows as little-endian bytes."""
    m = np.asarray(matrix, dtype="<f4")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = m / np.where(norms == 0, 1, norms)
    return [row.astype("<f4").tobytes() for row in m]


class WordLlamaEmbedder:
    """The default: WordLlama's 256-dimensional model from its own wheel."""

    name = "wordllama-l2_supercat-256"
    dimensions = 256

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    import wordllama
                    from wordllama import WordLlama

                    # The weights and tokenizer are inside the package; pointing the cache
                    # there (and forbidding downloads) keeps it from reaching out.
                    self._model = WordLlama.load(
                        cache_dir=Path(wordllama.__file__).parent, disable_download=True
                    )
        return self._model

    def embed(self, texts: Sequence[str], purpose: EmbedPurpose) -> list[bytes]:
        if not texts:
            return []
        return _rows(self._loaded().embed(list(texts), norm=False))  # _rows: zero-safe


class GeminiEmbedder:
    """``gemini-embedding-001`` through google-genai's batch embed call."""

    dimensions = 768

    def __init__(self, access: GeminiAccess, model: str) -> None:
        self._client = access.client()
        self._model = model

    @property
    def name(self) -> str:
        return f"{self._model}-{self.dimensions}"

    def embed(self, texts: Sequence[str], purpose: EmbedPurpose) -> list[bytes]:
        if not texts:
            return []
        task = "RETRIEVAL_QUERY" if purpose is EmbedPurpose.QUERY else "RETRIEVAL_DOCUMENT"
        out: list[bytes] = []
        for start in range(0, len(texts), 100):  # the API takes at most 100 per call
            response = self._client.models.embed_content(
                model=self._model,
                contents=list(texts[start : start + 100]),
                config=types.EmbedContentConfig(
                    task_type=task, output_dimensionality=self.dimensions
                ),
            )
            values = [e.values for e in response.embeddings or []]
            if len(values) != len(texts[start : start + 100]) or any(
                v is None or len(v) != self.dimensions for v in values
            ):
                raise ValueError("the embedding service answered with the wrong shape")
            out += _rows(values)
        return out


_LOCAL: WordLlamaEmbedder | None = None


def local_embedder() -> WordLlamaEmbedder:
    """The process's local embedder (one model, loaded on first use)."""
    global _LOCAL
    if _LOCAL is None:
        _LOCAL = WordLlamaEmbedder()
    return _LOCAL
