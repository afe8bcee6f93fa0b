"""Why a run failed, as a class a human can act on, and how often it may be retried.

A run fails when it ends without doing its work: refused before it proposed anything
(resolve, the parser), failed or cancelled, or with every intent it proposed stopped by
the broker (rejected, or held and then denied or expired). Its class says what would
let it proceed; the bound says how many times a human may retry it as it is, for a
retry cannot change what the class names (a wall, a charter, a cap) but may outlast a
flaky model or network.
"""

from __future__ import annotations

from enum import StrEnum

from domain.intents import Stage


class FailureClass(StrEnum):
    """What stopped a run."""

    AUTHORITY = "authority"
    """Who the agent is, its charter, its staffing or its budget."""
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
    FailureClass.AUTHORITY: "check the agent's charter, staffing and budget, then start the "
    "work again",
    FailureClass.BARRIER: "the work crosses an information barrier: split it per side, or "
    "give it to an agent staffed on the side it reads",
    FailureClass.COMMITMENT: "a commitment or a human stopped it: change the commitment (or "
    "release the hold) if it should proceed",
    FailureClass.COLLISION: "another intent held the resource: retry once it is done",
    FailureClass.VALIDATION: "the model's reply was refused: retry, or give the reply",
    FailureClass.MODEL: "the model did not answer: retry, or give the reply",
    FailureClass.INFRASTRUCTURE: "a system failed: retry once it is back",
}
"""What a human can do about each class (the queue item's evidence)."""

_BY_STAGE: dict[str, FailureClass] = {
    "resolve": FailureClass.AUTHORITY,
    Stage.PARSER.value: FailureClass.VALIDATION,
    Stage.IDENTITY.value: FailureClass.AUTHORITY,
    Stage.STAFFING.value: FailureClass.AUTHORITY,
    Stage.SCOPE.value: FailureClass.BARRIER,
    Stage.COMMITMENTS.value: FailureClass.COMMITMENT,
    Stage.COLLISIONS.value: FailureClass.COLLISION,
    Stage.APPROVAL.value: FailureClass.COMMITMENT,
    Stage.REVIEW.value: FailureClass.COMMITMENT,
}
_BY_ERROR: dict[str, FailureClass] = {
    "ModelUnavailable": FailureClass.MODEL,
    "PolicyViolation": FailureClass.AUTHORITY,
    "InvalidInput": FailureClass.VALIDATION,
}
_INFRASTRUCTURE_RULES = frozenset({"dispatch_failed", "run_failed", "run_cancelled"})


def classify(stage: str, rule: str, error_type: str = "") -> FailureClass:
    """The class of a failure recorded at ``stage`` under ``rule`` (for a run's own
    failure entry, the type of the error that ended it)."""
    if error_type in _BY_ERROR:
        return _BY_ERROR[error_type]
    if rule in _INFRASTRUCTURE_RULES:
        return FailureClass.INFRASTRUCTURE
    parts = rule.split("+")
    if "collision" in parts or "already_done" in parts:
        return FailureClass.COLLISION
    return _BY_STAGE.get(stage, FailureClass.INFRASTRUCTURE)


def retries_left(failure: FailureClass, retried: int) -> int:
    """How many more times a run of ``failure`` may be retried after ``retried`` tries."""
    return max(RETRIES[failure] - retried, 0)
