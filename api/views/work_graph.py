"""Work graphs and deliberations as rich tables (the command line and the demo print them)."""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.table import Table

from domain.deliberation.state import DeliberationState
from domain.work_graph.graph import GraphState


def graph_table(state: GraphState) -> Table:
    """Each step: its agent, status, run and summary (withheld ones say so)."""
    table = Table(title=f"work graph {escape(state.name)}: {state.status.value}")
    for column in ("step", "agent", "status", "run", "summary"):
        table.add_column(column)
    for step in state.steps:
        summary = "(withheld: outside your projects)" if step.withheld else step.summary
        table.add_row(
            step.id,
            escape(step.agent),
            step.status.value,
            (step.run_id or "")[:8],
            escape(summary[:120]),
        )
    return table


def deliberation_tables(state: DeliberationState) -> Group:
    """Each persona's turn, the provenance (persona, round, claim, gate), the synthesis."""
    turns = Table(title=f"deliberation {state.deliberation_id[:8]}: {state.status.value}")
    for column in ("persona", "released", "rounds", "outcome"):
        turns.add_column(column)
    for p in state.personas:
        turns.add_row(p.name, str(p.released), str(p.rounds), p.outcome or "")
    trail = Table(title="provenance")
    for column in ("persona", "round", "gate", "claim", "cites", "why"):
        trail.add_column(column)
    for e in state.provenance:
        why = "; ".join(f"{f.check.value}: {f.detail}" for f in e.failures)
        trail.add_row(
            e.persona,
            str(e.round),
            e.gate,
            escape((e.claim or "(unreadable reply)")[:90]),
            escape(", ".join(e.cites)),
            escape(why[:120]),
        )
    parts: list[Table] = [turns, trail]
    if state.synthesis is not None:
        actions = Table(title=f"synthesis run {(state.synthesis_run_id or '')[:8]}: brokered")
        for column in ("tool", "projects", "decision", "rule", "dispatched"):
            actions.add_column(column)
        for view in state.synthesis.intents:
            actions.add_row(
                view.intent.tool,
                ", ".join(view.intent.projects),
                view.decision.outcome.value,
                view.decision.rule,
                "yes" if view.dispatch is not None else "no",
            )
        parts.append(actions)
    return Group(*parts)
