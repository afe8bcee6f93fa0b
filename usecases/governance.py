"""Governance use cases: decide, review, re-check, close, dispatch, poison.

Each reads top-down: open a unit of work (the organization locked, a snapshot loaded),
call the pure domain, record what it returned (the decision and its audit entry commit
together), return. The activities, the API and the command line all come through here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from domain.audit.chain import AuditDraft, ChainVerification
from domain.errors import (
    BrokerPoisoned,
    Conflict,
    FoundationBroken,
    NotFound,
    StoreFailure,
    TokenRefused,
    UnknownOrganization,
)
from domain.governance import records
from domain.governance.approvals import ApprovalKeys
from domain.governance.broker import STAGES, StageFn, evaluate, observed
from domain.governance.intents import (
    ApprovalRequest,
    Decision,
    DispatchResult,
    Intent,
    Outcome,
    Stage,
)
from domain.governance.ports import Connector, ConnectorWrite, GovernanceStore, GovernanceUnit
from domain.governance.review import reconfirm, refused, review, spends_proof
from domain.governance.tokens import token_for
from domain.governance.values import (
    BrokerMode,
    HoldState,
    ReviewResult,
    effects_of,
)
from domain.runs.run import ReviewOutcome
from domain.text import nul_at
from domain.tools import REGISTRY


def _rejection(intent: Intent, stage: Stage, rule: str, reason: str, now: datetime) -> Decision:
    return Decision(
        intent_id=intent.id,
        outcome=Outcome.REJECT,
        stage=stage,
        rule=rule,
        reason=reason,
        reach=tuple(sorted(intent.projects)),
        decided_at=now,
    )


def _first_decision(
    unit: GovernanceUnit,
    intent: Intent,
    now: datetime,
    mode: BrokerMode,
    stages: Sequence[tuple[Stage, StageFn]],
) -> Decision:
    existing = unit.latest(intent.id)
    if existing is not None:  # a retry after a crash: answer as recorded
        return existing
    claim = None
    poisoned = unit.poisoned()
    if poisoned is not None:
        decision = _rejection(
            intent, Stage.AUDIT, "broker_poisoned", f"the broker is poisoned: {poisoned}", now
        )
    else:
        verdict = evaluate(intent, unit.snapshot(intent), stages)
        decision, claim = verdict.decision, verdict.claim
        if mode is BrokerMode.OBSERVE:
            decision = observed(decision)
    draft = records.decision_draft(intent, decision, f"decision:{intent.id}", intent.principal_id)
    return unit.record(intent, decision, effects_of(decision, claim), draft)


MAX_FAULT = 300
"""How much of an unexpected failure's description a recorded rejection keeps."""


def fault(exc: Exception) -> str:
    """What an unexpected failure while deciding says on the record: the database's own
    words for a database failure; otherwise its type and message (bounded)."""
    if isinstance(exc, StoreFailure):
        return f"the database failed: {exc}"[:MAX_FAULT]
    text = f"the broker failed while deciding ({type(exc).__name__}: {exc})"
    return text.replace("\x00", "\\u0000")[:MAX_FAULT]


def decide(
    store: GovernanceStore,
    intent: Intent,
    now: datetime,
    mode: BrokerMode = BrokerMode.ENFORCE,
    stages: Sequence[tuple[Stage, StageFn]] = STAGES,
) -> Decision:
    """Decide ``intent`` once, in its organization's lock; the decision is in the chain
    before this returns. A retry returns the recorded decision.

    The broker is total: whatever fails between receiving the intent and recording its
    decision (the database, a pluggable memory backend the snapshot reads through, a
    bug) becomes a recorded rejection (``broker_error``), in a unit of its own. Only when
    even that cannot be recorded (the database does not answer) is it an exception, for
    the caller to retry. An unknown organization is :class:`UnknownOrganization`: there
    is no chain to record on."""
    try:
        with store.unit(intent.org_id, now) as unit:
            return _first_decision(unit, intent, now, mode, stages)
    except UnknownOrganization:
        raise
    except Exception as exc:  # the broker is total: recorded below, never lost
        problem = fault(exc)
    decision = _rejection(intent, Stage.IDENTITY, BROKER_ERROR, problem, now)
    draft = records.decision_draft(intent, decision, f"decision:{intent.id}", intent.principal_id)
    with store.unit(intent.org_id, now) as unit:
        existing = unit.latest(intent.id)
        return existing or unit.record(intent, decision, effects_of(decision), draft)


def decide_many(
    store: GovernanceStore,
    intents: Sequence[Intent],
    now: datetime,
    mode: BrokerMode = BrokerMode.ENFORCE,
    stages: Sequence[tuple[Stage, StageFn]] = STAGES,
) -> list[Decision]:
    """Decide intents of one organization in one transaction, in order: one lock, one
    commit (one fsync) for all of them (group commit). Each is decided exactly as
    :func:`decide` would, seeing the ones before it. Should anything fail, each is
    decided again on its own, so that one intent's trouble stays its own."""
    if not intents:
        return []
    org_id = intents[0].org_id
    if any(i.org_id != org_id for i in intents):
        raise ValueError("a batch of decisions is for one organization")
    try:
        with store.unit(org_id, now) as unit:
            return [_first_decision(unit, intent, now, mode, stages) for intent in intents]
    except UnknownOrganization:
        raise
    except Exception:  # each again on its own: a failure is recorded as its own intent's
        return [decide(store, intent, now, mode, stages) for intent in intents]


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


BROKER_ERROR = "broker_error"
"""The rule of a decision or review the broker could not complete (see :func:`fault`)."""

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
        decision = _rejection(stored.intent, Stage.IDENTITY, BROKER_ERROR, problem, now)
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


def close(
    store: GovernanceStore, org_id: str, intent_id: str, rule: str, reason: str, now: datetime
) -> Decision:
    """Close an intent that will not be dispatched (an undecided hold, an allow whose run
    ended first, a write that never succeeded): recorded as expired, its key released.
    An intent already closed, or whose write happened, is left as it is."""
    with store.unit(org_id, now) as unit:
        return close_in(unit, intent_id, rule, reason, now)


def close_in(
    unit: GovernanceUnit,
    intent_id: str,
    rule: str,
    reason: str,
    now: datetime,
    actor: str = "system:run",
) -> Decision:
    """:func:`close`, inside a unit the caller holds (a connector closing what an ended
    run left open, in its write's own transaction), by ``actor``."""
    stored = unit.stored(intent_id)
    if stored is None:
        raise NotFound(f"no intent {intent_id}")
    if not stored.open:
        return stored.latest
    decision = Decision(
        intent_id=intent_id,
        outcome=Outcome.EXPIRED,
        stage=Stage.REVIEW,
        rule=rule,
        reason=reason,
        reach=stored.reach,
        decided_at=now,
    )
    draft = records.closing_draft(stored.intent, decision, actor)
    return unit.record(stored.intent, decision, effects_of(decision), draft)


def record_run_rejection(
    store: GovernanceStore,
    org_id: str,
    run_id: str,
    agent_id: str,
    stage: str,
    rule: str,
    payload: Mapping[str, object],
    now: datetime,
) -> None:
    """Record that a run was refused before any intent (resolve, the parser)."""
    with store.unit(org_id, now) as unit:
        unit.append(records.run_rejection_draft(run_id, agent_id, stage, rule, dict(payload)))


def record_run_failure(
    store: GovernanceStore,
    org_id: str,
    run_id: str,
    agent_id: str,
    rule: str,
    reason: str,
    now: datetime,
    error_type: str = "",
) -> None:
    """Record that a run failed or was cancelled (once: the entry's key names the run)."""
    with store.unit(org_id, now) as unit:
        unit.append(records.run_failure_draft(run_id, agent_id, rule, reason, error_type))


def record_usage(store: GovernanceStore, org_id: str, draft: AuditDraft, now: datetime) -> None:
    """Charge a run's model call to it, on the chain (once per run: its key)."""
    with store.unit(org_id, now) as unit:
        unit.append(draft)


def record_question(
    store: GovernanceStore,
    org_id: str,
    run_id: str,
    agent_id: str,
    question: str,
    summary: str,
    now: datetime,
) -> None:
    """Record that an agent put a question to a human instead of acting (once per run)."""
    with store.unit(org_id, now) as unit:
        unit.append(records.question_draft(run_id, agent_id, question, summary))


def _refuse_dispatch(
    store: GovernanceStore,
    org_id: str,
    intent_id: str,
    rule: str,
    problem: str,
    now: datetime,
    poison: bool = False,
) -> None:
    with store.unit(org_id, now) as unit:
        unit.append(records.dispatch_refused_draft(intent_id, rule, problem))
        if poison and unit.poisoned() is None:
            unit.poison(records.poison_draft(problem, now), problem)


def dispatch(
    store: GovernanceStore,
    connectors: Mapping[tuple[str, str], Connector],
    org_id: str,
    decision: Decision,
    now: datetime,
    intent: Intent | None = None,
) -> DispatchResult:
    """Perform the write an audited allow permits. The connector checks the token in the
    write's own transaction. A poisoned broker refuses, on the record; a token that the
    record itself contradicts (the allowing entry missing, altered, or not this intent's)
    poisons the organization's broker, on the record, and is refused."""
    if intent is None:
        intent, token = store.token_for(org_id, decision)
    else:
        token = token_for(intent, decision)
    tool = REGISTRY[intent.tool]
    connector = connectors.get((tool.system, tool.action))
    if connector is None:
        problem = f"no connector for {tool.system}.{tool.action}"
        _refuse_dispatch(store, org_id, intent.id, "no_connector", problem, now)
        raise TokenRefused(problem)
    try:
        return connector.write(ConnectorWrite(intent=intent, tool=tool, token=token))
    except BrokerPoisoned as poisoned:
        _refuse_dispatch(store, org_id, intent.id, "broker_poisoned", str(poisoned), now)
        raise
    except TokenRefused as refusal:
        rule = "foundation_broken" if refusal.foundation else "token_refused"
        _refuse_dispatch(store, org_id, intent.id, rule, str(refusal), now, refusal.foundation)
        if refusal.foundation:
            raise FoundationBroken(str(refusal)) from refusal
        raise


def poison(store: GovernanceStore, org_id: str, reason: str, now: datetime) -> bool:
    """Poison the organization's broker, on the record; False when it already was."""
    with store.unit(org_id, now) as unit:
        if unit.poisoned() is not None:
            return False
        unit.poison(records.poison_draft(reason, now), reason)
        return True


def unpoison(
    store: GovernanceStore,
    org_id: str,
    actor_id: str,
    reason: str,
    verification: ChainVerification,
    now: datetime,
) -> None:
    """Clear a poisoned broker, on the record, once its chain verifies again."""
    if not verification.ok:
        raise Conflict(
            f"the chain does not verify (entry {verification.broken_at}: "
            f"{verification.problem}); the broker stays poisoned"
        )
    if not reason.strip():
        raise ValueError("unpoisoning needs a reason")
    with store.unit(org_id, now) as unit:
        if unit.poisoned() is None:
            raise Conflict("the broker is not poisoned")
        unit.unpoison(records.unpoison_draft(actor_id, reason, verification.entries, now))
