"""Activities of an extraction of commitments from a document: read it through the
memory gate and ask the model (one activity), record what it found (another), so that a
failed recording retries without asking the model again."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.off_loop import beating, in_thread
from domain.canonical import sha256_hex
from domain.commitments.extraction import (
    EXTRACTION_SYSTEM_PROMPT,
    ExtractionInput,
    ExtractionRejection,
    ExtractionReply,
    ExtractionResult,
    extraction_prompt,
    extraction_task,
    parse_extraction,
)
from domain.memory.ports import MemoryBankPort
from domain.memory.release import Release
from domain.model_provider import ModelProvider, ModelRequest
from domain.organization.contracts import Frozen
from domain.organization.kinds import PrincipalKind, PrincipalStatus
from domain.organization.ports import ConfigurationStore, Directory
from domain.runs.failures import ErrorType
from usecases.commitments import extractor_view, record_extraction


class RecordRequest(Frozen):
    """What the recording activity receives: the extraction and the parsed reply."""

    extraction: ExtractionInput
    reply: ExtractionReply


class ExtractionActivities:
    """Read and ask (``extract_obligations``), then record (``record_extraction``)."""

    def __init__(
        self,
        directory: Directory,
        memory: MemoryBankPort,
        configuration: ConfigurationStore,
        model: ModelProvider,
        clock: Callable[[], datetime],
    ) -> None:
        self._directory = directory
        self._memory = memory
        self._configuration = configuration
        self._model = model
        self._clock = clock

    def _request(self, extraction: ExtractionInput) -> tuple[ModelRequest, str]:
        agent = self._directory.find_principal(extraction.extractor_id)
        if (
            agent is None
            or agent.org_id != extraction.org_id
            or agent.kind is not PrincipalKind.AGENT
            or agent.status is not PrincipalStatus.ACTIVE
        ):
            raise ApplicationError(
                "the extractor is not an active agent of the organization",
                type=ErrorType.POLICY_VIOLATION,
                non_retryable=True,
            )
        view = extractor_view(self._memory, extraction, self._clock())
        if view.release is Release.WITHHELD or view.text is None:
            raise ApplicationError(
                f"{agent.handle} may not read {extraction.document_ref}",
                type=ErrorType.POLICY_VIOLATION,
                non_retryable=True,
            )
        request = ModelRequest(
            agent_handle=agent.handle,
            task=extraction_task(extraction.document_ref),
            system_prompt=EXTRACTION_SYSTEM_PROMPT,
            prompt=extraction_prompt(extraction.document_ref, view.text),
        )
        return request, view.text

    @activity.defn(name="extract_obligations")
    async def extract_obligations(self, extraction: ExtractionInput) -> ExtractionReply:
        """The document as the extractor may read it, one model call, the strict parser:
        the obligations it lists, or why its reply was refused. Spans are checked against
        the text the model was shown (masked where identifying detail was redacted)."""
        request, document = await in_thread(self._request, extraction)
        try:
            reply = await beating(self._model.generate(request))
        except (LookupError, ValueError) as exc:  # a replay miss, a missing script
            raise ApplicationError(
                str(exc), type=ErrorType.MODEL_UNAVAILABLE, non_retryable=True
            ) from exc
        parsed = parse_extraction(reply.text, document)
        digest = sha256_hex(reply.text.encode("utf-8"))
        if isinstance(parsed, ExtractionRejection):
            return ExtractionReply(
                rejection=parsed, provider=reply.provider, model=reply.model, reply_digest=digest
            )
        return ExtractionReply(
            obligations=parsed, provider=reply.provider, model=reply.model, reply_digest=digest
        )

    @activity.defn(name="record_extraction")
    async def record_extraction(self, request: RecordRequest) -> ExtractionResult:
        """Commitments in state ``extracted`` with their provenance, or the refused reply
        in the audit chain (idempotent: a retry writes nothing twice)."""
        return await in_thread(
            record_extraction, self._configuration, self._clock, request.extraction, request.reply
        )
