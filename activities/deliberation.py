"""Activities of a deliberation: record its run, and play one persona's round (ask the
model, pass the reply through the quality gate, put the round on the chain)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.off_loop import in_thread
from activities.runs import ask_model, charge
from domain.audit.chain import AuditDraft
from domain.deliberation.gate import GATE_RULE, GateResult, gate
from domain.deliberation.prompts import feedback, persona_prompt, persona_system_prompt
from domain.deliberation.state import (
    DELIBERATION_STAGE,
    QUESTION_PREFIX,
    DeliberationBegun,
    DeliberationInput,
    PersonaRound,
    RoundOutcome,
    round_key,
)
from domain.errors import Conflict, NotFound
from domain.governance.ports import GovernanceStore
from domain.governance.usage import TokenPrices
from domain.model_provider import ModelProvider, ModelRequest
from domain.organization.ports import Directory
from domain.runs.failures import ErrorType
from domain.runs.ports import RunRecords
from domain.runs.resolution import ResolveRefusal, resolve_agent
from usecases.governance import RunRef, record_run_rejection
from usecases.runs import new_run, record_system_run


class DeliberationActivities:
    """The model, the directory, the run records and the chain; decides nothing itself
    (the gate is :func:`domain.deliberation.gate.gate`, the actions go to the broker)."""

    def __init__(
        self,
        directory: Directory,
        runs: RunRecords,
        governance: GovernanceStore,
        model: ModelProvider,
        clock: Callable[[], datetime],
        prices: TokenPrices | None = None,
    ) -> None:
        self._directory = directory
        self._runs = runs
        self._governance = governance
        self._model = model
        self._clock = clock
        self._prices = prices or TokenPrices()

    def _begin(self, start: DeliberationInput) -> DeliberationBegun:
        now = self._clock()
        try:
            agent = self._directory.principal(start.org_id, start.agent_id)
        except NotFound as exc:
            raise ApplicationError(
                str(exc), type=ErrorType.POLICY_VIOLATION, non_retryable=True
            ) from exc
        record = new_run(
            agent,
            f"{QUESTION_PREFIX}{start.question}",
            self._directory.staffing(start.org_id, agent.id),
            started_by=start.requested_by,
            client_key=f"deliberation:{start.deliberation_id}",
            hold_timeout_seconds=start.hold_timeout_seconds,
            now=now,
        )
        try:
            run = record_system_run(self._runs, record)
        except Conflict as exc:
            raise ApplicationError(
                str(exc), type=ErrorType.POLICY_VIOLATION, non_retryable=True
            ) from exc
        # The agent may deliberate only as it may run: active, a published version, its
        # budget (the rounds and the synthesis are charged to this run).
        resolved = resolve_agent(
            start.org_id, self._directory.agent(start.org_id, agent.id), run.id, now
        )
        if isinstance(resolved, ResolveRefusal):
            record_run_rejection(
                self._governance,
                RunRef(start.org_id, run.id, agent.id),
                stage="resolve",
                rule=resolved.rule,
                payload={"reason": resolved.reason},
                now=now,
            )
            raise ApplicationError(
                f"{resolved.rule}: {resolved.reason}",
                type=ErrorType.POLICY_VIOLATION,
                non_retryable=True,
            )
        return DeliberationBegun(
            run_id=run.id,
            workflow_id=run.workflow_id,
            handle=agent.handle,
            projects=run.projects,
            budget_cents=resolved.budget_cents,
        )

    @activity.defn(name="deliberation_begin")
    async def begin(self, start: DeliberationInput) -> DeliberationBegun:
        """Record the deliberation's run (its synthesis runs under it; its rounds' entries
        are read as that run is)."""
        return await in_thread(self._begin, start)

    def _record(self, step: PersonaRound, result: GateResult) -> GateResult:
        draft = AuditDraft(
            event_key=round_key(step.deliberation_id, step.persona.name, step.round),
            actor=step.agent_id,
            decision="passed" if result.passed else "failed",
            stage=DELIBERATION_STAGE,
            rule=GATE_RULE,
            payload={
                "run_id": step.run_id,
                "deliberation_id": step.deliberation_id,
                "persona": step.persona.name,
                "round": step.round,
                "result": result.model_dump(mode="json"),
            },
        )
        with self._governance.unit(step.org_id, self._clock()) as unit:
            entry = unit.append(draft)
        # A retried round returns the verdict recorded first, whatever the model says now.
        return GateResult.model_validate(entry.payload["result"])

    @activity.defn(name="deliberation_round")
    async def round(self, step: PersonaRound) -> RoundOutcome:
        """One round of one persona: the model's reply, the gate's verdict, on the chain."""
        request = ModelRequest(
            agent_handle=f"{step.handle}/{step.persona.name}",
            task=f"round {step.round}: {step.question}",
            system_prompt=persona_system_prompt(step.persona),
            prompt=persona_prompt(
                step.question, step.persona, step.context, step.earlier, step.feedback
            ),
            scripted_reply=step.scripted_reply,
        )
        reply = await ask_model(self._model, request, step.org_id, step.run_id)
        # Charged to the deliberation's run: its synthesis proposes within what is left.
        cents = await charge(
            self._governance,
            self._prices,
            self._clock,
            reply,
            org_id=step.org_id,
            run_id=step.run_id,
            agent_id=step.agent_id,
            call=f"{step.persona.name}:{step.round}",
        )
        refs = [ref for ref, _ in step.context]
        result = await in_thread(self._record, step, gate(reply.text, step.persona, refs))
        return RoundOutcome(
            result=result,
            feedback=None if result.passed else feedback(result, refs),
            cents=cents,
        )
