"""A human's answer to a hold, and the re-check of a held intent: the approval proof
reviewed (its ladder in :mod:`domain.governance.review`), spent once, and the broker's
stages run again before an approval counts."""

from __future__ import annotations

from datetime import datetime

from domain.errors import (
    NotFound,
    StoreFailure,
    UnknownOrganization,
)
from domain.governance import records
from domain.governance.approvals import ApprovalKeys
from domain.governance.broker import evaluate, observed
from domain.governance.intents import (
    ApprovalRequest,
    Decision,
    Outcome,
    Stage,
)
from domain.governance.ports import GovernanceStore, GovernanceUnit
from domain.governance.review import reconfirm, refused, review, spends_proof
from domain.governance.values import (
    BrokerMode,
    HoldState,
    ReviewResult,
    effects_of,
)
from domain.runs.run import ReviewOutcome
from domain.text import nul_at
from usecases.governance import BROKER_ERROR, fault, rejection


def _sanitized(request: ApprovalRequest) -> tuple[ApprovalRequest, str | None]:
    """A request as it can be stored, and why it is malformed (a NUL sent straight to
    Temporal), if it is: its NULs are shown escaped."""
    malformed = nul_at(request.model_dump(mode="json"))
    if malformed is None:
        return request, None
    fields = {
        k: v.replace("\x00", "\\u0000") if isinstance(v, str) else v
        for k, v in request.model_dump(mode="json").items()
    }
    return ApprovalRequest.model_validate(fields), malformed


MAX_PROBLEM = 500
"""How much of an undecodable signal's description is recorded."""


def _refuse_signal(
    store: GovernanceStore, org_id: str, run_id: str, problem: str, attempt: int, now: datetime
) -> ReviewOutcome:
    """Record a signal that did not decode as a decision, refused. Idempotent by attempt: a
    retry appends nothing and answers the same."""
    problem = problem.replace("\x00", "\\u0000")[:MAX_PROBLEM]
    with store.unit(org_id, now) as unit:
        unit.append(records.signal_refused_draft(run_id, attempt, problem))
    return ReviewOutcome(review=refused(records.UNDECODABLE_SIGNAL, problem))


def review_hold(
    store: GovernanceStore,
    org_id: str,
    run_id: str,
    request: ApprovalRequest | None,
    attempt: int,
    now: datetime,
    *,
    keys: ApprovalKeys,
    undecodable: str | None = None,
) -> ReviewOutcome:
    """Re-check a human's approve or deny of a hold of ``run_id``, and record it,
    accepted or refused. It must carry the API's proof, verified with ``keys``, before
    anything else is asked. An approval re-runs the broker (:func:`reconfirm`): it is
    refused when the intent would now be rejected or held for something the hold did
    not show, and then the intent is held again with its new reasons. A signal that did
    not decode (``undecodable`` says why) is recorded, refused."""
    if request is None or undecodable is not None:
        problem = undecodable if undecodable is not None else "the signal carried no decision"
        return _refuse_signal(store, org_id, run_id, problem, attempt, now)
    request, malformed = _sanitized(request)
    try:
        return _review_once(store, org_id, run_id, request, malformed, attempt, now, keys)
    except (UnknownOrganization, StoreFailure):
        raise  # no chain to record on, or a database to wait for: the caller retries
    except Exception as exc:  # the broker is total: a review that failed is refused
        problem = fault(exc)
    result = refused(BROKER_ERROR, problem)
    event_key = records.review_key(run_id, request.intent_id, attempt)
    with store.unit(org_id, now) as unit:
        if unit.recorded(event_key) is None:
            unit.append(
                records.review_draft(
                    request, event_key, outcome=None, rule=result.rule, reason=result.reason
                )
            )
        return ReviewOutcome(review=result, decision=unit.latest(request.intent_id))


def _review_once(
    store: GovernanceStore,
    org_id: str,
    run_id: str,
    request: ApprovalRequest,
    malformed: str | None,
    attempt: int,
    now: datetime,
    keys: ApprovalKeys,
) -> ReviewOutcome:
    event_key = records.review_key(run_id, request.intent_id, attempt)
    spent_key = None if request.proof is None else records.proof_key(request.proof)
    with store.unit(org_id, now) as unit:
        done = unit.recorded(event_key)
        spent = None
        if done is None and spent_key is not None:
            spent = unit.recorded(spent_key)
            if spent is not None and spent.payload.get("review") == event_key:
                done, spent = spent, None  # this very review, retried
        if done is not None:  # a retried review: answer as recorded
            accepted = done.decision != records.REVIEW_REFUSED
            result = ReviewResult(
                accepted=accepted,
                outcome=Outcome(done.decision) if accepted else None,
                rule=done.rule,
                reason=str(done.payload.get("reason", "")),
            )
            return ReviewOutcome(review=result, decision=unit.latest(request.intent_id))
        stored = unit.stored(request.intent_id)
        poisoned = unit.poisoned()
        approver, staffing = unit.principal(request.approver_id)
        result = (
            refused("broker_poisoned", f"the broker is poisoned: {poisoned}")
            if poisoned is not None
            else review(
                request,
                run_id=run_id,
                keys=keys,
                held=stored,
                malformed=malformed,
                approver=approver,
                approver_staffing=staffing,
                now=now,
                spent=spent,
                project_names=unit.project_names(),
            )
        )
        # A genuine proof is spent by the review that reads it, whatever that review
        # decides: the entry is keyed by the proof, in this transaction.
        if spent_key is not None and poisoned is None and spends_proof(result):
            entry_key, review_of = spent_key, event_key
        else:
            entry_key, review_of = event_key, None
        latest = None if stored is None else stored.latest
        claim = None
        if result.outcome is Outcome.APPROVED and stored is not None:
            verdict = evaluate(stored.intent, unit.snapshot(stored.intent))
            # An intent held for a collision that has since ended holds no key yet: the
            # approval claims it, so nothing else starts a write to the resource beside it.
            claim = verdict.claim
            refusal = reconfirm(stored.latest, verdict.decision)
            if refusal is not None:
                result = refusal
                if verdict.decision.outcome is Outcome.HOLD:
                    draft = records.decision_draft(
                        stored.intent,
                        verdict.decision,
                        # as unique as the review: a review is its proof's, once
                        f"rehold:{stored.intent.id}:{spent_key or attempt}",
                        "broker",
                    )
                    latest = unit.record(
                        stored.intent,
                        verdict.decision,
                        effects_of(verdict.decision, verdict.claim),
                        draft,
                    )
        if not result.accepted or result.outcome is None or stored is None:
            unit.append(
                records.review_draft(
                    request,
                    entry_key,
                    outcome=None,
                    rule=result.rule,
                    reason=result.reason,
                    review=review_of,
                )
            )
            return ReviewOutcome(review=result, decision=latest)
        decision = Decision(
            intent_id=stored.intent.id,
            outcome=result.outcome,
            stage=Stage.REVIEW,
            rule=result.rule,
            reason=result.reason,
            reach=stored.reach,
            intent_digest=stored.intent.digest,
            decided_at=now,
        )
        draft = records.review_draft(
            request,
            entry_key,
            outcome=result.outcome,
            rule=result.rule,
            reason=result.reason,
            intent_digest=stored.intent.digest,
            review=review_of,
        )
        recorded = unit.record(
            stored.intent, decision, effects_of(decision, claim, by=request.approver_id), draft
        )
        return ReviewOutcome(review=result, decision=recorded)


def recheck(
    store: GovernanceStore,
    org_id: str,
    intent_id: str,
    now: datetime,
    mode: BrokerMode = BrokerMode.ENFORCE,
) -> Decision:
    """Decide again an intent held for a collision, once the intents it waits for may
    have completed. Nothing is recorded while it still waits for the same intents; when
    it no longer does, the new decision (allow, another hold, a rejection) is recorded.
    Total as :func:`decide` is: a failure while deciding again is a recorded rejection,
    but for the database's own (the hold is recorded and stays open: the workflow asks
    again, so a busy database delays the hold, it does not end it)."""
    try:
        with store.unit(org_id, now) as unit:
            return _recheck_in(unit, intent_id, mode)
    except (UnknownOrganization, StoreFailure):
        raise
    except _NoSuchIntent:
        raise
    except Exception as exc:  # the broker is total: recorded below, never lost
        problem = fault(exc)
    with store.unit(org_id, now) as unit:
        stored = unit.stored(intent_id)
        if stored is None:
            raise NotFound(f"no intent {intent_id}")
        if stored.hold is not HoldState.OPEN:
            return stored.latest
        decision = rejection(stored.intent, Stage.IDENTITY, BROKER_ERROR, problem, now)
        decision = decision.model_copy(update={"reach": stored.reach})
        n = stored.latest.audit_seq or 0
        draft = records.decision_draft(
            stored.intent, decision, f"recheck:{intent_id}:{n}", "broker"
        )
        effects = effects_of(decision, None, by="broker", held=True)
        return unit.record(stored.intent, decision, effects, draft)


class _NoSuchIntent(NotFound):
    """A re-check of an intent that is not recorded (not a failure of the broker's)."""


def _recheck_in(unit: GovernanceUnit, intent_id: str, mode: BrokerMode) -> Decision:
    stored = unit.stored(intent_id)
    if stored is None:
        raise _NoSuchIntent(f"no intent {intent_id}")
    waiting = "collision" in stored.latest.rule.split("+")
    if stored.hold is not HoldState.OPEN or not waiting:
        return stored.latest
    poisoned = unit.poisoned()
    if poisoned is not None:
        return stored.latest
    verdict = evaluate(stored.intent, unit.snapshot(stored.intent))
    decision = verdict.decision
    unchanged = (
        decision.outcome is Outcome.HOLD
        and decision.rule == stored.latest.rule
        and set(decision.evidence) == set(stored.latest.evidence)
    )
    if unchanged:
        return stored.latest
    if mode is BrokerMode.OBSERVE:
        decision = observed(decision)
    n = stored.latest.audit_seq or 0
    draft = records.decision_draft(stored.intent, decision, f"recheck:{intent_id}:{n}", "broker")
    effects = effects_of(decision, verdict.claim, by="broker", held=True)
    return unit.record(stored.intent, decision, effects, draft)
