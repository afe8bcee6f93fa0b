"""A run as rich tables (the command line prints it; ``--json`` prints the view itself)."""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from usecases.runs import RunView


def _status(view: RunView) -> str:
    state = view.state
    return view.workflow_status if state is None else f"{state.status} ({view.workflow_status})"


def run_tables(view: RunView) -> Group:
    """The run's header, its nodes, and each intent with its newest decision; what the
    agent asked, or why its reply was refused, when it did."""
    state = view.state
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("run", view.run_id)
    head.add_row("task", escape(view.task))
    head.add_row("asked by", view.started_by or "the system (no one asked)")
    head.add_row("status", _status(view))
    if state is not None and state.summary:
        head.add_row("summary", escape(state.summary))
    if state is not None and state.question:
        head.add_row("asks you", escape(state.question))
    if state is not None and state.rejection is not None:
        head.add_row("refused", f"{state.rejection.rule}: {escape(state.rejection.reason)}")
    if state is not None and state.error:
        head.add_row("error", escape(state.error))
    head.add_row("Temporal UI", view.ui_url)
    parts: list[Table | Text] = [head]
    if state is not None:
        nodes = Table(title="nodes")
        for name in state.nodes:
            nodes.add_column(name)
        nodes.add_row(*(str(s) for s in state.nodes.values()))
        parts.append(nodes)
    decisions = Table(title="intents and decisions")
    for column in ("intent", "tool", "projects", "status", "stage", "rule", "reason / release"):
        decisions.add_column(column)
    for record in view.intents:
        newest = record.decisions[-1] if record.decisions else None
        why = "" if newest is None else newest.reason
        if newest is not None and newest.release:
            why += "\nrelease: " + "; ".join(newest.release)
        decisions.add_row(
            record.intent.id,
            record.intent.tool,
            ", ".join(record.intent.projects),
            record.status,
            "" if newest is None else str(newest.stage),
            "" if newest is None else newest.rule,
            escape(why),
        )
    if view.intents:
        parts.append(decisions)
    else:
        parts.append(Text("no intents", style="dim"))
    return Group(*parts)
