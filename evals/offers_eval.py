"""``make eval-learning``: process-offer merging on a committed set of episode groups
(``evals/data/episodes.json``): paraphrased episodes of one process must merge into
one offer, and near misses (the same tools, different work) must not.

Figures, on the evaluation half, beside two baselines measured in the same run:

- pairwise precision and recall of "same offer" against the groups;
- processes that became exactly one offer, and near misses wrongly merged.

The baselines: identical wording (what a lexical duplicate check finds) and the same
tool sequence (what a purely structural one finds). ``--tune`` searches the thresholds
on the training half (how :data:`domain.offers.merge.SAME_PROCESS` and ``STEP_FLOOR``
were chosen).
"""

from __future__ import annotations

import argparse
import itertools
import json
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from adapters.memory.embedders import local_embedder
from domain.memory.ports import EmbedPurpose
from domain.offers import merge as offers
from domain.offers.merge import Embedded, Episode, Step

DATA = Path(__file__).parent / "data" / "episodes.json"


@dataclass(frozen=True)
class Labelled:
    """An embedded episode and the group it belongs to."""

    item: Embedded
    group: str
    near_miss: bool


def load(path: Path = DATA) -> tuple[list[Labelled], list[Labelled]]:
    """The training and evaluation halves, embedded with the local embedder."""
    groups = json.loads(path.read_text(encoding="utf-8"))["groups"]
    embedder = local_embedder()
    halves: tuple[list[Labelled], list[Labelled]] = ([], [])
    for index, group in enumerate(groups):
        for n, raw in enumerate(group["episodes"]):
            steps = tuple(Step(tool=tool, text=text) for tool, text in raw)
            blobs = embedder.embed([s.text for s in steps], EmbedPurpose.DOCUMENT)
            vectors = tuple(
                struct.unpack(f"<{len(b) // 4}f", b) for b in blobs
            )  # float32, little-endian
            episode = Episode(id=f"{group['name']}-{n}", steps=steps)
            halves[(index // 2) % 2].append(
                Labelled(
                    Embedded(episode=episode, vectors=vectors),
                    group["name"],
                    "near_miss_of" in group,
                )
            )
    return halves


Merger = Callable[[Sequence[Embedded]], list[offers.Offer]]


def _by(same: Callable[[Embedded, Embedded], bool]) -> Merger:
    """A merger that joins an episode to the first offer with a member ``same`` as it."""

    def merge(items: Sequence[Embedded]) -> list[offers.Offer]:
        groups: list[list[Embedded]] = []
        for item in items:
            home = next((g for g in groups if any(same(item, m) for m in g)), None)
            (groups.append([item]) if home is None else home.append(item))
        return [
            offers.Offer(id=str(i), tools=(), steps=(), episodes=tuple(m.episode.id for m in g))
            for i, g in enumerate(groups)
        ]

    return merge


def _wording(a: Embedded, b: Embedded) -> bool:
    def norm(e: Embedded) -> tuple[tuple[str, str], ...]:
        return tuple((s.tool, " ".join(s.text.lower().split())) for s in e.episode.steps)

    return norm(a) == norm(b)


def _tools(a: Embedded, b: Embedded) -> bool:
    return [s.tool for s in a.episode.steps] == [s.tool for s in b.episode.steps]


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    one_offer: int
    processes: int
    near_misses_merged: int
    near_misses: int


def score(labelled: Sequence[Labelled], merged: list[offers.Offer]) -> Score:
    """Pairwise precision and recall of "same offer", and per-group outcomes."""
    offer_of = {e: o.id for o in merged for e in o.episodes}
    group_of = {x.item.episode.id: x.group for x in labelled}
    tp = fp = fn = 0
    for a, b in itertools.combinations(group_of, 2):
        same_truth, same_found = group_of[a] == group_of[b], offer_of[a] == offer_of[b]
        tp += same_truth and same_found
        fp += same_found and not same_truth
        fn += same_truth and not same_found
    processes = {x.group for x in labelled if not x.near_miss}
    one = sum(
        len({offer_of[x.item.episode.id] for x in labelled if x.group == g}) == 1
        and all(
            group_of[e] == g
            for o in merged
            if o.id in {offer_of[x.item.episode.id] for x in labelled if x.group == g}
            for e in o.episodes
        )
        for g in processes
    )
    misses = [x for x in labelled if x.near_miss]
    merged_misses = sum(
        any(
            group_of[e] != x.group
            for o in merged
            if x.item.episode.id in o.episodes
            for e in o.episodes
        )
        for x in misses
    )
    return Score(
        precision=tp / (tp + fp) if tp + fp else 1.0,
        recall=tp / (tp + fn) if tp + fn else 1.0,
        one_offer=one,
        processes=len(processes),
        near_misses_merged=merged_misses,
        near_misses=len(misses),
    )


def tune(train: Sequence[Labelled]) -> list[tuple[float, float, Score]]:
    """Every threshold pair on the training half, best first (F1, then precision)."""
    results = []
    original = (offers.SAME_PROCESS, offers.STEP_FLOOR)
    for mean in [x / 100 for x in range(20, 90, 2)]:
        for floor in [x / 100 for x in range(0, 70, 2)]:
            offers.STEP_FLOOR = floor
            s = score(train, offers.merge([x.item for x in train], threshold=mean))
            results.append((mean, floor, s))
    offers.SAME_PROCESS, offers.STEP_FLOOR = original

    def key(r: tuple[float, float, Score]) -> tuple[float, float]:
        s = r[2]
        f1 = 2 * s.precision * s.recall / (s.precision + s.recall) if s.precision + s.recall else 0
        return (f1, s.precision)

    return sorted(results, key=key, reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--tune", action="store_true", help="search thresholds on the training half"
    )
    args = parser.parse_args()
    console = Console(width=120)
    train, evaluation = load()
    if args.tune:
        for mean, floor, s in tune(train)[:10]:
            console.print(
                f"mean ≥ {mean:.2f}, floor ≥ {floor:.2f}: P {s.precision:.3f} R {s.recall:.3f}"
            )
        return
    table = Table(title="Process-offer merging, evaluation half (training half in brackets)")
    for column in (
        "method",
        "pair precision",
        "pair recall",
        "processes → one offer",
        "near misses merged",
    ):
        table.add_column(column)
    methods: list[tuple[str, Merger]] = [
        ("tools + step embeddings (ours)", lambda items: offers.merge(items)),
        ("baseline: identical wording", _by(_wording)),
        ("baseline: same tool sequence", _by(_tools)),
    ]
    for name, merge in methods:
        e = score(evaluation, merge([x.item for x in evaluation]))
        t = score(train, merge([x.item for x in train]))
        table.add_row(
            name,
            f"{e.precision:.3f} ({t.precision:.3f})",
            f"{e.recall:.3f} ({t.recall:.3f})",
            f"{e.one_offer}/{e.processes} ({t.one_offer}/{t.processes})",
            f"{e.near_misses_merged}/{e.near_misses} ({t.near_misses_merged}/{t.near_misses})",
        )
    console.print(table)
    console.print(
        f"thresholds: mean step similarity ≥ {offers.SAME_PROCESS}, "
        f"every step ≥ {offers.STEP_FLOOR}"
    )


if __name__ == "__main__":
    main()
