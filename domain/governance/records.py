"""What each governance event writes to the audit chain.

Every draft has an idempotency key: a retried or resumed step that appends the same
event again gets the first entry back and writes nothing twice.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from domain.audit.chain import AuditDraft
from domain.governance.approvals import ApprovalProof
from domain.governance.intents import (
    ApprovalRequest,
    Decision,
    DispatchResult,
    Intent,
    Outcome,
    Stage,
)

REVIEW_REFUSED = "review_refused"
UNDECODABLE_SIGNAL = "undecodable_signal"
UNKNOWN_SENDER = "unknown"
"""The actor of a signal that did not decode: it named no one that could be believed."""
DISPATCHED = "dispatched"
DISPATCH_REFUSED = "dispatch_refused"
BROKER_POISONED = "broker_poisoned"
BROKER_UNPOISONED = "broker_unpoisoned"


def decision_draft(intent: Intent, decision: Decision, event_key: str, actor: str) -> AuditDraft:
    """A decision of the broker (a first decision, a re-hold, a re-check)."""
    payload: dict[str, Any] = {
        "intent": intent.model_dump(mode="json"),
        "intent_digest": intent.digest,
        "reason": decision.reason,
        "release": list(decision.release),
        "reach": list(decision.reach),
        "evidence": list(decision.evidence),
        "mode": decision.mode,
    }
    if decision.enforced is not None:
        payload["enforced"] = decision.enforced
    if decision.reasons:
        payload["reasons"] = [list(cause) for cause in decision.reasons]
    return AuditDraft(
        event_key=event_key,
        actor=actor,
        intent_id=intent.id,
        decision=decision.outcome,
        stage=decision.stage,
        rule=decision.rule,
        payload=payload,
    )


def review_key(run_id: str, intent_id: str, attempt: int) -> str:
    """The idempotency key of the ``attempt``-th review request of a run."""
    return f"review:{run_id}:{intent_id}:{attempt}"


def proof_key(proof: ApprovalProof) -> str:
    """The idempotency key of the review that reads ``proof``: a proof is spent once. (A
    digest of the signature: the signature itself is never written to the chain.)"""
    return f"proof:{hashlib.sha256(proof.signature.encode()).hexdigest()[:32]}"


def review_draft(
    request: ApprovalRequest,
    event_key: str,
    *,
    outcome: Outcome | None,
    rule: str,
    reason: str,
    intent_digest: str | None = None,
    review: str | None = None,
) -> AuditDraft:
    """A human's approve or deny: accepted (``outcome``) or refused (None). A review that
    read a genuine proof is keyed by the proof (:func:`proof_key`, so the proof is spent)
    and names its own attempt's key in ``review``, so that a retry of it is known."""
    payload: dict[str, Any] = {
        "approver_id": request.approver_id,
        "verdict": request.verdict,
        "intent_digest": intent_digest or request.intent_digest,
        "reason": reason,
        "request_reason": request.reason,
    }
    if request.proof is not None:  # which key vouched for it, and when (never the signature)
        payload["proof_key_id"] = request.proof.key_id
        payload["proof_signed_at"] = request.proof.signed_at.isoformat()
    if request.hold is not None:
        payload["hold_seq"] = request.hold.audit_seq
    if review is not None:
        payload["review"] = review
    return AuditDraft(
        event_key=event_key,
        actor=request.approver_id,
        intent_id=request.intent_id,
        decision=outcome if outcome is not None else REVIEW_REFUSED,
        stage=Stage.REVIEW,
        rule=rule,
        payload=payload,
    )


def signal_refused_draft(run_id: str, attempt: int, problem: str) -> AuditDraft:
    """A signal to run ``run_id`` that did not decode as a decision (its ``attempt``-th)."""
    return AuditDraft(
        event_key=f"signal:{run_id}:{attempt}",
        actor=UNKNOWN_SENDER,
        decision=REVIEW_REFUSED,
        stage=Stage.REVIEW,
        rule=UNDECODABLE_SIGNAL,
        payload={"run_id": run_id, "problem": problem},
    )


def closing_draft(intent: Intent, decision: Decision, actor: str = "system:run") -> AuditDraft:
    """An intent closed without its write: an expired hold, a failed or cancelled run."""
    return AuditDraft(
        event_key=f"expire:{intent.id}",
        actor=actor,
        intent_id=intent.id,
        decision=decision.outcome,
        stage=decision.stage,
        rule=decision.rule,
        payload={"intent_digest": intent.digest, "reason": decision.reason},
    )


def run_rejection_draft(
    run_id: str, agent_id: str, stage: str, rule: str, payload: dict[str, Any]
) -> AuditDraft:
    """A run refused before any intent (resolve failed, the parser refused the reply)."""
    return AuditDraft(
        event_key=f"{stage}:{run_id}",
        actor=agent_id,
        decision=Outcome.REJECT,
        stage=stage,
        rule=rule,
        payload={"run_id": run_id, **payload},
    )


RUN_STAGE = "run"
"""The stage of entries about a run as a whole (its failure, its retry)."""
RUN_ENDED_BADLY = "ended_badly"
"""The decision of a run's failure entry."""


def run_failure_key(run_id: str) -> str:
    """The event key of a run's bad end (one per run)."""
    return f"run-failed:{run_id}"


def run_failure_draft(
    run_id: str, agent_id: str, rule: str, reason: str, error_type: str = ""
) -> AuditDraft:
    """A run that failed or was cancelled, whatever it had proposed: one per run (its
    key), so that a failure before any intent (the model unreachable) is on the record
    too, and a retried recording adds nothing."""
    return AuditDraft(
        event_key=run_failure_key(run_id),
        actor=agent_id,
        decision=RUN_ENDED_BADLY,
        stage=RUN_STAGE,
        rule=rule,
        payload={
            "run_id": run_id,
            "reason": reason,
            **({"error_type": error_type} if error_type else {}),
        },
    )


AGENT_QUESTION = "agent_question"
RUN_ANSWERED = "run_answered"


def question_draft(
    run_id: str,
    agent_id: str,
    question: str,
    summary: str,
    read_refs: tuple[str, ...] = (),
    read_reach: tuple[str, ...] = (),
) -> AuditDraft:
    """An agent's reply that puts a question to the human who asked (no actions): one per
    run, waiting for a human's answer. With the records its run read and their projects
    (when it read any): the run that answers goes on knowing them."""
    read = (
        {"read_refs": list(read_refs), "read_reach": list(read_reach)}
        if read_refs or read_reach
        else {}
    )
    return AuditDraft(
        event_key=f"question:{run_id}",
        actor=agent_id,
        decision="asked",
        stage=RUN_STAGE,
        rule=AGENT_QUESTION,
        payload={"run_id": run_id, "question": question, "summary": summary, **read},
    )


def answer_draft(run_id: str, answer_run_id: str, actor: str) -> AuditDraft:
    """A human answered a run's question: the run that goes on with the answer. Once per
    question (its key). The answer's text is in the new run's task, not here."""
    return AuditDraft(
        event_key=f"answer:{run_id}",
        actor=actor,
        decision="answered",
        stage=RUN_STAGE,
        rule=RUN_ANSWERED,
        payload={"run_id": run_id, "answer_run_id": answer_run_id},
    )


def dispatch_draft(result: DispatchResult) -> AuditDraft:
    """A connector's write, recorded in the same commit as the write."""
    return AuditDraft(
        event_key=f"dispatch:{result.intent_id}",
        actor=f"connector:{result.system}",
        intent_id=result.intent_id,
        decision=DISPATCHED,
        stage=Stage.DISPATCH,
        rule=f"{result.system}.{result.action}",
        payload=result.model_dump(mode="json"),
    )


def dispatch_refused_draft(intent_id: str, rule: str, problem: str) -> AuditDraft:
    """A dispatch the broker or the connector refused (its own chain entry)."""
    return AuditDraft(
        event_key=f"dispatch-refused:{intent_id}",
        actor="broker",
        intent_id=intent_id,
        decision=DISPATCH_REFUSED,
        stage=Stage.DISPATCH,
        rule=rule,
        payload={"problem": problem},
    )


def poison_draft(reason: str, at: datetime) -> AuditDraft:
    """The broker of an organization poisoned: it found its foundation broken."""
    return AuditDraft(
        event_key=f"poison:{at.isoformat()}",
        actor="broker",
        decision=BROKER_POISONED,
        stage=Stage.AUDIT,
        rule="foundation_broken",
        payload={"reason": reason},
    )


def unpoison_draft(actor: str, reason: str, verified_entries: int, at: datetime) -> AuditDraft:
    """A human cleared a poisoned broker after a successful verification."""
    return AuditDraft(
        event_key=f"unpoison:{at.isoformat()}",
        actor=actor,
        decision=BROKER_UNPOISONED,
        stage=Stage.AUDIT,
        rule="verified_and_cleared",
        payload={"reason": reason, "verified_entries": verified_entries},
    )
