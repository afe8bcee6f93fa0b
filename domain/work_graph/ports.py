"""Ports of work graphs: where a graph runs."""

from __future__ import annotations

from typing import Protocol

from domain.work_graph.graph import GraphInput, GraphState


class GraphGateway(Protocol):
    """Where work graphs execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(self, graph: GraphInput) -> str:
        """Start the graph's workflow; its workflow id."""
        ...

    async def state(self, graph_id: str) -> tuple[str, GraphState]:
        """The workflow's status and the graph's state; :class:`NotFound` for none."""
        ...

    async def result(self, graph_id: str) -> GraphState:
        """Wait for the graph to finish: its final state."""
        ...
