"""The broker's activities: decisions, reviews, re-checks and closes run as LOCAL
activities (in the workflow's own task, fast and with no queueing); the connector write
is the one regular activity that touches the outside world. Each is a thin call of a use
case in :mod:`usecases.governance`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.governance_batching import DecisionBatcher
from activities.off_loop import in_thread
from activities.tracing import span
from domain.errors import BrokerPoisoned, FoundationBroken, TokenRefused
from domain.governance.approvals import ApprovalKeys
from domain.governance.intents import Decision, DispatchResult, Intent
from domain.governance.ports import Connector, GovernanceStore
from domain.governance.values import BrokerMode
from domain.runs.failures import ErrorType
from domain.runs.run import (
    BrokerRequest,
    DispatchRequest,
    ExpireRequest,
    RecheckRequest,
    ReviewOutcome,
    ReviewRequest,
    RunFailure,
)
from usecases import governance, governance_review


class BrokerActivities:
    """Decide, review, re-check, close and dispatch, over the governance store and the
    connectors, in the broker mode the process runs in; ``approvals`` verify the proofs
    the API signs humans' decisions with."""

    def __init__(
        self,
        store: GovernanceStore,
        connectors: Mapping[tuple[str, str], Connector],
        clock: Callable[[], datetime],
        mode: BrokerMode = BrokerMode.ENFORCE,
        *,
        approvals: ApprovalKeys,
    ) -> None:
        self._store = store
        self._approvals = approvals
        self._connectors = connectors
        self._clock = clock
        self._mode = mode
        self._batcher = DecisionBatcher(self._decide_many, clock)

    def _decide_many(self, intents: Sequence[Intent], now: datetime) -> list[Decision]:
        return governance.decide_many(self._store, intents, now, self._mode)

    @activity.defn(name="broker_decide")
    async def decide(self, request: BrokerRequest) -> Decision:
        """Run the ordered stages; the decision is in the audit chain before this returns.
        Decisions arriving together share one transaction (group commit)."""
        intent = request.intent
        with span(
            "broker decide",
            org=intent.org_id,
            run=intent.run_id,
            agent=intent.principal_id,
            intent=intent.id,
            tool=intent.tool,
        ) as current:
            decision = await self._batcher.decide(intent)
            current.set_attribute("verletica.stage", str(decision.stage))
            current.set_attribute("verletica.outcome", str(decision.outcome))
            current.set_attribute("verletica.rule", decision.rule)
            return decision

    @activity.defn(name="broker_review")
    async def review(self, request: ReviewRequest) -> ReviewOutcome:
        """Re-check a human approve/deny: the API's proof, authority, identity, the intent
        digest, and (for an approval) every broker stage again; a poisoned broker refuses,
        on the record. A signal that did not decode is recorded, refused."""
        return await in_thread(
            governance_review.review_hold,
            self._store,
            request.org_id,
            request.run_id,
            request.request,
            request.attempt,
            self._clock(),
            keys=self._approvals,
            undecodable=request.undecodable,
        )

    @activity.defn(name="broker_recheck")
    async def recheck(self, request: RecheckRequest) -> Decision:
        """Decide again an intent held for a collision."""
        return await in_thread(
            governance_review.recheck,
            self._store,
            request.org_id,
            request.intent_id,
            self._clock(),
            self._mode,
        )

    @activity.defn(name="broker_expire")
    async def expire(self, request: ExpireRequest) -> Decision:
        """Close an intent that will not be dispatched, and release its operation key."""
        return await in_thread(
            governance.close,
            self._store,
            request.org_id,
            request.intent_id,
            request.rule,
            request.reason,
            self._clock(),
        )

    @activity.defn(name="broker_record_run_failure")
    async def record_failure(self, failure: RunFailure) -> None:
        """Put a run's failure or cancellation on the record (idempotent by run)."""
        await in_thread(
            governance.record_run_failure,
            self._store,
            governance.RunRef(failure.org_id, failure.run_id, failure.agent_id),
            rule=failure.rule,
            reason=failure.reason,
            now=self._clock(),
            error_type=failure.error_type,
        )

    @activity.defn(name="dispatch")
    async def dispatch(self, request: DispatchRequest) -> DispatchResult:
        """The connector write: idempotent by intent id, only with an audited allow. A
        refusal is final; a database failure is retried."""
        intent = request.intent
        tool = None if intent is None else intent.tool
        agent = None if intent is None else intent.principal_id
        run = None if intent is None else intent.run_id
        try:
            with span(
                "tool",
                org=request.org_id,
                run=run,
                agent=agent,
                intent=request.intent_id,
                tool=tool,
            ) as current:
                result = await in_thread(
                    governance.dispatch,
                    self._store,
                    self._connectors,
                    request.org_id,
                    request.decision,
                    self._clock(),
                    request.intent,
                )
                current.set_attribute("verletica.duplicate", result.duplicate)
            return result
        except BrokerPoisoned as exc:
            raise ApplicationError(
                str(exc), type=ErrorType.BROKER_POISONED, non_retryable=True
            ) from exc
        except FoundationBroken as exc:
            raise ApplicationError(
                str(exc), type=ErrorType.FOUNDATION_BROKEN, non_retryable=True
            ) from exc
        except TokenRefused as exc:
            raise ApplicationError(
                str(exc), type=ErrorType.DISPATCH_REFUSED, non_retryable=True
            ) from exc
