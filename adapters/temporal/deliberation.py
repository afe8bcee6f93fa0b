"""Deliberations on Temporal: start one, read its state, wait for its end."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.service import RPCError

from adapters.temporal.handles import client_or_unavailable, final_state, status_and_state
from domain.deliberation.state import DeliberationInput, DeliberationState, deliberation_workflow_id
from domain.errors import Unavailable
from workflows import search_attributes as sa
from workflows.deliberation import DeliberationWorkflow


class TemporalDeliberations:
    """:class:`~domain.deliberation.ports.DeliberationGateway` over a Temporal client."""

    def __init__(self, client: Client | None, task_queue: str) -> None:
        self._client_or_none = client
        self._task_queue = task_queue

    def _client(self) -> Client:
        return client_or_unavailable(self._client_or_none)

    async def start(self, deliberation: DeliberationInput) -> str:
        workflow_id = deliberation_workflow_id(deliberation.deliberation_id)
        try:
            await self._client().start_workflow(
                DeliberationWorkflow.run,
                deliberation,
                id=workflow_id,
                task_queue=self._task_queue,
                search_attributes=TypedSearchAttributes(
                    [SearchAttributePair(sa.ORG, deliberation.org_id)]
                ),
                static_summary=f"deliberation: {deliberation.question[:80]}",
            )
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc
        return workflow_id

    async def state(self, deliberation_id: str) -> tuple[str, DeliberationState]:
        handle = self._client().get_workflow_handle_for(
            DeliberationWorkflow.run, deliberation_workflow_id(deliberation_id)
        )
        return await status_and_state(
            handle, DeliberationWorkflow.state, f"no deliberation {deliberation_id}"
        )

    async def result(self, deliberation_id: str) -> DeliberationState:
        handle = self._client().get_workflow_handle_for(
            DeliberationWorkflow.run, deliberation_workflow_id(deliberation_id)
        )
        return await final_state(handle)
