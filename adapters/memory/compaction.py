"""An extractive compaction engine: the summary is the sources' most representative
sentences, verbatim and in their order. It invents nothing (every sentence is one a
source says), needs no model and is deterministic, so a summary can be checked against
what it replaces."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from domain.memory.compaction import CompactionSource

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def sentences(text: str) -> list[str]:
    """``text``'s sentences, stripped, in order."""
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


class ExtractiveCompactor:
    """Keeps each source's first sentence, then the sentences whose words recur most
    across the sources, until the budget is spent; in the sources' order."""

    name = "extractive"

    def compact(self, sources: Sequence[CompactionSource], max_chars: int) -> str:
        if max_chars < 1:
            raise ValueError("a summary needs room for at least one character")
        split = [
            (i, j, s) for i, src in enumerate(sources) for j, s in enumerate(sentences(src.text))
        ]
        if not split:
            raise ValueError("there is nothing to compact: the records hold no text")
        weight = Counter(w.lower() for _, _, s in split for w in _WORD.findall(s))

        def score(sentence: str) -> float:
            words = [w.lower() for w in _WORD.findall(sentence)]
            return sum(weight[w] for w in words) / (len(words) + 1)

        firsts = [(i, j, s) for i, j, s in split if j == 0]
        rest = sorted(
            ((i, j, s) for i, j, s in split if j > 0), key=lambda t: (-score(t[2]), t[0], t[1])
        )
        chosen: list[tuple[int, int, str]] = []
        used = 0
        for candidate in [*firsts, *rest]:
            cost = len(candidate[2]) + (1 if chosen else 0)
            if used + cost <= max_chars:
                chosen.append(candidate)
                used += cost
        if not chosen:  # not even one sentence fits: the first one, cut at the budget
            return split[0][2][:max_chars]
        return " ".join(s for _, _, s in sorted(chosen))
