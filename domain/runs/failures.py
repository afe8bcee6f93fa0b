"""Why a run failed, as a class a human can act on, and how often it may be retried.

A run fails when it ends without doing its work: refused before it proposed anything
(resolve, the parser), failed or cancelled, or with every intent it proposed stopped by
the broker (rejected, or held and then denied or expired). Its class says what would
let it proceed; the bound says how many times a human may retry it as it is, for a
retry cannot change what the class names (a wall, a charter, a cap) but may outlast a
flaky model or network. (:class:`ErrorType` names the errors a step fails with, which
Temporal's retry policies and a run's failure entry go by.)
"""

from __future__ import annotations

from enum import StrEnum


class ErrorType(StrEnum):
    """The ``type`` of every ``ApplicationError`` an activity or a workflow raises: what
    a retry policy names as not retryable, and what a run's failure entry records. The
    values are in recorded histories and in Temporal's retry decisions: never change one."""

    POLICY_VIOLATION = "PolicyViolation"
    """The agent may not act as asked: refused at resolve, gone since, or not allowed to
    read the document it is to extract from."""
    MODEL_UNAVAILABLE = "ModelUnavailable"
    """The model cannot answer and a retry would not help (a replay miss, no script)."""
    INVALID_INPUT = "InvalidInput"
    """A workflow's input that does not validate."""
    BROKER_POISONED = "BrokerPoisoned"
    """The organization's broker is poisoned: it dispatches nothing until cleared."""
    FOUNDATION_BROKEN = "FoundationBroken"
    """A dispatch invariant failed: the audit foundation cannot be trusted."""
    DISPATCH_REFUSED = "DispatchRefused"
    """A connector refused the dispatch token."""
    NOT_FOUND = "NotFound"
    """What a work graph's step names is gone (its agent, its requester)."""
    CONFLICT = "Conflict"
    """The run a work graph's step records contradicts one already stored."""


class FailureClass(StrEnum):
    """What stopped a run."""

    AUTHORITY = "authority"
    """Who the agent is, its charter, its staffing or its budget; or who asked for the
    work, and where that human stands."""
    BARRIER = "barrier"
    """An information barrier, or a record whose projects are unknown."""
    COMMITMENT = "commitment"
    """A spend cap, a delivery obligation or a standing hold; or a human said no."""
    COLLISION = "collision"
    """Another intent on the same resource, or a write already done."""
    VALIDATION = "validation"
    """The model's reply, or the run's input, did not pass the strict checks."""
    MODEL = "model"
    """The model did not answer (no key, no fixture, unreachable)."""
    INFRASTRUCTURE = "infrastructure"
    """A write that never succeeded, a cancelled run, a broken foundation, a bug."""


RETRIES: dict[FailureClass, int] = {
    FailureClass.AUTHORITY: 0,
    FailureClass.BARRIER: 0,
    FailureClass.COMMITMENT: 0,
    FailureClass.COLLISION: 2,
    FailureClass.VALIDATION: 2,
    FailureClass.MODEL: 3,
    FailureClass.INFRASTRUCTURE: 3,
}
"""How many times a human may retry a run of each class as it is. Zero: retrying cannot
help until a human changes what stopped it (staffing, a charter, a commitment)."""

NEXT_STEP: dict[FailureClass, str] = {
    FailureClass.AUTHORITY: "check who asked for it, the agent's charter, staffing and "
    "budget, then start the work again",
    FailureClass.BARRIER: "the work crosses an information barrier: split it per side, give "
    "it to an agent staffed on the side it reads, or have someone on that side ask for it",
    FailureClass.COMMITMENT: "a commitment or a human stopped it: change the commitment (or "
    "release the hold) if it should proceed",
    FailureClass.COLLISION: "another action on the same thing was under way: retry once it is done",
    FailureClass.VALIDATION: "retry it: an agent whose reply could not be read often answers "
    "properly the second time",
    FailureClass.MODEL: "retry it once the AI model answers again",
    FailureClass.INFRASTRUCTURE: "a system failed: retry once it is back",
}
"""What a human can do about each class (the queue item's evidence)."""

_A, _B, _C = FailureClass.AUTHORITY, FailureClass.BARRIER, FailureClass.COMMITMENT
_X, _V, _I = FailureClass.COLLISION, FailureClass.VALIDATION, FailureClass.INFRASTRUCTURE

BY_RULE: dict[str, FailureClass] = {
    # who the agent is, its charter, staffing and budget
    "unknown_principal": _A,
    "not_an_agent": _A,
    "principal_inactive": _A,
    "charter_unpublished": _A,
    "registry_pin_mismatch": _A,
    "tool_outside_charter": _A,
    "budget_exceeded": _A,
    "not_staffed": _A,
    "reach_outside_staffing": _A,
    # who asked for the run: the agent acts only where that human stands
    "requester_unknown": _A,
    "requester_not_human": _A,
    "schedule_standing": _A,
    "diagnostic_standing": _A,
    "requester_inactive": _A,
    "requester_not_staffed": _A,
    "requester_not_approver": _A,
    # walls, and records whose projects (so whose side) cannot be known
    "barrier_crossed": _B,
    "staffing_straddles_barrier": _B,
    "unknown_reference": _B,
    # commitments, thresholds, and a human who said no or did not answer
    "spend_cap": _C,
    "spend_cap_currency": _C,
    "standing_hold": _C,
    "delivery_overdue": _C,
    "money_over_threshold": _C,
    "split_payments": _C,
    "denied_by_authority": _C,
    "hold_expired": _C,
    "heartbeat_does_not_wait": _C,
    # another intent on the resource, or the write already done
    "collision": _X,
    "already_done": _X,
    # the model's reply or the intent's content did not pass the strict checks
    "unknown_tool": _V,
    "tool_not_in_snapshot": _V,
    "invalid_payload": _V,
    "invalid_cost": _V,
    "no_target_project": _V,
    "unknown_project": _V,
    "malformed_json": _V,
    "malformed_action": _V,
    "malformed_actions": _V,
    "malformed_projects": _V,
    "malformed_references": _V,
    "malformed_question": _V,
    "question_with_actions": _V,
    "missing_field": _V,
    "missing_justification": _V,
    "unexpected_field": _V,
    "forbidden_character": _V,
    # a system failed: the database, the broker's foundation, a write, the run itself
    "broker_error": _I,
    "broker_poisoned": _I,
    "dispatch_failed": _I,
    "run_failed": _I,
    "run_cancelled": _I,
}
"""The class of every rule that can end a run as failed: the broker's rejections and
holds, the resolve and parser refusals, a human's deny, the closes of an intent that
was never done. Classed by rule, never by the stage that recorded it: a database
failure recorded at identity & charter is infrastructure, not authority. (A test
derives the rules from the code and checks that each is here.)"""

NOT_FAILURES = frozenset({"approved_by_authority"})
"""Rules the broker's review emits that never end a run as failed."""

_BY_ERROR: dict[str, FailureClass] = {
    ErrorType.MODEL_UNAVAILABLE: FailureClass.MODEL,
    ErrorType.POLICY_VIOLATION: FailureClass.AUTHORITY,
    ErrorType.INVALID_INPUT: FailureClass.VALIDATION,
}
_FIRST = (_X, _B, _A, _C, _V, FailureClass.MODEL, _I)
"""Which class a rule of several (``spend_cap+already_done``) is shown as: the one most
specific about what to do."""


def classify(rule: str, error_type: str = "") -> FailureClass:
    """The class of a failure recorded under ``rule`` (several joined by ``+``: the most
    specific of theirs); for a run's own failure entry, by the type of the error that
    ended it. A rule nobody classed is infrastructure (a bug, until it is classed). Never
    by the stage that recorded it: the stage says where, not what."""
    if error_type in _BY_ERROR:
        return _BY_ERROR[error_type]
    found = {BY_RULE.get(part, _I) for part in rule.split("+")}
    return next(c for c in _FIRST if c in found)


def retries_left(failure: FailureClass, retried: int) -> int:
    """How many more times a run of ``failure`` may be retried after ``retried`` tries."""
    return max(RETRIES[failure] - retried, 0)
