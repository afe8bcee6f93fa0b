"""Activities of the learning pass: list organizations; gather the window and earlier
experiences, ask the model once and validate its reply (no write); record the verdict
(another activity, so that a failed recording retries without asking the model again)."""

from __future__ import annotations

import uuid

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.off_loop import beating, in_thread
from domain.canonical import sha256_hex
from domain.heartbeat.checks import OrgList
from domain.learning.ports import LearningStore
from domain.learning.records import InsightStatus, LearningInput, LearningPass, LearnRequest
from domain.learning.validator import (
    LEARNING_AGENT,
    LEARNING_SYSTEM_PROMPT,
    LEARNING_TASK,
    MAX_EVENTS,
    MAX_PRIOR,
    WINDOW,
    experiences_of,
    learning_prompt,
    validate,
)
from domain.model_provider import ModelProvider, ModelRequest
from domain.runs.failures import ErrorType

_IDS = uuid.UUID("0b7c2f1e-5d7a-4c61-9a8e-3f4d2c1b0a99")
"""Namespace of experience ids: a pass's i-th accepted insight has the same id on retry."""


def experience_id(pass_id: str, index: int) -> str:
    """The id of the ``index``-th experience a pass accepted."""
    return str(uuid.uuid5(_IDS, f"{pass_id}:{index}"))


class LearningActivities:
    """The learning pass's reads, its one model call, and its one write."""

    def __init__(self, store: LearningStore, model: ModelProvider) -> None:
        self._store = store
        self._model = model

    @activity.defn(name="learning_orgs")
    async def orgs(self, start: LearningInput) -> OrgList:
        """The organization asked for, or every one."""
        if start.org_id is not None:
            return OrgList(org_ids=(start.org_id,))
        return OrgList(org_ids=tuple(await in_thread(self._store.orgs)))

    @activity.defn(name="learning_ask")
    async def ask(self, request: LearnRequest) -> LearningPass:
        """The 7-day window and earlier experiences, one model call, the validator: what
        it accepted (as candidate experiences) and what it refused. Writes nothing."""
        since = request.now - WINDOW
        events = await in_thread(self._store.window, request.org_id, since, request.now, MAX_EVENTS)
        # Dismissed lessons are not shown again: a human said they were not worth keeping.
        prior = [
            x
            for x in await in_thread(self._store.experiences, request.org_id, MAX_PRIOR)
            if x.status is not InsightStatus.DISMISSED
        ]
        empty = LearningPass(
            id=request.pass_id,
            org_id=request.org_id,
            workflow_id=request.workflow_id,
            window_from=since,
            window_to=request.now,
            events=len(events),
            prior=len(prior),
            requested_by=request.requested_by,
        )
        if not events:
            return empty.model_copy(update={"error": "no work events in the window"})
        model_request = ModelRequest(
            agent_handle=LEARNING_AGENT,
            task=LEARNING_TASK,
            system_prompt=LEARNING_SYSTEM_PROMPT,
            prompt=learning_prompt(events, prior),
            scripted_reply=request.scripted_reply,
        )
        try:
            reply = await beating(self._model.generate(model_request))
        except (LookupError, ValueError) as exc:  # a replay miss, a missing script
            raise ApplicationError(
                str(exc), type=ErrorType.MODEL_UNAVAILABLE, non_retryable=True
            ) from exc
        verdict = validate(reply.text, events)
        return empty.model_copy(
            update={
                "accepted": experiences_of(
                    verdict,
                    events,
                    request.org_id,
                    request.pass_id,
                    request.now,
                    lambda i: experience_id(request.pass_id, i),
                ),
                "refused": verdict.refused,
                "provider": reply.provider,
                "model": reply.model,
                "reply_digest": sha256_hex(reply.text.encode("utf-8")),
            }
        )

    @activity.defn(name="learning_record")
    async def record(self, learning: LearningPass) -> None:
        """Accepted insights as candidate experiences, every acceptance and refusal in the
        audit chain; nothing else (idempotent)."""
        await in_thread(self._store.record, learning)
