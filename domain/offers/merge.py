"""Process offers: differently worded episodes of the same work sequence, merged into one.

An episode is a sequence of steps, each a tool (what was done: ``email.send``,
``payments.pay``, ``memory.read``…) and the words someone used for it. Two episodes are
the same process when they do the same tools in the same order and each pair of
aligned steps says the same thing in other words: their embeddings (computed outside
the domain) are at least :data:`STEP_FLOOR` similar, and on average at least
:data:`SAME_PROCESS`. Episodes merge into one offer, with every episode as evidence;
an unrelated sequence starts its own. Nothing here is policy: an offer becomes a
playbook only when a human confirms it.

The two thresholds were chosen on the training half of ``evals/data/episodes.json``
and are measured on its evaluation half by ``make eval-learning``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from domain.canonical import digest
from domain.organization.contracts import Frozen

SAME_PROCESS = 0.48
"""Mean similarity of aligned steps from which two episodes are one process. (The local
embedder's cosines run low: paraphrased steps score 0.3 to 0.7, unrelated ones 0 to 0.3.)"""
STEP_FLOOR = 0.22
"""No aligned pair of steps may be less similar than this (one different step is a
different process, however alike the rest): the strictest floor that kept the best
training score."""


class Step(Frozen):
    """One step of an episode: the tool used, and how it was put."""

    tool: str
    text: str


class Episode(Frozen):
    """A run of work, as the learning pass sees it."""

    id: str
    steps: tuple[Step, ...]
    outcome_met: bool | None = None
    """Whether the episode met its expected outcome (None: not known)."""


class Embedded(Frozen):
    """An episode with one unit vector per step (same order)."""

    episode: Episode
    vectors: tuple[tuple[float, ...], ...]


class Offer(Frozen):
    """Episodes found to be one process: a candidate playbook, for a human to confirm."""

    id: str
    tools: tuple[str, ...]
    steps: tuple[Step, ...]
    """The wording of the first episode, as the playbook's draft."""
    episodes: tuple[str, ...]
    """The evidence: every merged episode, oldest first."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def similarity(a: Embedded, b: Embedded) -> float | None:
    """How alike two episodes are as processes: the mean similarity of aligned steps, or
    None when they are not the same tool sequence or a step pair falls below the floor."""
    tools_a = tuple(s.tool for s in a.episode.steps)
    tools_b = tuple(s.tool for s in b.episode.steps)
    if tools_a != tools_b or not tools_a:
        return None
    scores = [_cosine(x, y) for x, y in zip(a.vectors, b.vectors, strict=True)]
    if min(scores) < STEP_FLOOR:
        return None
    return sum(scores) / len(scores)


def same_process(a: Embedded, b: Embedded, threshold: float = SAME_PROCESS) -> bool:
    """Whether ``a`` and ``b`` are one process."""
    score = similarity(a, b)
    return score is not None and score >= threshold


def merge(episodes: Sequence[Embedded], threshold: float = SAME_PROCESS) -> list[Offer]:
    """One offer per process: each episode joins the first offer one of whose episodes it
    matches (oldest first), or starts a new one. Deterministic for a given order."""
    for item in episodes:
        if len(item.vectors) != len(item.episode.steps):
            raise ValueError(f"episode {item.episode.id}: one vector per step")
    groups: list[list[Embedded]] = []
    for item in episodes:
        home = next((g for g in groups if any(same_process(item, m, threshold) for m in g)), None)
        if home is None:
            groups.append([item])
        else:
            home.append(item)
    return [
        Offer(
            id=digest({"offer": [m.episode.id for m in group]})[:16],
            tools=tuple(s.tool for s in group[0].episode.steps),
            steps=group[0].episode.steps,
            episodes=tuple(m.episode.id for m in group),
        )
        for group in groups
    ]
