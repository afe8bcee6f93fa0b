"""``verletica graph``: work graphs, several agent runs in dependency order."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.common import As, Org, Replies, console, fail, read_text, replies, services, show

if TYPE_CHECKING:
    from domain.work_graph.graph import GraphState
    from usecases.context import Ports

graph_app = typer.Typer(
    help="Work graphs: several agent runs in dependency order.", no_args_is_help=True
)


@graph_app.command("run")
def graph_run(
    file: Annotated[Path, typer.Argument(help="The graph as JSON: {name, steps}.")],
    org: Org,
    actor: As = "",
    reply: Replies = None,
    wait: Annotated[bool, typer.Option(help="Wait until it ends or waits on a human.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the state as JSON.")] = False,
) -> None:
    """Start a work graph; each step is an agent run governed by the broker."""
    from api.views.work_graph import graph_table
    from domain.work_graph.graph import GraphStatus, WorkGraph
    from usecases import work_graph

    given = {k: v[0] for k, v in replies(reply, "STEP").items()}
    text = read_text(file, "the graph")

    async def go(s: Ports) -> tuple[str, GraphState]:
        graph = WorkGraph.model_validate_json(text)
        started = await work_graph.start_graph(s, org, actor, graph, given)
        status, state = "running", started
        for _ in range(600 if wait else 0):
            status, state = await work_graph.graph_view(s, started.graph_id, actor)
            if status != "running" or state.status.value == "needs_human":
                break
            await asyncio.sleep(0.2)
        return status, state

    status, state = services(go, temporal=True)
    if as_json:
        show(state)
    else:
        console.print(f"graph {state.graph_id}")
        console.print(graph_table(state))
    if state.status is GraphStatus.FAILED or status not in ("running", "completed"):
        fail(f"work graph {state.graph_id}", _graph_reasons(status, state))


def _graph_reasons(status: str, state: GraphState) -> list[str]:
    """Why a graph failed: each step that did not get done, with what its run says."""
    from domain.work_graph.graph import StepStatus

    reasons = [
        f"step {step.id} {step.status.value}"
        + (": (withheld: outside your projects)" if step.withheld else f": {step.summary}")
        for step in state.steps
        if step.status in (StepStatus.FAILED, StepStatus.SKIPPED)
    ]
    return reasons or [f"its workflow {status}"]


@graph_app.command("show")
def graph_show(graph_id: str, actor: As = "") -> None:
    """A work graph's steps, as you may see them."""
    from api.views.work_graph import graph_table
    from usecases import work_graph

    async def go(s: Ports) -> GraphState:
        return (await work_graph.graph_view(s, graph_id, actor))[1]

    console.print(graph_table(services(go, temporal=True)))
