"""Governance use cases: decide, review, re-check, close, dispatch, poison.

Each reads top-down: open a unit of work (the organization locked, a snapshot loaded),
call the pure domain, record what it returned (the decision and its audit entry commit
together), return. The activities, the API and the command line all come through here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from domain.governance.broker import STAGES, StageFn, evaluate, observed
from domain.governance.intents import (
    Decision,
    DispatchResult,
    Intent,
    Outcome,
    Stage,
)
from domain.governance.outbound import Outbound, outbound
from domain.governance.ports import Connector, ConnectorWrite, GovernanceStore, GovernanceUnit
from domain.governance.tokens import token_for
from domain.governance.values import (
    BrokerMode,
    effects_of,
)
from domain.tools import REGISTRY


def rejection(intent: Intent, stage: Stage, rule: str, reason: str, now: datetime) -> Decision:
    return Decision(
        intent_id=intent.id,
        outcome=Outcome.REJECT,
        stage=stage,
        rule=rule,
        reason=reason,
        reach=tuple(sorted({*intent.projects, *intent.read_reach})),
        decided_at=now,
    )


def _first_decision(
    unit: GovernanceUnit,
    intent: Intent,
    now: datetime,
    mode: BrokerMode,
    stages: Sequence[tuple[Stage, StageFn]],
    out: Outbound | None = None,
) -> Decision:
    existing = unit.latest(intent.id)
    if existing is not None:  # a retry after a crash: answer as recorded
        return existing
    claim = None
    poisoned = unit.poisoned()
    if poisoned is not None:
        decision = rejection(
            intent, Stage.AUDIT, "broker_poisoned", f"the broker is poisoned: {poisoned}", now
        )
    else:
        verdict = evaluate(intent, unit.snapshot(intent), stages, out)
        decision, claim = verdict.decision, verdict.claim
        if mode is BrokerMode.OBSERVE:
            decision = observed(decision)
    draft = records.decision_draft(intent, decision, f"decision:{intent.id}", intent.principal_id)
    return unit.record(intent, decision, effects_of(decision, claim), draft)


def read_outbound(intent: Intent) -> Outbound | None:
    """What ``intent`` carries out of the firm (:mod:`domain.governance.outbound`), read
    before the decision takes the organization's lock. None when its tool sends and pays
    nothing, is unknown, or its payload cannot be read: the egress stage then reads it
    itself, under the lock, where a failure is a recorded rejection."""
    try:
        return outbound(REGISTRY.get(intent.tool), intent.payload)
    except Exception:  # the broker is total: the stage meets it again and records it
        return None


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
        out = read_outbound(intent)  # before the lock: it depends on the intent alone
        with store.unit(intent.org_id, now) as unit:
            return _first_decision(unit, intent, now, mode, stages, out)
    except UnknownOrganization:
        raise
    except Exception as exc:  # the broker is total: recorded below, never lost
        problem = fault(exc)
    decision = rejection(intent, Stage.IDENTITY, BROKER_ERROR, problem, now)
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
        outs = [read_outbound(intent) for intent in intents]  # before the lock
        with store.unit(org_id, now) as unit:
            return [
                _first_decision(unit, intent, now, mode, stages, out)
                for intent, out in zip(intents, outs, strict=True)
            ]
    except UnknownOrganization:
        raise
    except Exception:  # each again on its own: a failure is recorded as its own intent's
        return [decide(store, intent, now, mode, stages) for intent in intents]


BROKER_ERROR = "broker_error"
"""The rule of a decision or review the broker could not complete (see :func:`fault`)."""


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


@dataclass(frozen=True, slots=True)
class RunRef:
    """The run an entry of its own is about: its organization, its id, the agent running it."""

    org_id: str
    run_id: str
    agent_id: str


def record_run_rejection(
    store: GovernanceStore,
    run: RunRef,
    *,
    stage: str,
    rule: str,
    payload: Mapping[str, object],
    now: datetime,
) -> None:
    """Record that a run was refused before any intent (resolve, the parser)."""
    with store.unit(run.org_id, now) as unit:
        unit.append(
            records.run_rejection_draft(run.run_id, run.agent_id, stage, rule, dict(payload))
        )


def record_run_failure(
    store: GovernanceStore,
    run: RunRef,
    *,
    rule: str,
    reason: str,
    now: datetime,
    error_type: str = "",
) -> None:
    """Record that a run failed or was cancelled (once: the entry's key names the run)."""
    with store.unit(run.org_id, now) as unit:
        unit.append(records.run_failure_draft(run.run_id, run.agent_id, rule, reason, error_type))


def record_usage(store: GovernanceStore, org_id: str, draft: AuditDraft, now: datetime) -> None:
    """Charge a run's model call to it, on the chain (once per run: its key)."""
    with store.unit(org_id, now) as unit:
        unit.append(draft)


def record_question(
    store: GovernanceStore,
    run: RunRef,
    *,
    question: str,
    summary: str,
    now: datetime,
    read_refs: tuple[str, ...] = (),
    read_reach: tuple[str, ...] = (),
) -> None:
    """Record that an agent put a question to a human instead of acting (once per run),
    with what its run read: the run that goes on with the answer knows it too."""
    with store.unit(run.org_id, now) as unit:
        unit.append(
            records.question_draft(
                run.run_id, run.agent_id, question, summary, read_refs, read_reach
            )
        )


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
