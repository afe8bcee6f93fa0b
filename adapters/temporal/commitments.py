"""The :class:`~domain.commitments.ports.ExtractionGateway` over a Temporal client."""

from __future__ import annotations

from temporalio.client import Client, WorkflowFailureError
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from adapters.temporal.runs import WORKFLOW_TASK_TIMEOUT
from domain.commitments.extraction import ExtractionInput, ExtractionResult
from domain.errors import Forbidden, Unavailable
from domain.runs.failures import ErrorType
from workflows import search_attributes as sa
from workflows.commitments import ExtractCommitmentsWorkflow


def workflow_id(extraction: ExtractionInput) -> str:
    """The extraction's workflow id."""
    return f"extract-{extraction.extraction_id}"


class TemporalExtractions:
    """Runs extractions; an RPC failure or a failed workflow is :class:`Unavailable`,
    except a refusal by policy (the extractor may not read the document), which is
    :class:`Forbidden`."""

    def __init__(self, client: Client | None, task_queue: str) -> None:
        self._client = client
        self._task_queue = task_queue

    async def run(self, extraction: ExtractionInput) -> ExtractionResult:
        if self._client is None:
            raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
        try:
            return await self._client.execute_workflow(
                ExtractCommitmentsWorkflow.run,
                extraction,
                id=workflow_id(extraction),
                task_queue=self._task_queue,
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(sa.ORG, extraction.org_id),
                        SearchAttributePair(sa.PROJECTS, list(extraction.projects)),
                    ]
                ),
                static_summary=f"extract commitments from {extraction.document_ref}",
                task_timeout=WORKFLOW_TASK_TIMEOUT,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowFailureError as exc:
            cause: BaseException | None = exc.cause
            while cause is not None and not isinstance(cause, ApplicationError):
                cause = cause.__cause__
            if isinstance(cause, ApplicationError) and cause.type == ErrorType.POLICY_VIOLATION:
                raise Forbidden(cause.message) from exc
            raise Unavailable(f"the extraction failed: {cause or exc}") from exc
        except RPCError as exc:
            raise Unavailable(f"Temporal: {exc.message}") from exc
