"""ExtractCommitmentsWorkflow: read and ask the model → record commitments in state
``extracted`` (or the refused reply). One workflow per extraction."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.commitments import ExtractionActivities, RecordRequest
    from domain.commitments.extraction import ExtractionInput, ExtractionResult
    from domain.runs.failures import ErrorType
    from workflows.policies import HEARTBEAT

MODEL_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=500),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=10),
    maximum_attempts=5,
    non_retryable_error_types=[ErrorType.POLICY_VIOLATION, ErrorType.MODEL_UNAVAILABLE],
)
RECORD_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=10),
    maximum_attempts=10,
)
"""Recording is idempotent (the commitments' ids derive from the extraction's), so it is
retried until the database answers, within bounds."""


@workflow.defn
class ExtractCommitmentsWorkflow:
    """Extract the obligations of one document as commitments awaiting a human."""

    @workflow.run
    async def run(self, extraction: ExtractionInput) -> ExtractionResult:
        reply = await workflow.execute_activity_method(
            ExtractionActivities.extract_obligations,
            extraction,
            start_to_close_timeout=timedelta(seconds=120),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=MODEL_RETRY,
            summary=f"extract: {extraction.document_ref} read through the memory gate, one "
            "model call, the strict parser",
        )
        return await workflow.execute_activity_method(
            ExtractionActivities.record_extraction,
            RecordRequest(extraction=extraction, reply=reply),
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=RECORD_RETRY,
            summary="record: commitments in state extracted, or the refused reply",
        )
