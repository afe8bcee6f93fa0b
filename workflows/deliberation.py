"""DeliberationWorkflow: personas in their configured order each receive the context the
memory gate releases for them, reason, propose, pass the quality gate (or re-enter with
its feedback, at most ``max_rounds`` times) and emit to synthesis; the synthesis is an
ordinary agent run (a child AgentRunWorkflow) whose actions go through the broker.

The kernel routes and records provenance (persona, claim, round, gate result); it reads
the meaning of no claim."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ChildWorkflowError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.deliberation import DeliberationActivities
    from activities.runs import AgentRunActivities
    from domain.deliberation.gate import Proposal, ProvenanceEntry, provenance_of
    from domain.deliberation.plan import Persona
    from domain.deliberation.prompts import synthesis_task
    from domain.deliberation.state import (
        SYNTHESIS,
        DeliberationBegun,
        DeliberationInput,
        DeliberationState,
        DeliberationStatus,
        PersonaOutcome,
        PersonaRound,
        PersonaState,
    )
    from domain.runs.run import ContextRequest, RunInput, RunState, RunStatus
    from domain.work_graph.graph import STEP_HELD, StepHeld
    from workflows import search_attributes as sa
    from workflows.runs import AgentRunWorkflow

STEP_RETRY = RetryPolicy(maximum_attempts=3)
"""A model call or a recall that fails is tried again, a few times (as a run's are)."""
RECORD_RETRY = RetryPolicy(maximum_interval=timedelta(seconds=10))
"""Recording the deliberation's run: until the database answers."""


@workflow.defn
class DeliberationWorkflow:
    """A deliberation; its ``state`` query shows each persona's turn and the provenance."""

    def __init__(self) -> None:
        self._id = ""
        self._org_id = ""
        self._run_id: str | None = None
        self._status = DeliberationStatus.RUNNING
        self._personas: dict[str, PersonaState] = {}
        self._provenance: list[ProvenanceEntry] = []
        self._read: set[str] = set()
        self._read_refs: set[str] = set()
        """Projects of the context the emitting personas recalled: what they emit reaches the
        synthesis run, so it knows of them."""
        self._synthesis_run_id: str | None = None
        self._synthesis: RunState | None = None
        self._spent = 0
        self._error: str | None = None

    @workflow.query
    def state(self) -> DeliberationState:
        """Each persona's rounds and outcome, every provenance entry, the synthesis."""
        return DeliberationState(
            deliberation_id=self._id,
            org_id=self._org_id,
            run_id=self._run_id,
            status=self._status,
            personas=tuple(self._personas.values()),
            provenance=tuple(self._provenance),
            synthesis_run_id=self._synthesis_run_id,
            synthesis=self._synthesis,
            spent_cents=self._spent,
            error=self._error,
        )

    @workflow.signal(name=STEP_HELD)
    def synthesis_held(self, news: StepHeld) -> None:
        """The synthesis run opened a hold (``held``) or closed its last one."""
        if news.run_id == self._run_id and self._status in (
            DeliberationStatus.SYNTHESISING,
            DeliberationStatus.NEEDS_HUMAN,
        ):
            held = DeliberationStatus.NEEDS_HUMAN
            self._status = held if news.held else DeliberationStatus.SYNTHESISING

    @workflow.run
    async def run(self, start: DeliberationInput) -> DeliberationState:
        self._id, self._org_id = start.deliberation_id, start.org_id
        self._personas = {p.name: PersonaState(name=p.name) for p in start.plan.personas}
        try:
            await self._deliberate(start)
        except ActivityError as err:
            # The agent may not run (refused at begin, on the record), the model stayed
            # unreachable: the deliberation ends, failed, with why.
            self._status = DeliberationStatus.FAILED
            self._error = str(err.cause or err)[:500]
        return self.state()

    async def _deliberate(self, start: DeliberationInput) -> None:
        begun = await workflow.execute_activity_method(
            DeliberationActivities.begin,
            start,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RECORD_RETRY,
            summary="record the deliberation's run: identity, charter, budget",
        )
        self._run_id = begun.run_id
        emitted: list[Proposal] = []
        for persona in start.plan.personas:
            if self._spent >= begun.budget_cents:
                self._set(persona.name, outcome=PersonaOutcome.OVER_BUDGET)
                continue
            proposal = await self._turn(start, begun, persona, tuple(emitted))
            if proposal is not None:
                emitted.append(proposal)
        self._status = DeliberationStatus.SYNTHESISING
        self._synthesis_run_id = begun.run_id
        try:
            self._synthesis = await self._synthesise(start, begun, emitted)
        except ChildWorkflowError as err:
            self._status = DeliberationStatus.FAILED
            self._error = f"the synthesis run failed: {err.cause or err}"[:500]
            return
        self._status = (
            DeliberationStatus.COMPLETED
            if self._synthesis.status is RunStatus.COMPLETED
            else DeliberationStatus.FAILED
        )
        self._error = self._synthesis.error

    async def _turn(
        self,
        start: DeliberationInput,
        begun: DeliberationBegun,
        persona: Persona,
        earlier: tuple[Proposal, ...],
    ) -> Proposal | None:
        """Receive, then reason, propose and pass the gate, round after round."""
        pack = await workflow.execute_activity_method(
            AgentRunActivities.context,
            ContextRequest(
                org_id=start.org_id,
                agent_id=start.agent_id,
                run_id=begun.run_id,
                task=f"{start.question} {persona.focus}".strip(),
                on_behalf_of=start.requested_by,
                within=begun.projects,
            ),
            start_to_close_timeout=timedelta(seconds=60),
            retry_policy=STEP_RETRY,
            summary=f"{persona.name}: memory recall as {begun.handle}",
        )
        self._set(persona.name, released=len(pack.refs))
        scripted = start.scripted_replies.get(persona.name, ())
        feedback: str | None = None
        for round in range(1, start.plan.max_rounds + 1):
            outcome = await workflow.execute_activity_method(
                DeliberationActivities.round,
                PersonaRound(
                    deliberation_id=start.deliberation_id,
                    org_id=start.org_id,
                    run_id=begun.run_id,
                    agent_id=start.agent_id,
                    handle=begun.handle,
                    question=start.question,
                    persona=persona,
                    round=round,
                    context=tuple(zip(pack.refs, pack.items, strict=True)),
                    earlier=earlier,
                    feedback=feedback,
                    scripted_reply=scripted[round - 1] if round <= len(scripted) else None,
                ),
                start_to_close_timeout=timedelta(seconds=120),
                retry_policy=STEP_RETRY,
                summary=f"{persona.name}, round {round}: reason, propose, quality gate",
            )
            self._provenance.extend(provenance_of(persona.name, round, outcome.result))
            self._spent += outcome.cents
            self._set(persona.name, rounds=round)
            if outcome.result.passed and outcome.result.proposal is not None:
                self._set(persona.name, outcome=PersonaOutcome.EMITTED)
                self._read.update(pack.reach)  # what it read reaches the synthesis
                self._read_refs.update(pack.refs)
                return outcome.result.proposal
            feedback = outcome.feedback
            if self._spent >= begun.budget_cents:
                break  # no round past the budget: the synthesis would be refused anyway
        self._set(persona.name, outcome=PersonaOutcome.EXHAUSTED)
        return None

    def _set(self, persona: str, **update: object) -> None:
        self._personas[persona] = self._personas[persona].model_copy(update=update)

    async def _synthesise(
        self, start: DeliberationInput, begun: DeliberationBegun, emitted: list[Proposal]
    ) -> RunState:
        synthesis = start.scripted_replies.get(SYNTHESIS, ())
        return await workflow.execute_child_workflow(
            AgentRunWorkflow.run,
            RunInput(
                run_id=begun.run_id,
                org_id=start.org_id,
                agent_id=start.agent_id,
                task=synthesis_task(start.question, emitted),
                requested_by=start.requested_by,
                read_reach=tuple(sorted(self._read)),
                read_refs=tuple(sorted(self._read_refs)),
                scripted_reply=synthesis[0] if synthesis else None,
                **(
                    {"hold_timeout_seconds": start.hold_timeout_seconds}
                    if start.hold_timeout_seconds
                    else {}
                ),
            ),
            id=begun.workflow_id,
            search_attributes=sa.for_run(start.org_id, begun.handle, begun.projects),
            static_summary=f"{begun.handle}: synthesis of deliberation {start.deliberation_id[:8]}",
            task_timeout=timedelta(seconds=3),
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
        )
