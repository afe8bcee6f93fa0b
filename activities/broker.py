"""The broker's activities: decisions and reviews run as LOCAL activities; the
connector write is the one regular activity that touches the outside world."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from datetime import datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from domain import broker
from domain.intents import Decision, DispatchResult, Intent, Outcome, Stage
from domain.ports import ClaimRegistry, Connector, ConnectorWrite, GovernanceLedger
from domain.runs import BrokerRequest, DispatchRequest, ExpireRequest, ReviewOutcome, ReviewRequest
from domain.tools import REGISTRY

log = logging.getLogger(__name__)

BROKER_POISONED = "BrokerPoisoned"
DISPATCH_REFUSED = "DispatchRefused"


class BrokerActivities:
    """Decide, review, expire and dispatch, over the governance ledger and the connectors.

    In enforced mode a failed dispatch invariant poisons this broker: it refuses
    every later decision and dispatch until the process is restarted on a sound chain.
    """

    def __init__(
        self,
        ledger: GovernanceLedger,
        connectors: Mapping[tuple[str, str], Connector],
        clock: Callable[[], datetime],
        enforced: bool = True,
    ) -> None:
        self._ledger = ledger
        self._connectors = connectors
        self._clock = clock
        self._enforced = enforced
        self.poisoned: str | None = None

    def _poisoned_policy(
        self, intent: Intent, snap: broker.BrokerSnapshot, claims: ClaimRegistry
    ) -> Decision:
        return Decision(
            intent_id=intent.id,
            outcome=Outcome.REJECT,
            stage=Stage.AUDIT,
            rule="broker_poisoned",
            reason=f"the broker refused to act after a broken foundation: {self.poisoned}",
            decided_at=snap.now,
        )

    def _poisoned_review(self, *_: object, **__: object) -> broker.ReviewResult:
        return broker.ReviewResult(
            accepted=False,
            outcome=None,
            rule="broker_poisoned",
            reason=f"the broker refused to act after a broken foundation: {self.poisoned}",
        )

    @activity.defn(name="broker_decide")
    async def decide(self, request: BrokerRequest) -> Decision:
        """Run the ordered stages; the decision is in the audit chain before this returns."""
        policy = self._poisoned_policy if self.poisoned else broker.decide
        return await asyncio.to_thread(self._ledger.decide, request.intent, self._clock(), policy)

    @activity.defn(name="broker_review")
    async def review(self, request: ReviewRequest) -> ReviewOutcome:
        """Re-check a human approve/deny: authority, identity, the intent digest, and (for an
        approval) every broker stage again; a poisoned broker refuses, on the record."""
        result, decision = await asyncio.to_thread(
            self._ledger.review,
            request.org_id,
            request.run_id,
            request.request,
            request.attempt,
            self._clock(),
            self._poisoned_review if self.poisoned else broker.review,
            broker.decide,
        )
        return ReviewOutcome(review=result, decision=decision)

    @activity.defn(name="broker_expire")
    async def expire(self, request: ExpireRequest) -> Decision:
        """Close an intent that will not be dispatched, and release its operation key."""
        return await asyncio.to_thread(
            self._ledger.expire,
            request.org_id,
            request.intent_id,
            self._clock(),
            request.rule,
            request.reason,
        )

    def _dispatch(self, request: DispatchRequest) -> DispatchResult:
        if self.poisoned:
            raise ApplicationError(self.poisoned, type=BROKER_POISONED, non_retryable=True)
        try:
            intent, token = self._ledger.dispatch_token(request.org_id, request.decision)
        except RuntimeError as exc:  # FoundationBroken
            if self._enforced:
                self.poisoned = str(exc)
                log.critical("broker poisoned: %s", exc)
            self._ledger.record_dispatch_failure(
                request.org_id, request.intent_id, str(exc), self._clock()
            )
            raise ApplicationError(str(exc), type=BROKER_POISONED, non_retryable=True) from exc
        tool = REGISTRY[intent.tool]
        connector = self._connectors.get((tool.system, tool.action))
        if connector is None:
            raise ApplicationError(
                f"no connector for {tool.system}.{tool.action}",
                type=DISPATCH_REFUSED,
                non_retryable=True,
            )
        try:
            result = connector.write(ConnectorWrite(intent=intent, tool=tool, token=token))
        except PermissionError as exc:  # TokenRefused
            self._ledger.record_dispatch_failure(
                request.org_id, request.intent_id, str(exc), self._clock()
            )
            raise ApplicationError(str(exc), type=DISPATCH_REFUSED, non_retryable=True) from exc
        return result

    @activity.defn(name="dispatch")
    async def dispatch(self, request: DispatchRequest) -> DispatchResult:
        """The connector write: idempotent by intent id, only with an audited allow."""
        return await asyncio.to_thread(self._dispatch, request)
