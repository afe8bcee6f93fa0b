"""An organization's barriers and spend caps indexed by project.

The scope and commitments stages ask two questions of every intent: does its reach span
a barrier, and which spend caps cover it. Scanning every barrier and every commitment
costs time in proportion to the organization's size; the index answers both in time
proportional to the reach (a handful of projects), and is built once per configuration
(the store keeps it beside the configuration it caches).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from domain.organization.contracts import Barrier, Commitment, Delivery, SpendCap


@dataclass(frozen=True, slots=True)
class PolicyIndex:
    """Barriers and spend-cap commitments by project; answers as the plain scans would,
    in the same order (the first barrier crossed, caps in the organization's order)."""

    barriers: tuple[Barrier, ...]
    sides: Mapping[str, tuple[tuple[int, int], ...]]
    """For each project: (barrier position, group position) of every barrier group it is in."""
    caps_everywhere: tuple[tuple[int, Commitment], ...]
    """Spend caps that name no project (they bind the whole organization), with their
    position among the organization's commitments."""
    caps_by_project: Mapping[str, tuple[tuple[int, Commitment], ...]]
    deliveries: tuple[Commitment, ...] = ()
    """Delivery commitments, in the organization's order (few: scanned, not indexed)."""

    @classmethod
    def of(cls, barriers: Iterable[Barrier], commitments: Iterable[Commitment]) -> PolicyIndex:
        """Index ``barriers`` and the spend caps among ``commitments`` (confirmed or not:
        whether one binds depends on the moment, and is asked at decision time)."""
        barriers, commitments = tuple(barriers), tuple(commitments)
        sides: dict[str, list[tuple[int, int]]] = {}
        for b, barrier in enumerate(barriers):
            for g, group in enumerate(barrier.groups):
                for project in group:
                    sides.setdefault(project, []).append((b, g))
        everywhere: list[tuple[int, Commitment]] = []
        by_project: dict[str, list[tuple[int, Commitment]]] = {}
        for position, c in enumerate(commitments):
            if not isinstance(c.constraint, SpendCap):
                continue
            if not c.projects:
                everywhere.append((position, c))
            for project in dict.fromkeys(c.projects):
                by_project.setdefault(project, []).append((position, c))
        return cls(
            barriers=barriers,
            sides={p: tuple(s) for p, s in sides.items()},
            caps_everywhere=tuple(everywhere),
            caps_by_project={p: tuple(c) for p, c in by_project.items()},
            deliveries=tuple(c for c in commitments if isinstance(c.constraint, Delivery)),
        )

    def crossed(self, reach: Iterable[str]) -> tuple[Barrier, list[int]] | None:
        """The first barrier (in the organization's order) whose groups ``reach`` spans
        more than one of, with the positions of the groups it touches; None if none."""
        touched: dict[int, set[int]] = {}
        for project in reach:
            for b, g in self.sides.get(project, ()):
                touched.setdefault(b, set()).add(g)
        spanned = [b for b, groups in touched.items() if len(groups) > 1]
        if not spanned:
            return None
        first = min(spanned)
        return self.barriers[first], sorted(touched[first])

    def caps(self, reach: Iterable[str]) -> list[Commitment]:
        """Spend caps that cover ``reach`` (those naming one of its projects, and those
        naming none), in the organization's order, each once."""
        found = dict(self.caps_everywhere)
        for project in reach:
            found.update(self.caps_by_project.get(project, ()))
        return [found[position] for position in sorted(found)]
