"""Work graphs on Temporal: start one, read its state, wait for its end."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.service import RPCError

from adapters.temporal.handles import client_or_unavailable, final_state, status_and_state
from domain.errors import Unavailable
from domain.work_graph.graph import GraphInput, GraphState, graph_workflow_id
from workflows import search_attributes as sa
from workflows.work_graph import WorkGraphWorkflow


class TemporalGraphs:
    """:class:`~domain.work_graph.ports.GraphGateway` over a Temporal client."""

    def __init__(self, client: Client | None, task_queue: str) -> None:
        self._client_or_none = client
        self._task_queue = task_queue

    def _client(self) -> Client:
        return client_or_unavailable(self._client_or_none)

    async def start(self, graph: GraphInput) -> str:
        workflow_id = graph_workflow_id(graph.graph_id)
        try:
            await self._client().start_workflow(
                WorkGraphWorkflow.run,
                graph,
                id=workflow_id,
                task_queue=self._task_queue,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(sa.ORG, graph.org_id),
                        SearchAttributePair(sa.NEEDS_HUMAN, False),
                    ]
                ),
                static_summary=f"work graph: {graph.graph.name[:80]}",
            )
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc
        return workflow_id

    async def state(self, graph_id: str) -> tuple[str, GraphState]:
        handle = self._client().get_workflow_handle_for(
            WorkGraphWorkflow.run, graph_workflow_id(graph_id)
        )
        return await status_and_state(handle, WorkGraphWorkflow.state, f"no work graph {graph_id}")

    async def result(self, graph_id: str) -> GraphState:
        handle = self._client().get_workflow_handle_for(
            WorkGraphWorkflow.run, graph_workflow_id(graph_id)
        )
        return await final_state(handle)
