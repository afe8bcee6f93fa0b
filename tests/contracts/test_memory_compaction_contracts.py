"""The compaction engine port's contract: every engine must pass it (today: the
extractive one). A summary is non-empty, within its budget, deterministic, says only
what its sources say, in their order, and refuses sources with no text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.memory.backends import BackendRefused, compaction_engine
from adapters.memory.compaction import ExtractiveCompactor, sentences
from domain.memory.compaction import CompactionEngine, CompactionSource

ENGINES: list[CompactionEngine] = [ExtractiveCompactor()]

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)
SENTENCE = st.lists(WORDS, min_size=1, max_size=8).map(lambda ws: " ".join(ws).capitalize() + ".")
TEXT = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)


def _sources(texts: list[str]) -> list[CompactionSource]:
    return [CompactionSource(ref=f"r{i}", text=t) for i, t in enumerate(texts)]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
@given(texts=st.lists(TEXT, min_size=1, max_size=5), budget=st.integers(1, 600))
def test_a_summary_is_within_budget_and_says_only_what_the_sources_say(
    engine: CompactionEngine, texts: list[str], budget: int
) -> None:
    summary = engine.compact(_sources(texts), budget)
    assert summary and len(summary) <= budget
    said = [s for t in texts for s in sentences(t)]
    kept = sentences(summary)
    # Every sentence is one of the sources' (or, when none fits, the start of the first).
    assert all(k in said for k in kept) or (len(kept) == 1 and said[0].startswith(summary))
    if all(k in said for k in kept):  # in the sources' order: a subsequence of theirs
        rest = iter(said)
        assert all(any(k == s for s in rest) for k in kept)
    assert engine.compact(_sources(texts), budget) == summary  # deterministic


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_sources_with_no_text_are_refused(engine: CompactionEngine) -> None:
    with pytest.raises(ValueError):
        engine.compact(_sources(["", "   "]), 100)
    with pytest.raises(ValueError):
        engine.compact([], 100)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_each_source_is_represented_when_the_budget_allows(engine: CompactionEngine) -> None:
    texts = [
        "Atlas kickoff is on Thursday. The agenda covers scope and timetable.",
        "Atlas data room opens Monday. Northwind hosts it.",
        "Atlas cap is five thousand dollars. Ledger watches it.",
    ]
    summary = engine.compact(_sources(texts), 400)
    for first in ("Atlas kickoff is on Thursday.", "Atlas data room opens Monday.",
                  "Atlas cap is five thousand dollars."):  # fmt: skip
        assert first in summary
    assert len(engine.compact(_sources(texts), 60)) <= 60


def test_the_engine_is_chosen_by_settings_and_a_non_conforming_one_is_refused() -> None:
    assert compaction_engine("extractive").name == "extractive"
    with pytest.raises(BackendRefused):
        compaction_engine("builtins:object")
    with pytest.raises(BackendRefused):
        compaction_engine("no_such_module_here:Engine")
