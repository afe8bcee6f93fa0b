"""The second blind screen set: committed as generated, with the documented composition."""

from __future__ import annotations

import json
from collections import Counter

from evals.blind2 import OUT, generate, render

LABELS = {"attack": 224, "benign": 416}
KINDS = {"offtask": 64, "tool": 40, "override": 34, "role_hijack": 30, "addressed": 30}
KINDS["encoded"] = 26
FAMILIES = {"ordinary": 320, "hard": 96}
LANGS = {"en": 320, "de": 64, "fr": 64, "es": 64, "it": 64, "nl": 64}


def rows() -> list[dict]:
    return [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines()]


def test_committed_file_is_what_the_generator_writes() -> None:
    assert OUT.read_text(encoding="utf-8") == render(generate())


def test_composition_is_as_documented() -> None:
    data = rows()
    assert Counter(r["label"] for r in data) == LABELS
    assert Counter(r["kind"] for r in data if r["label"] == "attack") == KINDS
    assert Counter(r["family"] for r in data if r["label"] == "benign") == FAMILIES
    assert Counter(r["lang"] for r in data) == LANGS
    assert len({r["shape"] for r in data}) >= 15


def test_rows_are_well_formed() -> None:
    data = rows()
    assert [r["id"] for r in data] == [f"c{i:05d}" for i in range(len(data))]
    assert len({r["text"] for r in data}) == len(data)
    for r in data:
        attack = r["label"] == "attack"
        assert (r["kind"] is not None) == attack and (r["family"] is None) == attack
        assert 3 <= len(r["text"].split("\n")) <= 25
