"""Fit the entity tagger on filled frames and write its weights.

``python -m evals.train_entities`` (``make train-entities``) fills every frame of
:mod:`evals.entity_corpus` several times, labels each token with the class of the span
it falls in (other, person, address), and fits a softmax regression over the hashed
features of :mod:`adapters.memory.entity_tagger`: full-batch Adam with an L2 penalty,
from zeros, so the same frames give the same weights. A tenth of the frames is held
apart first and the fit on the rest is scored on it (token and span figures), so a
change that only memorises frames shows; the weights written are then refitted on
every frame. The figures that count are on held-out text (:mod:`evals.heldout`).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from adapters.memory.entity_tagger import (
    BITS,
    CLASSES,
    LEXICON_PATH,
    MODEL_PATH,
    EntityTagger,
)
from evals import entity_corpus

log = logging.getLogger(__name__)

EPOCHS = 120
RATE = 0.05
L2 = 2e-6
COPIES = 24


def blank_tagger() -> EntityTagger:
    """A tagger with zero weights: its features are what training needs."""
    with np.load(LEXICON_PATH) as names:
        keys, codes = names["keys"], names["codes"]
    return EntityTagger(
        np.zeros((1 << BITS, len(CLASSES)), dtype=np.float32),
        np.zeros(len(CLASSES), dtype=np.float32),
        keys,
        codes,
    )


def token_labels(tokens: Sequence[tuple[int, int]], spans: Sequence[dict[str, Any]]) -> list[int]:
    """Each token's class: the span it overlaps, or 0."""
    labels = [0] * len(tokens)
    for span in spans:
        cls = CLASSES.index(str(span["type"]))
        for i, (a, b) in enumerate(tokens):
            if a < int(span["end"]) and int(span["start"]) < b:
                labels[i] = cls
    return labels


def matrix(
    tagger: EntityTagger, docs: Sequence[dict[str, Any]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """All tokens of ``docs`` as one CSR matrix of feature indices, with labels."""
    indptrs, indices, labels = [], [], []
    offset = 0
    for doc in docs:
        tokens, indptr, index = tagger.features(str(doc["text"]))
        if not tokens:
            continue
        indptrs.append(indptr[:-1] + offset)
        indices.append(index.astype(np.int32))
        labels.extend(token_labels(tokens, doc["spans"]))
        offset += len(index)
    indptr = np.concatenate([*indptrs, np.array([offset])]).astype(np.int64)
    return indptr, np.concatenate(indices), np.array(labels, dtype=np.int64)


def fit(
    indptr: npt.NDArray[np.int64], index: npt.NDArray[np.int32], label: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Softmax regression by full-batch Adam."""
    size, k = 1 << BITS, len(CLASSES)
    weights = np.zeros((size, k), dtype=np.float32)
    bias = np.zeros(k, dtype=np.float32)
    m_w, v_w = np.zeros_like(weights), np.zeros_like(weights)
    m_b, v_b = np.zeros_like(bias), np.zeros_like(bias)
    counts = np.diff(indptr)
    onehot = np.eye(k, dtype=np.float32)[label]
    starts = indptr[:-1]
    n = len(label)
    for epoch in range(1, EPOCHS + 1):
        logits = (
            np.stack([np.add.reduceat(weights[:, c][index], starts) for c in range(k)], axis=1)
            + bias
        )
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        if epoch == 1 or epoch % 20 == 0:
            loss = -float(np.log(p[np.arange(n), label] + 1e-9).mean())
            log.info("epoch %d: loss %.4f", epoch, loss)
        g = (p - onehot) / n
        grad = np.stack(
            [
                np.bincount(index, weights=np.repeat(g[:, c], counts), minlength=size)
                for c in range(k)
            ],
            axis=1,
        ).astype(np.float32)
        grad += L2 * weights
        gb = g.sum(axis=0)
        for param, grad_, m, v in ((weights, grad, m_w, v_w), (bias, gb, m_b, v_b)):
            m *= 0.9
            m += 0.1 * grad_
            v *= 0.999
            v += 0.001 * grad_ * grad_
            param -= RATE * (m / (1 - 0.9**epoch)) / (np.sqrt(v / (1 - 0.999**epoch)) + 1e-8)
    return weights, bias


def span_figures(tagger: EntityTagger, docs: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Recall and precision of spans (an overlap of the same kind counts)."""
    found = dict.fromkeys(("person", "address"), 0)
    total = dict.fromkeys(("person", "address"), 0)
    right = dict.fromkeys(("person", "address"), 0)
    said = dict.fromkeys(("person", "address"), 0)
    for doc in docs:
        text = str(doc["text"])
        pred = tagger.entities(text)
        gold = doc["spans"]
        for g in gold:
            total[g["type"]] += 1
            found[g["type"]] += any(
                p.kind == g["type"] and p.start < g["end"] and g["start"] < p.end for p in pred
            )
        for p in pred:
            said[p.kind] += 1
            right[p.kind] += any(
                p.kind == g["type"] and p.start < g["end"] and g["start"] < p.end for g in gold
            )
    out = {}
    for kind in total:
        out[f"{kind} recall"] = found[kind] / max(total[kind], 1)
        out[f"{kind} precision"] = right[kind] / max(said[kind], 1)
    return out


def train() -> None:
    frames = entity_corpus.frames()
    rng = random.Random(entity_corpus.SEED)
    order = list(range(len(frames)))
    rng.shuffle(order)
    apart = set(order[: len(frames) // 10])
    filler = entity_corpus.Filler(random.Random(entity_corpus.SEED))
    docs_in, docs_apart = [], []
    for i, frame in enumerate(frames):
        for _ in range(COPIES):
            (docs_apart if i in apart else docs_in).append(entity_corpus.fill(frame, filler))
    tagger = blank_tagger()
    started = time.perf_counter()
    weights, bias = fit(*matrix(tagger, docs_in))
    tagger.weights, tagger.bias = weights, bias
    log.info("frames held apart: %s", span_figures(tagger, docs_apart[:2000]))
    weights, bias = fit(*matrix(blank_tagger(), docs_in + docs_apart))
    np.savez_compressed(MODEL_PATH, weights=weights.astype(np.float16), bias=bias)
    log.info("wrote %s in %.0f s", MODEL_PATH, time.perf_counter() - started)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    train()
