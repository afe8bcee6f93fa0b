"""Intents (what an agent proposes) and decisions (what the broker disposes)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any

from pydantic import Field

from domain.canonical import digest
from domain.fleet.registry import AgentPin
from domain.governance.approvals import ApprovalProof, HeldDecision
from domain.organization.contracts import Frozen, Slug


class ProposedAction(Frozen):
    """One action as the model proposed it, after strict parsing."""

    tool: str
    projects: tuple[Slug, ...]
    payload: dict[str, Any]
    cost_cents: int = Field(ge=0)
    justification: str
    references: tuple[Slug, ...] = ()


class Intent(Frozen):
    """A proposed action attributed to a principal in a run: the broker's input."""

    id: str
    org_id: str
    run_id: str
    principal_id: str
    tool: str
    projects: tuple[Slug, ...]
    """Declared reach; the broker adds the projects of referenced records."""
    payload: dict[str, Any]
    cost_cents: int = Field(ge=0)
    justification: str
    references: tuple[Slug, ...] = ()
    pin: AgentPin | None = None
    """The agent version its run resolved; the broker decides under that version's
    charter. None for intents the system proposes outside a run (its stable version)."""
    read_reach: tuple[Slug, ...] = ()
    """Projects of what the run read (the memory released to it): the broker counts them
    in the reach, so a model that leaves a project out of ``projects`` cannot launder
    what it read there into an action elsewhere."""
    read_refs: tuple[str, ...] = ()
    """The memory records released to the run (its recall, a work graph's inputs, a
    persona's reading): outside content among them is named as the provenance of a hold
    on where the intent would go."""
    requested_by: str | None = None
    """The human whose request the run carries out (who started it, or the work graph or
    deliberation it belongs to); the broker lets the agent act only where that human has
    standing. A schedule's id (``schedule:heartbeat``) for work a schedule started: it
    stands on the schedule's written standing (:mod:`domain.governance.standing`). None
    only for an intent recorded before intents named who asked."""

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the canonical intent; an approval is bound to it. (Computed once: an
        intent is immutable; :meth:`model_copy` forgets it.) An intent without a pin
        digests as intents did before pins existed, and one nobody asked for (or whose run
        read nothing) as intents did before requesters (and reads) were recorded."""
        body = self.model_dump(mode="json")
        for optional in ("pin", "requested_by", "read_reach", "read_refs"):
            if body[optional] in (None, []):
                del body[optional]
        return digest(body)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Intent:
        """A copy; with ``update``, a different intent, whose digest is computed afresh."""
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("digest", None)
        return copy

    @classmethod
    def from_proposal(
        cls,
        action: ProposedAction,
        *,
        intent_id: str,
        org_id: str,
        run_id: str,
        principal_id: str,
        pin: AgentPin | None = None,
        requested_by: str | None = None,
        read_reach: tuple[str, ...] = (),
        read_refs: tuple[str, ...] = (),
    ) -> Intent:
        """Attribute a parsed proposal to the principal that made it."""
        return cls(
            id=intent_id,
            org_id=org_id,
            run_id=run_id,
            principal_id=principal_id,
            tool=action.tool,
            projects=action.projects,
            payload=action.payload,
            cost_cents=action.cost_cents,
            justification=action.justification,
            references=action.references,
            pin=pin,
            requested_by=requested_by,
            read_reach=read_reach,
            read_refs=read_refs,
        )


class Outcome(StrEnum):
    """What the broker said, or what became of a hold."""

    ALLOW = "allow"
    REJECT = "reject"
    HOLD = "hold"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"

    @property
    def may_dispatch(self) -> bool:
        """Only these outcomes let a connector write happen."""
        return self in (Outcome.ALLOW, Outcome.APPROVED)


class Stage(StrEnum):
    """The broker's stages, in the order they run; plus the non-broker recorders."""

    IDENTITY = "identity_charter"
    STAFFING = "staffing"
    SCOPE = "scope_barriers"
    EGRESS = "egress"
    COMMITMENTS = "commitments"
    COLLISIONS = "collisions"
    APPROVAL = "approval"
    AUDIT = "audit_dispatch"
    PARSER = "parser"
    REVIEW = "human_review"
    DISPATCH = "dispatch"


class BrokerMode(StrEnum):
    """How the broker acts on its decisions."""

    ENFORCE = "enforce"
    """Decide, record and act: a rejection stops, a hold waits for a human."""
    OBSERVE = "observe"
    """Decide and record, never block (for a rollout): every decision says what
    enforcement would have done, and lets the intent through."""


REPEAT_RULE = "already_done"
"""The rule of a hold on a write that may not be repeated and was already done (an invoice
paid once): approving it does it a second time, so the approval says so (``again``)."""


def repeats_a_write(rule: str) -> bool:
    """Whether a decision of ``rule`` (rules joined by ``+``) would do a write again."""
    return REPEAT_RULE in rule.split("+")


class Decision(Frozen):
    """The broker's answer for one intent: always present, never an exception."""

    intent_id: str
    outcome: Outcome
    stage: Stage
    rule: str
    reason: str
    reasons: tuple[tuple[str, str], ...] = ()
    """For a hold of several causes (``reason`` joins them with "; "): each cause's rule
    and reason, in the order the stages found them; empty for a single cause."""
    release: tuple[str, ...] = ()
    """For a hold: what would need to be true to release it."""
    reach: tuple[str, ...] = ()
    """The intent's real reach: declared projects and projects of referenced records."""
    evidence: tuple[str, ...] = ()
    """Intents this decision rests on (the earlier payments of the same invoice, the
    in-flight intents it collides with)."""
    mode: BrokerMode = BrokerMode.ENFORCE
    enforced: Outcome | None = None
    """In observe mode: what enforcement would have decided, where it differs."""
    intent_digest: str = ""
    audit_seq: int | None = None
    entry_hash: str | None = None
    decided_at: datetime | None = None


class ApprovalVerdict(StrEnum):
    """A human's answer to a hold."""

    APPROVE = "approve"
    DENY = "deny"


class ApprovalRequest(Frozen):
    """A human's approve/deny for a held intent, bound to its digest and to the hold it
    answers."""

    intent_id: str
    approver_id: str
    verdict: ApprovalVerdict
    intent_digest: str
    reason: str = ""
    proof: ApprovalProof | None = None
    """The API's signature over the decision (see :mod:`domain.governance.approvals`)."""
    hold: HeldDecision | None = None
    """The hold the approver was shown (:func:`held_decision`); None only in signals
    signed before holds were bound, which the broker refuses (``hold_unbound``)."""


class DispatchToken(Frozen):
    """Names the audited decision that lets one connector write happen."""

    org_id: str
    intent_id: str
    audit_seq: int
    entry_hash: str
    intent_digest: str


class DispatchResult(Frozen):
    """What a connector did with a write."""

    intent_id: str
    system: str
    action: str
    external_id: str
    duplicate: bool
    """True when the write had already happened (idempotent replay)."""


def held_decision(decision: Decision) -> HeldDecision:
    """The hold ``decision`` as a human's decision names it: a recorded decision, with its
    audit entry."""
    if decision.audit_seq is None or decision.entry_hash is None:
        raise ValueError("only a recorded decision can be answered")
    return HeldDecision(
        audit_seq=decision.audit_seq,
        entry_hash=decision.entry_hash,
        rule=decision.rule,
        evidence=tuple(decision.evidence),
    )
