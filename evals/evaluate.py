"""``make eval-memory``: the screen, the identifying-detail finder and retrieval, each
figure beside its baseline: first on held-out text nobody here generated
(:mod:`evals.heldout`: the figures that count), then on the evaluation split
(:mod:`evals.evalset`), written from the same lists as the training corpus, which the
classifier never saw but whose lists it learned.

- injection recall and benign false refusals: rules and classifier against the rules
  alone (targets: recall ≥ 0.90 with ≤ 0.02 false refusals);
- identifying detail, per type: recall and precision against no redaction at all (spans
  match when they overlap and have the same type; targets: structured kinds ≥ 0.98,
  person names ≥ 0.85, street addresses ≥ 0.75);
- retrieval recall@5 on paraphrased questions: the local embedder (cosine) against
  word overlap, the lexical ranking of ``MemoryBank.recall``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table

from adapters.memory.embedders import local_embedder
from adapters.memory.entity_tagger import local_tagger
from adapters.memory.screen_classifier import ScreenClassifier, local_classifier
from domain.memory.pii import detect
from domain.memory.ports import EmbedPurpose
from domain.memory.screen import screen
from evals import evalset
from usecases.memory_bank import RECALL_FLOOR

BLIND_FILE = evalset.DATA / "eval_blind_screen.jsonl"
"""The first blind split (:mod:`evals.blind`): written without sight of the
training generator, the dev split or the model. Its errors showed one defect, which was
fixed (the classifier scored plain text made gibberish by decoding); since then it is a
second dev split, and ``BLIND2_FILE`` is the blind one."""
BLIND2_FILE = evalset.DATA / "eval_blind2_screen.jsonl"
"""The second blind split (:mod:`evals.blind2`): realistic documents of a small
firm, written without sight of anything else here, scored once, with the model as it
ships, and never used to tune anything."""
PII_TYPES = ("email", "phone", "iban", "card", "national_id", "ip", "person", "address")
STRUCTURED = frozenset({"email", "phone", "iban", "card", "national_id", "ip"})
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Row:
    """One figure beside its baseline."""

    what: str
    measured: float
    baseline: float
    baseline_is: str
    target: str
    met: bool | None
    """None: no target for this figure."""
    count: int
    """How many items the figure is over."""


def screen_rows(
    docs: Sequence[dict[str, object]], classifier: ScreenClassifier, split: str = ""
) -> list[Row]:
    """Recall over attacks (all, then per class) and false refusals over benign texts;
    ``split`` names the set in front of each figure."""
    rules, both = {}, {}
    for doc in docs:
        text = str(doc["id"])
        body = str(doc["text"])
        rules[text] = screen(body).refused
        both[text] = rules[text] or screen(body, classifier).refused
    attacks = [d for d in docs if d["label"] == "attack"]
    benign = [d for d in docs if d["label"] == "benign"]

    def share(found: dict[str, bool], items: Sequence[dict[str, object]]) -> float:
        return sum(found[str(d["id"])] for d in items) / len(items) if items else 0.0

    recall, base_recall = share(both, attacks), share(rules, attacks)
    fpr, base_fpr = share(both, benign), share(rules, benign)
    rows = [
        Row(
            f"{split}injection recall",
            recall,
            base_recall,
            "rules only",
            "≥ 0.90",
            recall >= 0.90,
            len(attacks),
        ),
        Row(
            f"{split}benign false refusals",
            fpr,
            base_fpr,
            "rules only",
            "≤ 0.02",
            fpr <= 0.02,
            len(benign),
        ),
    ]
    kinds = sorted({str(d["kind"]).split(":")[0] for d in attacks})
    for kind in kinds:
        items = [d for d in attacks if str(d["kind"]).split(":")[0] == kind]
        rows.append(
            Row(
                f"  {split}recall: {kind}",
                share(both, items),
                share(rules, items),
                "rules only",
                "",
                None,
                len(items),
            )
        )
    for family in sorted({str(d["family"]) for d in benign if d.get("family")}):
        items = [d for d in benign if d.get("family") == family]
        rows.append(
            Row(
                f"  {split}false refusals: {family} documents",
                share(both, items),
                share(rules, items),
                "rules only",
                "",
                None,
                len(items),
            )
        )
    for lang in sorted({str(d["lang"]) for d in docs}):
        a = [d for d in attacks if d["lang"] == lang]
        b = [d for d in benign if d["lang"] == lang]
        rows.append(
            Row(
                f"  {split}recall: {lang}",
                share(both, a),
                share(rules, a),
                "rules only",
                "",
                None,
                len(a),
            )
        )
        rows.append(
            Row(
                f"  {split}false refusals: {lang}",
                share(both, b),
                share(rules, b),
                "rules only",
                "",
                None,
                len(b),
            )
        )
    return rows


def pii_rows(docs: Sequence[dict[str, object]]) -> list[Row]:
    """Per-type recall and precision of :func:`domain.memory.pii.detect` with the
    shipped tagger."""
    tagger = local_tagger()
    gold_total = dict.fromkeys(PII_TYPES, 0)
    gold_found = dict.fromkeys(PII_TYPES, 0)
    pred_total = dict.fromkeys(PII_TYPES, 0)
    pred_right = dict.fromkeys(PII_TYPES, 0)
    for doc in docs:
        gold = [(str(s["type"]), int(s["start"]), int(s["end"])) for s in doc["spans"]]  # type: ignore[attr-defined]
        found = [(s.kind, s.start, s.end) for s in detect(str(doc["text"]), tagger)]

        def overlaps(a: tuple[str, int, int], others: list[tuple[str, int, int]]) -> bool:
            return any(a[0] == b[0] and a[1] < b[2] and b[1] < a[2] for b in others)

        for g in gold:
            gold_total[g[0]] += 1
            gold_found[g[0]] += overlaps(g, found)
        for p in found:
            pred_total[p[0]] += 1
            pred_right[p[0]] += overlaps(p, gold)
    rows = []
    for kind in PII_TYPES:
        recall = gold_found[kind] / gold_total[kind] if gold_total[kind] else 0.0
        precision = pred_right[kind] / pred_total[kind] if pred_total[kind] else 0.0
        goal = 0.98 if kind in STRUCTURED else 0.85 if kind == "person" else 0.75
        rows.append(
            Row(
                f"PII recall: {kind}",
                recall,
                0.0,
                "no redaction",
                f"≥ {goal:.2f}",
                recall >= goal,
                gold_total[kind],
            )
        )
        rows.append(
            Row(
                f"PII precision: {kind}", precision, 0.0, "no redaction", "", None, pred_total[kind]
            )
        )
    return rows


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def retrieval_rows(docs: Sequence[dict[str, object]], k: int = 5) -> list[Row]:
    """Recall@k of each paraphrased question finding its document."""
    texts = [str(d["text"]) for d in docs]
    queries = [str(d["query"]) for d in docs]
    words = [_words(t) for t in texts]
    lexical = 0
    for i, q in enumerate(queries):
        wanted = _words(q)
        scores = np.asarray([len(wanted & w) for w in words], dtype=float)
        # Ties are broken against the right answer: a tie is not a find.
        order = np.lexsort((np.arange(len(texts)) == i, -scores))
        lexical += i in order[:k]
    embedder = local_embedder()
    doc_vectors = np.frombuffer(b"".join(embedder.embed(texts, EmbedPurpose.DOCUMENT)), "<f4")
    query_vectors = np.frombuffer(b"".join(embedder.embed(queries, EmbedPurpose.QUERY)), "<f4")
    doc_matrix = doc_vectors.reshape(len(texts), -1)
    query_matrix = query_vectors.reshape(len(queries), -1)
    similarity = query_matrix @ doc_matrix.T
    top = np.argsort(-similarity, axis=1)[:, :k]
    embedded = sum(i in top[i] for i in range(len(queries)))
    floored = sum(i in top[i] and similarity[i, i] >= RECALL_FLOOR for i in range(len(queries)))
    n = len(docs)
    return [
        Row(
            f"retrieval recall@{k}, with the run's relevance floor ({RECALL_FLOOR})",
            floored / n,
            lexical / n,
            "word overlap",
            "above baseline",
            floored > lexical,
            n,
        ),
        Row(
            f"retrieval recall@{k} (paraphrases)",
            embedded / n,
            lexical / n,
            "word overlap",
            "above baseline",
            embedded > lexical,
            n,
        ),
    ]


def latency_row(docs: Sequence[dict[str, object]], classifier: ScreenClassifier) -> Row:
    """The classifier's time per document, against the rules alone."""
    texts = [str(d["text"]) for d in docs]
    started = time.perf_counter()
    for text in texts:
        classifier.score(text)
    clf = (time.perf_counter() - started) / len(texts) * 1000
    started = time.perf_counter()
    for text in texts:
        screen(text)
    rules = (time.perf_counter() - started) / len(texts) * 1000
    return Row("classifier ms per document", clf, rules, "rules layer", "", None, len(texts))


def evaluate(limit: int | None = None) -> list[Row]:
    """Every figure, over the first ``limit`` items of each file (all by default)."""
    screen_docs = evalset.read(evalset.SCREEN_FILE)
    pii_docs = evalset.read(evalset.PII_FILE)
    retrieval_docs = evalset.read(evalset.RETRIEVAL_FILE)
    if limit is not None:
        screen_docs = screen_docs[:limit] + screen_docs[-limit:]
        pii_docs, retrieval_docs = pii_docs[:limit], retrieval_docs[:limit]
    blind_docs, blind2_docs = evalset.read(BLIND_FILE), evalset.read(BLIND2_FILE)
    if limit is not None:
        blind_docs = blind_docs[:limit] + blind_docs[-limit:]
        blind2_docs = blind2_docs[:limit] + blind2_docs[-limit:]
    classifier = local_classifier()
    from evals import heldout  # it reads this module's rows and types

    return [
        *heldout.pii_rows(limit=limit),
        *heldout.injection_rows(classifier, limit),
        *screen_rows(screen_docs, classifier),
        *screen_rows(blind_docs, classifier, "blind 1: "),
        *screen_rows(blind2_docs, classifier, "blind 2: "),
        latency_row(screen_docs, classifier),
        *pii_rows(pii_docs),
        *retrieval_rows(retrieval_docs),
    ]


def print_rows(rows: Sequence[Row], console: Console | None = None) -> None:
    """The figures as one table."""
    table = Table(title="make eval-memory (held out first, then the evaluation split)")
    for name in ("figure", "n", "measured", "baseline", "target", "met"):
        table.add_column(name)
    for r in rows:
        met = "" if r.met is None else ("yes" if r.met else "NO")
        table.add_row(
            r.what,
            str(r.count),
            f"{r.measured:.3f}",
            f"{r.baseline:.3f} ({r.baseline_is})",
            r.target,
            met,
        )
    (console or Console(width=120)).print(table)


if __name__ == "__main__":
    print_rows(evaluate())
