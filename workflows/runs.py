"""AgentRunWorkflow: resolve → context → reasoning → broker → (hold) → action."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue, RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError

    from activities.governance import BrokerActivities
    from activities.runs import AgentRunActivities
    from domain.fleet.registry import AgentPin
    from domain.governance.intents import (
        ApprovalRequest,
        ApprovalVerdict,
        Decision,
        DispatchResult,
        Intent,
        Outcome,
    )
    from domain.governance.values import ReviewResult
    from domain.runs.failures import ErrorType
    from domain.runs.parser import ParseRejection
    from domain.runs.run import (
        CANCELLED_ERROR,
        MAX_REFUSED_SHOWN,
        ApprovalSignal,
        BrokerRequest,
        ContextPack,
        ContextRequest,
        DispatchRequest,
        ExpireRequest,
        IntentView,
        NodeStatus,
        ReasoningRequest,
        RecheckRequest,
        ResolvedAgent,
        ReviewOutcome,
        ReviewRequest,
        RunFailure,
        RunInput,
        RunState,
        RunStatus,
    )
    from domain.work_graph.graph import STEP_HELD, StepHeld
    from workflows import search_attributes as sa
    from workflows.policies import (
        BROKER_RETRY,
        CLEANUP_RETRY,
        DISPATCH_RETRY,
        HEARTBEAT,
        STEP_RETRY,
        describe,
    )


class _Tracked:
    """Mutable bookkeeping for one intent inside the workflow."""

    def __init__(self, intent: Intent, decision: Decision) -> None:
        self.intent = intent
        self.decision = decision
        self.dispatch: DispatchResult | None = None
        self.refused: list[str] = []

    def view(self) -> IntentView:
        return IntentView(
            intent=self.intent,
            decision=self.decision,
            dispatch=self.dispatch,
            refused_reviews=tuple(self.refused),
        )


RECHECK_FIRST = timedelta(seconds=1)
RECHECK_MOST = timedelta(seconds=30)
"""How often an intent held for a collision is decided again: after 1 s, doubling to 30 s."""
LEAN_SEARCH_ATTRIBUTES = "lean-search-attributes"
"""Patch: the run starts with its projects and ``VerleticaNeedsHuman`` false, so it upserts
them only when they change (each upsert is a visibility write on the server). Histories
recorded before the patch replay with the upserts they had. (The patch marker brings its
own upsert, of ``TemporalChangeVersion``: a run that is not held makes one where it made
two, and one that proposes actions one more, for :data:`WHO_ASKED_AND_WHAT_WAS_READ`;
removing the patches once old runs are gone makes them none.)"""


REVIEW_EVERY_SIGNAL = "review-every-signal"
"""Patch: every signal the run receives is reviewed by the broker and recorded. One that
does not decode as a decision is refused as ``undecodable_signal`` (before, the SDK logged
and dropped it), and one still unreviewed when the run ends is refused as ``not_held`` or
``hold_closed`` (before, it was ignored). Histories recorded before replay as they were.
Asked only when there is such a signal, so a run that receives none records no marker."""
RECORD_RUN_FAILURE = "record-run-failure"
"""Patch: a run that fails or is cancelled puts its failure on the chain (one entry, keyed
by the run), so that a failure before any intent (the model unreachable, the context
step failing) reaches the needs-you queue like the others. A refusal at resolve is on the
record already and adds none. Histories recorded before replay as they were."""
NEEDS_HUMAN_WHILE_HELD = "needs-human-while-held"
"""Patch: ``VerleticaNeedsHuman`` is set false as soon as the run's last hold closes (not
when the run ends), so a list of runs waiting on a human is exact while the run goes on
to dispatch. Histories recorded before replay with the one upsert at the end."""
TELL_PARENT = "tell-parent-graph"
"""Patch: a run started by a work graph signals it as its holds open and close. Asked
only in runs that have a parent, so histories of runs started on their own record no
marker and replay as they were."""
WHO_ASKED_AND_WHAT_WAS_READ = "intent-requester-and-read-reach"
"""Patch: each intent carries the human the run acts for and the projects of what the run
read (``Intent.requested_by``, ``Intent.read_reach``), both in its digest. A run whose
intents were decided before the patch rebuilds them as they were when it replays: with
the new fields its dispatch token would name a digest its audit entry does not, a
foundation failure. Asked only in runs that propose actions."""
WHERE_IT_CAME_FROM = "intent-read-refs"
"""Patch: each intent carries the memory records its run read (``Intent.read_refs``, in
its digest), so that a hold on where it would go names the outside content it came from.
Histories decided before the patch rebuild their intents without them, as they were.
Asked only in runs that propose actions."""
SETTLED = "settled-patches-and-one-first-step"
"""Patch: a run started by code that has every patch above asks none of them again (each
patch a run asks records a marker and upserts ``TemporalChangeVersion``, a visibility
write on the server: three in a run that proposes an action, four in one that is held,
more with a parent graph or an undecodable signal; now one), and it resolves and recalls
its context in one activity (``resolve_and_recall``) where it took two. Asked first
thing, so a run either has it for its whole history or not at all; histories recorded
before it replay as they were.

A patch added after this one is asked with ``workflow.patched`` itself, never through
``_patched``: runs started under this patch but before the new one must replay without
it."""
IMPLIED_BY_SETTLED = frozenset(
    {
        LEAN_SEARCH_ATTRIBUTES,
        REVIEW_EVERY_SIGNAL,
        RECORD_RUN_FAILURE,
        NEEDS_HUMAN_WHILE_HELD,
        TELL_PARENT,
        WHO_ASKED_AND_WHAT_WAS_READ,
        WHERE_IT_CAME_FROM,
    }
)
"""The patches a run with :data:`SETTLED` has without asking."""
PREVIEW_BYTES = 48
"""How much of an undecodable signal's payload its refusal shows (escaped)."""


class _Received:
    """A signal as it waits in the inbox: a decision, or why it is not one. (A plain
    class: the sandbox imports this module afresh for every run, and defining a dataclass
    took a quarter of that import.)"""

    __slots__ = ("problem", "request")

    def __init__(self, request: ApprovalRequest | None, problem: str | None = None) -> None:
        self.request = request
        self.problem = problem


def _shown(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters and escaped (a sender chose it)."""
    shown = text[:limit].encode("unicode_escape").decode("ascii")
    return shown + ("…" if len(text) > limit else "")


def _why(err: Exception) -> str:
    """What was wrong with a payload, as pydantic says it without the input."""
    if isinstance(err, ValidationError):
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
            for e in err.errors(include_input=False, include_url=False)
        ]
        return _shown("; ".join(problems), 200)
    return _shown(f"{type(err).__name__}: {err}", 120)


def _decode(name: str, args: Sequence[RawValue]) -> _Received:
    """A signal as a decision, or the reason it is not one; never an exception."""
    try:
        verdict = ApprovalVerdict(name)
    except ValueError:
        return _Received(None, f"unknown signal {_shown(name, 40)!r}")
    if len(args) != 1:
        return _Received(None, f"{name}: expected one ApprovalSignal, got {len(args)} arguments")
    payload = args[0].payload
    try:
        signal = workflow.payload_converter().from_payload(payload, ApprovalSignal)
        if not isinstance(signal, ApprovalSignal):  # a null payload decodes as None
            raise TypeError(f"decoded as {type(signal).__name__}")
        return _Received(
            ApprovalRequest(
                intent_id=signal.intent_id,
                approver_id=signal.approver_id,
                verdict=verdict,
                intent_digest=signal.intent_digest,
                reason=signal.reason,
                proof=signal.proof,
                hold=signal.hold,
            )
        )
    except Exception as err:  # noqa: BLE001 - whatever was sent ends on the record
        preview = repr(payload.data[:PREVIEW_BYTES]) + (
            "…" if len(payload.data) > PREVIEW_BYTES else ""
        )
        return _Received(None, f"{name}: not an ApprovalSignal ({_why(err)}): {preview}")


def _refusal_line(received: _Received, review: ReviewResult) -> str:
    """How a refused signal reads in the run's state."""
    request = received.request
    who = (
        "a signal" if request is None else f"{request.verdict} by {_shown(request.approver_id, 64)}"
    )
    return f"{who}: {review.rule} — {_shown(review.reason, 300)}"


def _waits_for_collision(decision: Decision) -> bool:
    return decision.outcome is Outcome.HOLD and "collision" in decision.rule.split("+")


def _error_type(err: BaseException) -> str:
    """The type an operator (and the failure's class) goes by: an activity's own."""
    if isinstance(err, ActivityError) and isinstance(err.cause, ApplicationError):
        return err.cause.type or ""
    if isinstance(err, ApplicationError):
        return err.type or ""
    return type(err).__name__


def _refused_at_resolve(err: BaseException, resolve: NodeStatus) -> bool:
    """Whether the run was refused at resolve, which put the refusal on the record."""
    return (
        resolve is not NodeStatus.DONE
        and isinstance(err, ActivityError)
        and isinstance(err.cause, ApplicationError)
        and err.cause.type == ErrorType.POLICY_VIOLATION
    )


# Errors that come from data rather than from code: they end a run cleanly, on the
# record. Anything else (a bug: TypeError, AttributeError…) fails the workflow task, so
# that a fixed deployment picks the run up where it stopped.
DATA_ERRORS = (ActivityError, ApplicationError, ValueError, ArithmeticError)


@workflow.defn
class AgentRunWorkflow:
    """One governed agent run. Its state answers the ``state`` query and is its result."""

    def __init__(self) -> None:
        self._run_id = ""
        self._status = RunStatus.RUNNING
        self._nodes: dict[str, NodeStatus] = dict(RunState(run_id="").nodes)
        self._summary = ""
        self._rejection: ParseRejection | None = None
        self._question: str | None = None
        self._error_type = ""
        self._model_cents = 0
        self._error: str | None = None
        self._tracked: list[_Tracked] = []
        self._inbox: list[_Received] = []
        self._refused_signals: list[str] = []
        self._flagged_needs_human = False
        self._released: tuple[str, ...] = ()
        self._pin: AgentPin | None = None
        self._attempts = 0
        self._settled = False

    def _patched(self, patch_id: str) -> bool:
        """Whether the run has ``patch_id``: every run that has :data:`SETTLED` has them
        all, and asks none of them (a signal received before the run's code starts still
        asks its own, in the run's first task, replayed the same way)."""
        if patch_id not in IMPLIED_BY_SETTLED:
            raise RuntimeError(f"{patch_id} is not implied by {SETTLED}: ask workflow.patched")
        return self._settled or workflow.patched(patch_id)

    # ----------------------------------------------------------------- signals and queries
    @workflow.signal(dynamic=True)
    def _signal(self, name: str, args: Sequence[RawValue]) -> None:
        """``approve`` or ``deny`` with one :class:`ApprovalSignal` (a verdict's value is its
        signal's name); the broker verifies its proof and re-checks the approver's
        authority. Dynamic, so that decoding is ours and never fails: a typed handler's
        failure is only logged by the SDK, and the signal dropped off the record. Anything
        else is queued as undecodable, for the broker to record and refuse."""
        received = _decode(name, args)
        if received.problem is not None and not self._patched(REVIEW_EVERY_SIGNAL):
            workflow.logger.warning("dropping a signal: %s", received.problem)
            return
        self._inbox.append(received)

    @workflow.query
    def state(self) -> RunState:
        """Node statuses, every intent with its decision, holds and dispatches."""
        return RunState(
            run_id=self._run_id,
            status=self._status,
            nodes=dict(self._nodes),
            summary=self._summary,
            rejection=self._rejection,
            question=self._question,
            model_cents=self._model_cents,
            spent_cents=self._model_cents
            + sum(t.intent.cost_cents for t in self._tracked if t.decision.outcome.may_dispatch),
            released=self._released,
            intents=tuple(t.view() for t in self._tracked),
            error=self._error,
            error_type=self._error_type,
            refused_signals=tuple(self._refused_signals),
            pin=self._pin,
        )

    # ------------------------------------------------------------------------------ run
    @workflow.run
    async def run(self, start: RunInput | dict[str, Any]) -> RunState:
        # The input is typed loosely so that decoding never fails: an input that is not a
        # valid RunInput (a start sent straight to Temporal, say with a duration out of
        # range) fails the run at once, with the reason, instead of failing its workflow
        # task for ever.
        try:
            run = start if isinstance(start, RunInput) else RunInput.model_validate(start)
        except ValidationError as err:
            raise ApplicationError(
                f"invalid run input: {err}", type=ErrorType.INVALID_INPUT, non_retryable=True
            ) from None
        self._run_id = run.run_id
        self._settled = workflow.patched(SETTLED)
        try:
            await self._run(run)
            self._status = RunStatus.COMPLETED
        except DATA_ERRORS as err:
            self._fail(describe(err))
            self._error_type = _error_type(err)
            await self._close_unfinished(run, "run_failed")
            if not _refused_at_resolve(err, self._nodes["resolve"]):
                await self._record_failure(run, "run_failed")
        except asyncio.CancelledError:
            # Cancelled (from the UI or CLI): close what is open, on the record, then end
            # as cancelled. (A terminated run runs no code; the heartbeat sweeps it.)
            self._fail(CANCELLED_ERROR)
            await self._close_unfinished(run, "run_cancelled")
            await self._record_failure(run, "run_cancelled")
            await self._drain(run)
            raise
        await self._drain(run)
        self._unflag_needs_human(run_ended=True)
        return self.state()

    def _unflag_needs_human(self, run_ended: bool) -> None:
        """Set ``VerleticaNeedsHuman`` false once no hold is open: as the last hold closes,
        before anything is dispatched (patched runs), or as the run ends (histories from
        before the patch, and runs that end inside the hold loop)."""
        if not run_ended and not self._patched(NEEDS_HUMAN_WHILE_HELD):
            return
        if not self._patched(LEAN_SEARCH_ATTRIBUTES) or self._flagged_needs_human:
            workflow.upsert_search_attributes([sa.NEEDS_HUMAN.value_set(False)])
            self._flagged_needs_human = False

    async def _tell_parent(self, run: RunInput, held: bool) -> None:
        """A run started by a work graph tells it as its holds open and close, so that the
        graph shows the step held (runs started on their own have no parent)."""
        parent = workflow.info().parent
        if parent is None or not self._patched(TELL_PARENT):
            return
        try:
            await workflow.get_external_workflow_handle(parent.workflow_id).signal(
                STEP_HELD, StepHeld(run_id=run.run_id, held=held)
            )
        except Exception as err:  # the graph closed meanwhile: nobody left to tell
            workflow.logger.warning("could not tell the graph: %s", err)

    async def _record_failure(self, run: RunInput, rule: str) -> None:
        """Put the run's failure on the chain (retried until the database answers, as
        closing is), for the needs-you queue and the metrics."""
        if not self._patched(RECORD_RUN_FAILURE):
            return
        await workflow.execute_local_activity_method(
            BrokerActivities.record_failure,
            RunFailure(
                org_id=run.org_id,
                run_id=run.run_id,
                agent_id=run.agent_id,
                rule=rule,
                reason=self._error or rule,
                error_type=self._error_type,
            ),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=CLEANUP_RETRY,
            summary=f"broker: record the run's end ({rule})",
        )

    def _fail(self, error: str) -> None:
        self._error = error
        self._status = RunStatus.FAILED
        for name, status in self._nodes.items():
            if status in (NodeStatus.RUNNING, NodeStatus.WAITING):
                self._nodes[name] = NodeStatus.FAILED

    async def _resolve_and_recall(self, run: RunInput) -> tuple[ResolvedAgent, ContextPack]:
        """Resolve and context in one activity (:data:`SETTLED`): the agent may act, then
        what it may read, recalled."""
        # One step in the history, both steps in the state: a failure fails both, but a
        # refusal at resolve never reached the context.
        self._nodes["resolve"] = NodeStatus.RUNNING
        self._nodes["context"] = NodeStatus.RUNNING
        try:
            prepared = await workflow.execute_activity_method(
                AgentRunActivities.resolve_and_recall,
                run,
                start_to_close_timeout=timedelta(seconds=60),
                heartbeat_timeout=HEARTBEAT,
                retry_policy=STEP_RETRY,
                summary="resolve: identity, charter, registry pin, budget; then context: "
                "memory recall as the agent",
            )
        except ActivityError as err:
            if _refused_at_resolve(err, self._nodes["resolve"]):
                self._nodes["context"] = NodeStatus.PENDING
            raise
        self._nodes["resolve"] = NodeStatus.DONE
        self._nodes["context"] = NodeStatus.DONE
        self._pin = prepared.resolved.pin
        self._mark_projects(prepared.resolved)
        return prepared.resolved, prepared.context

    async def _resolve_then_recall(self, run: RunInput) -> tuple[ResolvedAgent, ContextPack]:
        """Resolve, then context, as two activities (histories before :data:`SETTLED`)."""
        self._nodes["resolve"] = NodeStatus.RUNNING
        resolved = await workflow.execute_activity_method(
            AgentRunActivities.resolve,
            run,
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=STEP_RETRY,
            summary="resolve: identity, charter, registry pin, budget",
        )
        self._nodes["resolve"] = NodeStatus.DONE
        self._pin = resolved.pin
        self._mark_projects(resolved)

        self._nodes["context"] = NodeStatus.RUNNING
        context = await workflow.execute_activity_method(
            AgentRunActivities.context,
            ContextRequest.of_run(run),
            start_to_close_timeout=timedelta(seconds=30),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=STEP_RETRY,
            summary=f"context: memory recall as {resolved.handle}",
        )
        self._nodes["context"] = NodeStatus.DONE
        return resolved, context

    def _mark_projects(self, resolved: ResolvedAgent) -> None:
        """Upsert the run's projects when staffing changed since it started (before
        :data:`LEAN_SEARCH_ATTRIBUTES`: always)."""
        started_with = workflow.info().typed_search_attributes.get(sa.PROJECTS)
        if not self._patched(LEAN_SEARCH_ATTRIBUTES) or sorted(started_with or ()) != sorted(
            resolved.projects
        ):
            workflow.upsert_search_attributes([sa.PROJECTS.value_set(list(resolved.projects))])

    async def _run(self, run: RunInput) -> None:
        if self._settled:
            resolved, context = await self._resolve_and_recall(run)
        else:
            resolved, context = await self._resolve_then_recall(run)
        self._released = context.refs

        self._nodes["reasoning"] = NodeStatus.RUNNING
        reasoning = await workflow.execute_activity_method(
            AgentRunActivities.reasoning,
            ReasoningRequest(
                org_id=run.org_id,
                agent_id=run.agent_id,
                run_id=run.run_id,
                task=run.task,
                context=context,
                tools=resolved.tools,
                projects=resolved.projects,
                scripted_reply=run.scripted_reply,
                pin=resolved.pin,
                read_refs=run.read_refs,
                read_reach=run.read_reach,
            ),
            start_to_close_timeout=timedelta(seconds=120),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=STEP_RETRY,
            summary=f"reasoning: one model call for {resolved.handle}",
        )
        self._summary = reasoning.summary
        self._question = reasoning.question
        self._model_cents = reasoning.model_cents
        if reasoning.rejection is not None:
            self._rejection = reasoning.rejection
            self._nodes["reasoning"] = NodeStatus.FAILED
            for name in ("broker", "hold", "action"):
                self._nodes[name] = NodeStatus.SKIPPED
            return
        self._nodes["reasoning"] = NodeStatus.DONE

        self._nodes["broker"] = NodeStatus.RUNNING
        asked = bool(reasoning.actions) and self._patched(WHO_ASKED_AND_WHAT_WAS_READ)
        sourced = asked and self._patched(WHERE_IT_CAME_FROM)
        for action in reasoning.actions:
            intent = Intent.from_proposal(
                action,
                intent_id=str(workflow.uuid4()),
                org_id=run.org_id,
                run_id=run.run_id,
                principal_id=run.agent_id,
                pin=resolved.pin,
                requested_by=run.requested_by if asked else None,
                read_reach=tuple(sorted({*run.read_reach, *context.reach})) if asked else (),
                read_refs=tuple(sorted({*run.read_refs, *context.refs})) if sourced else (),
            )
            decision = await workflow.execute_local_activity_method(
                BrokerActivities.decide,
                BrokerRequest(intent=intent),
                start_to_close_timeout=timedelta(seconds=30),
                retry_policy=BROKER_RETRY,
                summary=f"broker: {intent.tool} on {', '.join(intent.projects)}",
            )
            self._tracked.append(_Tracked(intent, decision))
        self._nodes["broker"] = NodeStatus.DONE

        for tracked in self._tracked:
            if tracked.decision.outcome.may_dispatch:
                await self._dispatch(run, tracked)
        await self._hold(run)
        if self._nodes["action"] is NodeStatus.PENDING:
            self._nodes["action"] = NodeStatus.SKIPPED

    async def _close(
        self, run: RunInput, tracked: _Tracked, rule: str, reason: str, summary: str
    ) -> None:
        """Record that ``tracked`` will not be dispatched; its operation key is released."""
        tracked.decision = await workflow.execute_local_activity_method(
            BrokerActivities.expire,
            ExpireRequest(org_id=run.org_id, intent_id=tracked.intent.id, rule=rule, reason=reason),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=CLEANUP_RETRY,
            summary=summary,
        )

    async def _close_unfinished(self, run: RunInput, rule: str) -> None:
        """A failed or cancelled run leaves nothing open: holds and undispatched allows are
        closed on the record, so their operation keys do not block later intents."""
        for tracked in self._tracked:
            open_hold = tracked.decision.outcome is Outcome.HOLD
            undispatched = tracked.decision.outcome.may_dispatch and tracked.dispatch is None
            if open_hold or undispatched:
                await self._close(
                    run,
                    tracked,
                    rule,
                    f"the run ended before this intent was done: {self._error}",
                    f"broker: close ({rule})",
                )

    async def _dispatch(self, run: RunInput, tracked: _Tracked) -> None:
        self._nodes["action"] = NodeStatus.RUNNING
        try:
            tracked.dispatch = await workflow.execute_activity_method(
                BrokerActivities.dispatch,
                DispatchRequest(
                    org_id=run.org_id,
                    intent_id=tracked.intent.id,
                    decision=tracked.decision,
                    intent=tracked.intent,
                ),
                start_to_close_timeout=timedelta(seconds=15),
                heartbeat_timeout=HEARTBEAT,
                retry_policy=DISPATCH_RETRY,
                summary=f"action: {tracked.intent.tool} (intent {tracked.intent.id[:8]})",
            )
        except ActivityError as err:
            # The write was refused or never succeeded: close the intent on the record and
            # release its key, then fail the run (which closes whatever else is open).
            await self._close(
                run,
                tracked,
                "dispatch_failed",
                f"the write did not happen: {describe(err)}",
                "broker: close after a failed write",
            )
            raise
        self._nodes["action"] = NodeStatus.DONE

    async def _recheck(self, run: RunInput, colliding: list[_Tracked]) -> None:
        for tracked in colliding:
            tracked.decision = await workflow.execute_local_activity_method(
                BrokerActivities.recheck,
                RecheckRequest(org_id=run.org_id, intent_id=tracked.intent.id),
                start_to_close_timeout=timedelta(seconds=30),
                retry_policy=BROKER_RETRY,
                summary=f"broker: re-check collision of {tracked.intent.id[:8]}",
            )
            if tracked.decision.outcome.may_dispatch:
                self._status = RunStatus.RUNNING
                if not self._open_holds():
                    self._unflag_needs_human(run_ended=False)
                await self._dispatch(run, tracked)

    async def _review(
        self, run: RunInput, received: _Received, retry: RetryPolicy
    ) -> ReviewOutcome:
        """The broker's review of one signal, on the record; a refusal shows in the state."""
        self._attempts += 1
        request = received.request
        outcome = await workflow.execute_local_activity_method(
            BrokerActivities.review,
            ReviewRequest(
                org_id=run.org_id,
                run_id=run.run_id,
                request=request,
                attempt=self._attempts,
                undecodable=received.problem,
            ),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=retry,
            summary=(
                "broker: refuse an undecodable signal"
                if request is None
                else f"broker: review {request.verdict} by {request.approver_id[:8]}"
            ),
        )
        if not outcome.review.accepted:
            self._refused_signals.append(_refusal_line(received, outcome.review))
            del self._refused_signals[:-MAX_REFUSED_SHOWN]
        return outcome

    async def _drain(self, run: RunInput) -> None:
        """Review what is still in the inbox as the run ends: decisions for no open hold
        (refused as not_held or hold_closed) and undecodable signals, each on the record.
        Retried until the database answers, as closing is: the run's result stands."""
        while self._inbox and self._patched(REVIEW_EVERY_SIGNAL):
            await self._review(run, self._inbox.pop(0), CLEANUP_RETRY)

    def _open_holds(self) -> dict[str, _Tracked]:
        return {t.intent.id: t for t in self._tracked if t.decision.outcome is Outcome.HOLD}

    async def _hold(self, run: RunInput) -> None:
        if not self._open_holds():
            self._nodes["hold"] = NodeStatus.SKIPPED
            return
        self._nodes["hold"] = NodeStatus.WAITING
        self._status = RunStatus.NEEDS_HUMAN
        workflow.upsert_search_attributes([sa.NEEDS_HUMAN.value_set(True)])
        self._flagged_needs_human = True
        deadline = workflow.now() + timedelta(seconds=run.hold_timeout_seconds)
        await self._tell_parent(run, held=True)
        recheck_after = RECHECK_FIRST
        while open_holds := self._open_holds():
            self._status = RunStatus.NEEDS_HUMAN
            left = max(deadline - workflow.now(), timedelta(0))
            # An intent held for a collision waits for the other intents, not for a
            # human: the broker decides it again, sooner at first, then less often.
            colliding = [t for t in open_holds.values() if _waits_for_collision(t.decision)]
            waiting_for = (
                f"re-check collision of {len(colliding)} intent(s) in {recheck_after}"
                if colliding and recheck_after < left
                else f"hold: a human decides {len(open_holds)} intent(s) "
                f"({', '.join(t.intent.tool for t in open_holds.values())}) "
                f"before {deadline.isoformat(timespec='seconds')}"
            )
            try:
                await workflow.wait_condition(
                    lambda: bool(self._inbox),
                    timeout=min(left, recheck_after) if colliding else left,
                    timeout_summary=waiting_for,
                )
            except TimeoutError:
                if workflow.now() < deadline and colliding:
                    recheck_after = min(recheck_after * 2, RECHECK_MOST)
                    await self._recheck(run, colliding)
                    continue
                for expired in open_holds.values():
                    await self._close(
                        run,
                        expired,
                        "hold_expired",
                        "no human decided before the hold expired",
                        "broker: hold expired",
                    )
                break
            # Every signal is reviewed and recorded, even one naming another run's intent
            # (the ledger refuses it as wrong_run) or one that did not decode.
            received = self._inbox.pop(0)
            outcome = await self._review(run, received, BROKER_RETRY)
            request = received.request
            if request is None:
                continue
            tracked = open_holds.get(request.intent_id)
            if tracked is None:
                continue
            if outcome.decision is not None:
                tracked.decision = outcome.decision
            if not outcome.review.accepted:
                tracked.refused.append(f"{request.approver_id}: {outcome.review.rule}")
                continue
            if not self._open_holds():
                self._unflag_needs_human(run_ended=False)
            if tracked.decision.outcome.may_dispatch:
                self._status = RunStatus.RUNNING
                await self._dispatch(run, tracked)
        self._nodes["hold"] = NodeStatus.DONE
        self._status = RunStatus.RUNNING
        self._unflag_needs_human(run_ended=False)
        await self._tell_parent(run, held=False)
