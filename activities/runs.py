"""Activities of an agent run that are not broker decisions: resolve, context, reasoning."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.off_loop import beating, in_thread
from activities.tracing import pinned, span
from domain.canonical import sha256_hex
from domain.fleet.registry import AgentPin
from domain.governance.intents import Stage
from domain.governance.ports import GovernanceStore
from domain.governance.usage import TokenPrices, cost_cents, usage_draft
from domain.memory.ports import MemoryRecall
from domain.model_provider import ModelProvider, ModelReply, ModelRequest
from domain.runs.failures import ErrorType
from domain.runs.parser import ParseRejection, parse_reply
from domain.runs.ports import AgentDirectory
from domain.runs.prompting import system_prompt, task_prompt
from domain.runs.resolution import ResolveRefusal, resolve_agent
from domain.runs.run import (
    ContextPack,
    ContextRequest,
    Prepared,
    ReasoningRequest,
    ReasoningResult,
    ResolvedAgent,
    RunInput,
)
from domain.tools import REGISTRY
from usecases.governance import RunRef, record_question, record_run_rejection, record_usage


async def ask_model(
    model: ModelProvider,
    request: ModelRequest,
    org_id: str,
    run_id: str,
    *,
    agent_id: str | None = None,
    pin: AgentPin | None = None,
) -> ModelReply:
    """One model call, in a ``model call`` span (with the agent and the charter version
    and definition it was prompted with, when known). A replay miss or a missing script
    is not retried (retrying cannot help); anything else is the activity's to retry."""
    with span("model call", org=org_id, run=run_id, agent=agent_id, **pinned(pin)) as current:
        try:
            reply = await beating(model.generate(request))
        except (LookupError, ValueError) as exc:  # replay miss, missing script
            raise ApplicationError(
                str(exc), type=ErrorType.MODEL_UNAVAILABLE, non_retryable=True
            ) from exc
        current.set_attribute("verletica.provider", reply.provider)
        current.set_attribute("verletica.model", reply.model)
    return reply


async def charge(
    governance: GovernanceStore,
    prices: TokenPrices,
    clock: Callable[[], datetime],
    reply: ModelReply,
    *,
    org_id: str,
    run_id: str,
    agent_id: str,
    call: str | None = None,
) -> int:
    """Charge a model call to run ``run_id`` on the chain (``call`` names one besides its
    reasoning): what it cost, in cents. A reply that reports no usage costs nothing."""
    cents = cost_cents(prices, reply.input_tokens, reply.output_tokens)
    if reply.input_tokens is not None or reply.output_tokens is not None:
        draft = usage_draft(
            run_id,
            agent_id,
            reply.provider,
            reply.model,
            reply.input_tokens,
            reply.output_tokens,
            cents,
            call=call,
        )
        await in_thread(record_usage, governance, org_id, draft, clock())
    return cents


class AgentRunActivities:
    """Resolve, context and reasoning; the broker's steps live in :mod:`activities.governance`."""

    def __init__(
        self,
        directory: AgentDirectory,
        memory: MemoryRecall,
        governance: GovernanceStore,
        model: ModelProvider,
        clock: Callable[[], datetime],
        prices: TokenPrices | None = None,
    ) -> None:
        self._directory = directory
        self._memory = memory
        self._governance = governance
        self._model = model
        self._clock = clock
        self.prices = prices or TokenPrices()
        """What the model's tokens cost (shared with the deliberation's rounds)."""

    def _resolve(self, run: RunInput) -> ResolvedAgent:
        now = self._clock()
        agent = self._directory.agent(run.org_id, run.agent_id)
        result = resolve_agent(run.org_id, agent, run.run_id, now)
        if isinstance(result, ResolveRefusal):
            record_run_rejection(
                self._governance,
                RunRef(run.org_id, run.run_id, run.agent_id),
                stage="resolve",
                rule=result.rule,
                payload={"reason": result.reason},
                now=now,
            )
            raise ApplicationError(
                f"{result.rule}: {result.reason}",
                type=ErrorType.POLICY_VIOLATION,
                non_retryable=True,
            )
        return result

    @activity.defn(name="resolve")
    async def resolve(self, run: RunInput) -> ResolvedAgent:
        """The principal exists, is an active agent, its charter is published and pinned."""
        with span(
            "identity & charter", org=run.org_id, run=run.run_id, agent=run.agent_id
        ) as current:
            resolved = await in_thread(self._resolve, run)
            for key, value in pinned(resolved.pin).items():
                current.set_attribute(f"verletica.{key}", value)
            return resolved

    @activity.defn(name="resolve_and_recall")
    async def resolve_and_recall(self, run: RunInput) -> Prepared:
        """:meth:`resolve`, then :meth:`context` as the agent on behalf of whoever started
        the run: one activity, one history step, where a run took two."""
        resolved = await self.resolve(run)
        context = await self.context(ContextRequest.of_run(run))
        return Prepared(resolved=resolved, context=context)

    @activity.defn(name="context")
    async def context(self, request: ContextRequest) -> ContextPack:
        """Recall context through the memory gate, as the agent itself."""
        with span("memory read", org=request.org_id, run=request.run_id) as current:
            result = await in_thread(
                lambda: self._memory.recall(
                    asker_principal_id=request.agent_id,
                    org_id=request.org_id,
                    query=request.task,
                    now=self._clock(),
                    on_behalf_of=request.on_behalf_of,
                    within=None if request.within is None else frozenset(request.within),
                )
            )
            current.set_attribute("verletica.released", len(result.released_refs))
            current.set_attribute("verletica.withheld", result.withheld)
        return ContextPack(
            items=result.released,
            refs=result.released_refs,
            withheld=result.withheld,
            reach=result.released_projects,
        )

    def _prompts(self, request: ReasoningRequest) -> ModelRequest:
        agent = self._directory.agent(request.org_id, request.agent_id)
        principal = None if agent is None else agent.principal
        charter, definition = (
            (None, None)
            if agent is None
            else (agent.charter, agent.definition)
            if request.pin is None  # a run resolved before pins: its agent's stable version
            else agent.version(request.pin.version)
        )
        if principal is None or definition is None or charter is None:
            raise ApplicationError(
                "the agent vanished after resolve",
                type=ErrorType.POLICY_VIOLATION,
                non_retryable=True,
            )
        tools = [REGISTRY[name] for name in request.tools]
        return ModelRequest(
            agent_handle=principal.handle,
            task=request.task,
            system_prompt=system_prompt(principal, definition, charter),
            prompt=task_prompt(request.task, request.projects, request.context.items, tools),
            scripted_reply=request.scripted_reply,
        )

    @activity.defn(name="reasoning")
    async def reasoning(self, request: ReasoningRequest) -> ReasoningResult:
        """One model call; the strict parser turns its reply into proposals or a rejection."""
        model_request = await in_thread(self._prompts, request)
        reply = await ask_model(
            self._model,
            model_request,
            request.org_id,
            request.run_id,
            agent_id=request.agent_id,
            pin=request.pin,
        )
        # Charged before anything it proposes is decided: the broker counts it. A provider
        # that reports no usage (fixtures, scripts, a given reply) is charged nothing.
        model_cents = await charge(
            self._governance,
            self.prices,
            self._clock,
            reply,
            org_id=request.org_id,
            run_id=request.run_id,
            agent_id=request.agent_id,
        )
        reply_digest = sha256_hex(reply.text.encode("utf-8"))
        snapshot = {name: REGISTRY[name] for name in request.tools}
        parsed = parse_reply(reply.text, snapshot)
        if isinstance(parsed, ParseRejection):
            await in_thread(
                record_run_rejection,
                self._governance,
                RunRef(request.org_id, request.run_id, request.agent_id),
                stage=Stage.PARSER,
                rule=parsed.rule,
                payload={
                    "reason": parsed.reason,
                    "reply_digest": reply_digest,
                    "provider": reply.provider,
                },
                now=self._clock(),
            )
            return ReasoningResult(
                model_cents=model_cents,
                rejection=parsed,
                provider=reply.provider,
                model=reply.model,
                reply_digest=reply_digest,
            )
        if parsed.question is not None:
            await in_thread(
                record_question,
                self._governance,
                RunRef(request.org_id, request.run_id, request.agent_id),
                question=parsed.question,
                summary=parsed.summary,
                read_refs=tuple(sorted({*request.read_refs, *request.context.refs})),
                read_reach=tuple(sorted({*request.read_reach, *request.context.reach})),
                now=self._clock(),
            )
        return ReasoningResult(
            model_cents=model_cents,
            summary=parsed.summary,
            actions=parsed.actions,
            question=parsed.question,
            provider=reply.provider,
            model=reply.model,
            reply_digest=reply_digest,
        )
