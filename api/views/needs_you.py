"""The needs-you queue as a rich table (the command line and the demo print it)."""

from __future__ import annotations

from datetime import datetime

from rich.markup import escape
from rich.table import Table

from domain.needs_you.items import QueueItem
from usecases.needs_you import NeedsYou

EVIDENCE_SHOWN = 6
"""How many pieces of evidence a row shows (the API gives them all)."""


def _evidence(item: QueueItem) -> str:
    lines = [
        f"{e.label}: {e.detail}" + (f" ({e.ref})" if e.ref else "")
        for e in item.evidence[:EVIDENCE_SHOWN]
        if e.detail
    ]
    more = len(item.evidence) - EVIDENCE_SHOWN
    return escape("\n".join(lines + ([f"… {more} more"] if more > 0 else [])))


def _span(seconds: float) -> str:
    """A duration as a person reads it at a glance: 40s, 12m, 5h, 3d."""
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if abs(seconds) >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def _when(item: QueueItem, now: datetime) -> str:
    text = f"{item.urgency}\nwaiting {_span((now - item.waiting_since).total_seconds())}"
    if item.due is not None:
        left = (item.due - now).total_seconds()
        text += f"\nexpires in {_span(left)}" if left > 0 else "\npast due"
    return text


def needs_you_table(queue: NeedsYou) -> Table:
    """One row per item: urgency, kind, what, evidence, actions (withheld items: that they
    exist, nothing more)."""
    table = Table(title=f"needs you — {queue.org_id}", show_lines=True)
    for column in ("urgency", "kind", "what", "evidence", "actions"):
        table.add_column(column)
    for item in queue.items:
        if not isinstance(item, QueueItem):
            table.add_row("-", "withheld", escape(item.reason), "", "")
            continue
        actions = "\n".join(
            f"{a.kind.value}: {a.cli or a.method + ' ' + a.path}" for a in item.actions
        )
        table.add_row(
            _when(item, queue.generated_at),
            item.kind.value,
            escape(f"{item.title}\n{item.subject_id}"),
            _evidence(item),
            escape(actions) or "-",
        )
    unwired = [s.name for s in queue.sources if not s.wired]
    if unwired:
        table.caption = f"not wired yet: {', '.join(unwired)}"
    return table
