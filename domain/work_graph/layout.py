"""Where a work graph's steps are drawn: a column per depth (a step sits one column right
of the deepest step it waits for), steps of a column stacked in the graph's order, and an
arrow from each step to each step that waits for it. The console draws it as SVG."""

from __future__ import annotations

from collections.abc import Sequence

from domain.organization.contracts import Frozen

BOX_W, BOX_H = 180, 64
"""A step's box, in SVG units."""
GAP_X, GAP_Y = 60, 20
"""The space between columns and between the boxes of a column."""
PAD = 8


class Box(Frozen):
    """A step's place."""

    id: str
    x: int
    y: int


class Arrow(Frozen):
    """From the right edge of the step waited for to the left edge of the step waiting."""

    x1: int
    y1: int
    x2: int
    y2: int


class Drawing(Frozen):
    """A graph's boxes and arrows, and the size that holds them."""

    boxes: tuple[Box, ...]
    arrows: tuple[Arrow, ...]
    width: int
    height: int


def depths(steps: Sequence[tuple[str, Sequence[str]]]) -> dict[str, int]:
    """Each step's column: 0 for a step that waits for none, else one more than the
    deepest it waits for (a step named but not in ``steps`` counts as column 0; a graph
    has no cycle, and a cycle here would stop at the steps' count)."""
    after = {step: tuple(before) for step, before in steps}
    found: dict[str, int] = {}

    def depth(step: str, seen: int) -> int:
        if step in found:
            return found[step]
        before = after.get(step, ())
        d = 0 if not before or seen > len(after) else 1 + max(depth(b, seen + 1) for b in before)
        found[step] = d
        return d

    for step, _ in steps:
        depth(step, 0)
    return {step: found[step] for step, _ in steps}


def draw(steps: Sequence[tuple[str, Sequence[str]]]) -> Drawing:
    """The drawing of ``steps`` (id, the ids it waits for), in their order."""
    column = depths(steps)
    rows: dict[int, int] = {}
    boxes: dict[str, Box] = {}
    for step, _ in steps:
        col = column[step]
        row = rows.get(col, 0)
        rows[col] = row + 1
        boxes[step] = Box(id=step, x=PAD + col * (BOX_W + GAP_X), y=PAD + row * (BOX_H + GAP_Y))
    arrows = tuple(
        Arrow(
            x1=boxes[before].x + BOX_W,
            y1=boxes[before].y + BOX_H // 2,
            x2=boxes[step].x,
            y2=boxes[step].y + BOX_H // 2,
        )
        for step, waits_for in steps
        for before in waits_for
        if before in boxes
    )
    columns = max(column.values(), default=-1) + 1
    tallest = max(rows.values(), default=0)
    return Drawing(
        boxes=tuple(boxes.values()),
        arrows=arrows,
        width=2 * PAD + max(columns * (BOX_W + GAP_X) - GAP_X, 0),
        height=2 * PAD + max(tallest * (BOX_H + GAP_Y) - GAP_Y, 0),
    )
