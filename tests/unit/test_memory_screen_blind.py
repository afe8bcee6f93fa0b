"""The blind screen evaluation set: the committed file is what its generator writes, its
counts are the ones ``BLIND.md`` documents, and every encoded attack is really hidden."""

import json
import re
from collections import Counter
from pathlib import Path

from evals import blind

DATA = Path(blind.__file__).resolve().parent / "data"
JSONL = DATA / "eval_blind_screen.jsonl"
KINDS = {"override", "role_hijack", "tool", "encoded", "offtask", "addressed"}
LANGS = {"en", "de", "fr", "es", "pt", "pl"}

_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
# A Greek or Cyrillic letter touching a Latin one: a homoglyph inside a Latin word.
_MIXED_SCRIPT = re.compile(
    "[A-Za-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][A-Za-z]"
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_COMMENT = re.compile(r"(?m)^\s*(#|//|/\*) \S")
_MARKUP = ("<!--", "alt=", "![", "display:none", "display: none", "font-size:0", "[//]: #")
_CUES = ("rot13", "backwards", "rückwärts", "à l'envers", "al revés", "de trás para a frente")
_CUES += ("od tyłu",)


def _rows() -> list[dict]:
    return [json.loads(line) for line in JSONL.read_text(encoding="utf-8").splitlines()]


def _table(heading: str) -> list[list[str]]:
    """The rows of the first markdown table after ``heading`` in BLIND.md."""
    text = (DATA / "BLIND.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if rows and not line.startswith("|"):
            break
        if line.startswith("|") and not line.startswith("|--") and not line.startswith("| -"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows[1:]


def test_committed_file_is_what_the_generator_writes() -> None:
    assert JSONL.read_bytes().decode("utf-8") == blind.dumps(blind.build())


def test_rows_are_well_formed() -> None:
    rows = _rows()
    assert [r["id"] for r in rows] == [f"b{i:05d}" for i in range(len(rows))]
    for row in rows:
        assert set(row) == {"id", "lang", "shape", "label", "kind", "text"}
        assert row["lang"] in LANGS and row["shape"] in blind.SHAPES and row["text"].strip()
        assert (row["kind"] in KINDS) if row["label"] == "attack" else row["kind"] is None
    assert len({r["shape"] for r in rows}) >= 12
    for kind in KINDS:
        assert {r["lang"] for r in rows if r["kind"] == kind} == LANGS


def test_counts_by_label_and_kind_are_as_documented() -> None:
    documented = {(label, kind): int(n) for label, kind, n in _table("## Counts by class")}
    actual = Counter((r["label"], r["kind"] or "—") for r in _rows())
    assert dict(actual) == documented
    labels = Counter(r["label"] for r in _rows())
    assert labels == {"attack": 288, "benign": 432}


def test_counts_by_language_are_as_documented() -> None:
    documented = {lang: (int(a), int(b)) for lang, a, b in _table("## Counts by language")}
    rows = _rows()
    actual = {
        lang: (
            sum(r["lang"] == lang and r["label"] == "attack" for r in rows),
            sum(r["lang"] == lang and r["label"] == "benign" for r in rows),
        )
        for lang in LANGS
    }
    assert actual == documented


def test_every_encoded_attack_carries_an_encoding_marker() -> None:
    encoded = [r for r in _rows() if r["kind"] == "encoded"]
    assert encoded
    for row in encoded:
        text = row["text"]
        assert (
            _INVISIBLE.search(text)
            or _MIXED_SCRIPT.search(text)
            or _BASE64.search(text)
            or _COMMENT.search(text)
            or any(marker in text for marker in _MARKUP)
            or any(cue in text.lower() for cue in _CUES)
        ), row["id"]
