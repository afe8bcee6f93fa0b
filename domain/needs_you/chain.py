"""What the audit chain says about the work waiting for a human, read in one pass.

The chain is the record every other table must agree with, and it holds every decision,
review, close and dispatch in order: folding it gives each intent's story (held when,
resolved how, dispatched or not) and each run's failure, with no other query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from domain.audit.chain import AuditDraft, AuditEntry
from domain.audit.crosscheck import causes
from domain.governance.intents import Outcome, Stage
from domain.governance.records import AGENT_QUESTION, RUN_ANSWERED, RUN_STAGE
from domain.organization.contracts import Frozen, UtcInstant
from domain.runs.failures import FailureClass, classify

DISPATCHED = "dispatched"
REVIEW_REFUSED = "review_refused"
CONFIGURATION = "configuration"
RUN_RETRIED = "run_retried"
RETRIED = "retried"
RUN_ENDS = frozenset({"run_failed", "run_cancelled"})
"""The rules of a run's own failure entry."""
FAILURE_CLOSES = frozenset({"run_failed", "run_cancelled", "dispatch_failed"})
"""The rules of a close that mean the run ended without doing its work."""
RUN_REFUSALS = frozenset({"resolve", Stage.PARSER.value})
"""Stages at which a run is refused before it proposes anything."""
STOPS = frozenset({Outcome.REJECT, Outcome.DENIED, Outcome.EXPIRED})
"""Outcomes that end an intent without its write."""
REVIEWED = frozenset({Outcome.APPROVED, Outcome.DENIED, REVIEW_REFUSED})
"""A person's decision on a hold, as the chain records it (a refused one included)."""
RESOLVED = frozenset(
    {Outcome.APPROVED, Outcome.DENIED, Outcome.EXPIRED, Outcome.ALLOW, Outcome.REJECT}
)
"""Outcomes that end a hold (an allow or a reject: a collision hold decided again)."""


def at(entry: AuditEntry) -> datetime:
    """When an entry was appended."""
    return datetime.fromisoformat(entry.at)


class HeldIntent(Frozen):
    """An intent whose hold is open: what it would do and why it waits."""

    intent_id: str
    run_id: str
    principal_id: str
    tool: str
    payload: dict[str, Any]
    cost_cents: int
    justification: str
    requested_by: str | None = None
    """The human the intent's run acts for (None: the system started it)."""
    held_at: UtcInstant
    """When the hold opened (a re-hold after a refused approval keeps this time)."""
    stage: str
    rule: str
    reason: str
    causes: tuple[tuple[str, str], ...] = ()
    """For a hold of several causes: each one's rule and reason (``reason`` joins them)."""
    release: tuple[str, ...] = ()
    """What would release it, as the broker said (newest hold)."""
    evidence: tuple[str, ...] = ()
    """Intents the hold rests on."""
    reach: tuple[str, ...] = ()
    audit_seq: int
    refused_reviews: tuple[str, ...] = ()
    """Approvals or denials the broker refused, ``verdict by who: rule — reason``."""


class FailedRun(Frozen):
    """A run that ended without doing its work, as the chain recorded it."""

    run_id: str
    failed_at: UtcInstant
    stage: str
    rule: str
    reason: str
    audit_seq: int
    error_type: str = ""
    """For a run's own failure entry: the type of the error that ended it."""

    @property
    def failure(self) -> FailureClass:
        """What stopped it, as a class a human can act on."""
        return classify(self.rule, self.error_type)


class AgentQuestion(Frozen):
    """A run whose agent put a question to a human instead of acting."""

    run_id: str
    agent_id: str
    question: str
    summary: str
    asked_at: UtcInstant
    audit_seq: int
    read_refs: tuple[str, ...] = ()
    """What the asking run read (its recall and what it was handed): the answering run
    is handed it too."""
    read_reach: tuple[str, ...] = ()
    """The projects of that."""


@dataclass
class IntentStory:
    """One intent's decisions as the chain tells them (a mutable fold accumulator)."""

    run_id: str
    first: str
    """Its first decision's outcome."""
    first_stage: str
    held_at: datetime | None = None
    """When a hold first opened, if it ever did."""
    resolved_at: datetime | None = None
    resolution: str | None = None
    """How its first hold ended (approved, denied, expired, allow, reject)."""
    open_hold: HeldIntent | None = None
    dispatched: bool = False
    refused: list[str] = field(default_factory=list)
    last: tuple[str, str, str, str, datetime, int] | None = None
    """Its newest decision: outcome, stage, rule, reason, when, audit sequence."""
    intent: dict[str, Any] = field(default_factory=dict)
    """The intent as first proposed (its tool, payload and cost: what it would do)."""
    expired: bool = False
    """Whether it was ever closed without a human (its run ended, it timed out)."""


@dataclass
class ChainStory:
    """Everything :func:`read_chain` found, by intent and by run."""

    intents: dict[str, IntentStory] = field(default_factory=dict)
    run_refusals: dict[str, FailedRun] = field(default_factory=dict)
    """Runs refused before proposing anything (resolve, parser)."""
    failures: dict[str, FailedRun] = field(default_factory=dict)
    """Runs that failed or were cancelled after proposing (their intents closed)."""
    retried: dict[str, str] = field(default_factory=dict)
    """Run id → the run that retried it."""
    questions: dict[str, AgentQuestion] = field(default_factory=dict)
    """Run id → the question its agent asked."""
    answered: dict[str, str] = field(default_factory=dict)
    """Run id → the run that went on with a human's answer."""
    commitments_recorded: dict[str, datetime] = field(default_factory=dict)
    """Commitment id → when it was recorded."""
    reviews: dict[str, list[AuditEntry]] = field(default_factory=dict)
    """Principal id → their decisions on held intents (approved, denied, or refused by
    the broker), oldest first, as recorded."""

    def open_holds(self) -> list[HeldIntent]:
        """Every hold still open, oldest first."""
        holds = [s.open_hold for s in self.intents.values() if s.open_hold is not None]
        return sorted(holds, key=lambda h: (h.held_at, h.intent_id))

    def tries(self, run_id: str) -> int:
        """How many retries led to ``run_id`` (0: it is no retry)."""
        parent = {retry: run for run, retry in self.retried.items()}
        count, seen = 0, {run_id}
        while run_id in parent and parent[run_id] not in seen:
            run_id = parent[run_id]
            seen.add(run_id)
            count += 1
        return count

    def stopped_runs(self) -> list[FailedRun]:
        """Runs that proposed intents and had every one stopped by the broker or a human
        (rejected, denied, expired), none dispatched and none still held: their newest
        stop is what stopped them. (Runs that failed or were refused are not here.)"""
        by_run: dict[str, list[IntentStory]] = {}
        for story in self.intents.values():
            by_run.setdefault(story.run_id, []).append(story)
        stopped = []
        for run_id, stories in by_run.items():
            if run_id in self.failures or run_id in self.run_refusals:
                continue
            if any(s.dispatched or s.open_hold is not None or s.last is None for s in stories):
                continue
            lasts = [s.last for s in stories if s.last is not None]
            if not all(last[0] in STOPS for last in lasts):
                continue
            outcome, stage, rule, reason, when, seq = max(lasts, key=lambda last: last[5])
            stopped.append(
                FailedRun(
                    run_id=run_id,
                    failed_at=when,
                    stage=stage,
                    rule=rule,
                    reason=reason,
                    audit_seq=seq,
                )
            )
        return sorted(stopped, key=lambda f: (f.failed_at, f.run_id))

    def open_questions(self) -> list[AgentQuestion]:
        """Every question no human has answered yet, oldest first."""
        return sorted(
            (q for run, q in self.questions.items() if run not in self.answered),
            key=lambda q: (q.asked_at, q.run_id),
        )

    def failed_runs(self) -> list[FailedRun]:
        """Every failed run not retried yet, oldest first."""
        failed = {**self.failures, **self.run_refusals}
        return sorted(
            (f for run, f in failed.items() if run not in self.retried),
            key=lambda f: (f.failed_at, f.run_id),
        )


def _strings(value: object) -> tuple[str, ...]:
    """A list of strings from an entry's payload; nothing for anything else (an entry
    recorded before it was kept)."""
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def causes_of(payload: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """A decision entry's causes (rule, reason), as the broker recorded them; none for
    a single cause or an entry from before causes were kept."""
    return causes(payload.get("reasons"))


def _held(entry: AuditEntry, story: IntentStory) -> HeldIntent:
    p = entry.payload
    intent = p.get("intent") or {}
    since = story.open_hold.held_at if story.open_hold is not None else at(entry)
    return HeldIntent(
        intent_id=entry.intent_id or "",
        run_id=story.run_id,
        principal_id=str(intent.get("principal_id", "")),
        tool=str(intent.get("tool", "")),
        payload=dict(intent.get("payload") or {}),
        cost_cents=int(intent.get("cost_cents", 0)),
        justification=str(intent.get("justification", "")),
        requested_by=intent["requested_by"]
        if isinstance(intent.get("requested_by"), str)
        else None,
        held_at=since,
        stage=entry.stage,
        rule=entry.rule,
        reason=str(p.get("reason", "")),
        causes=causes_of(p),
        release=tuple(str(r) for r in p.get("release", ())),
        evidence=tuple(str(e) for e in p.get("evidence", ())),
        reach=tuple(str(r) for r in p.get("reach", ())),
        audit_seq=entry.seq,
        refused_reviews=tuple(story.refused),
    )


def _on_intent(story: ChainStory, entry: AuditEntry) -> None:
    intent_id = entry.intent_id
    assert intent_id is not None
    found = story.intents.get(intent_id)
    if found is None:
        intent = entry.payload.get("intent")
        if not isinstance(intent, dict):
            return  # not a decision of the broker (an entry without its intent)
        found = story.intents[intent_id] = IntentStory(
            run_id=str(intent.get("run_id", "")),
            first=entry.decision,
            first_stage=entry.stage,
            intent=intent,
        )
    if entry.decision not in (DISPATCHED, REVIEW_REFUSED):
        found.last = (
            entry.decision,
            entry.stage,
            entry.rule,
            str(entry.payload.get("reason", "")),
            at(entry),
            entry.seq,
        )
    if entry.decision == Outcome.HOLD:
        found.held_at = found.held_at or at(entry)
        found.open_hold = _held(entry, found)
    elif entry.decision == DISPATCHED:
        found.dispatched = True
    elif entry.decision == REVIEW_REFUSED:
        verdict = entry.payload.get("verdict", "decision")
        line = f"{verdict} by {entry.actor}: {entry.rule} — {entry.payload.get('reason', '')}"
        found.refused.append(line)
        if found.open_hold is not None:
            found.open_hold = found.open_hold.model_copy(
                update={"refused_reviews": tuple(found.refused)}
            )
    if entry.decision == Outcome.EXPIRED:
        found.expired = True
    if entry.decision in RESOLVED and found.open_hold is not None:
        found.open_hold = None
        if found.resolved_at is None:
            found.resolved_at, found.resolution = at(entry), entry.decision
    if entry.rule in FAILURE_CLOSES and entry.decision == Outcome.EXPIRED:
        story.failures.setdefault(
            found.run_id,
            FailedRun(
                run_id=found.run_id,
                failed_at=at(entry),
                stage=entry.stage,
                rule=entry.rule,
                reason=str(entry.payload.get("reason", "")),
                audit_seq=entry.seq,
            ),
        )


def read_chain(entries: Iterable[AuditEntry], into: ChainStory | None = None) -> ChainStory:
    """Fold an organization's entries, oldest first, into its intents' and runs' stories;
    with ``into``, the story of the entries before them, extended (a left fold: folding
    the new entries onto it equals folding them all)."""
    story = ChainStory() if into is None else into
    for entry in entries:
        run_id = entry.payload.get("run_id")
        if entry.intent_id is not None:
            _on_intent(story, entry)
            if entry.decision in REVIEWED:
                story.reviews.setdefault(entry.actor, []).append(entry)
        elif entry.stage in RUN_REFUSALS and isinstance(run_id, str):
            story.run_refusals.setdefault(
                run_id,
                FailedRun(
                    run_id=run_id,
                    failed_at=at(entry),
                    stage=entry.stage,
                    rule=entry.rule,
                    reason=str(entry.payload.get("reason", "")),
                    audit_seq=entry.seq,
                ),
            )
        elif entry.stage == RUN_STAGE and entry.rule == RUN_RETRIED and isinstance(run_id, str):
            story.retried[run_id] = str(entry.payload.get("retry_run_id", ""))
        elif entry.stage == RUN_STAGE and entry.rule == AGENT_QUESTION and isinstance(run_id, str):
            story.questions.setdefault(
                run_id,
                AgentQuestion(
                    run_id=run_id,
                    agent_id=entry.actor,
                    question=str(entry.payload.get("question", "")),
                    summary=str(entry.payload.get("summary", "")),
                    asked_at=at(entry),
                    audit_seq=entry.seq,
                    read_refs=_strings(entry.payload.get("read_refs")),
                    read_reach=_strings(entry.payload.get("read_reach")),
                ),
            )
        elif entry.stage == RUN_STAGE and entry.rule == RUN_ANSWERED and isinstance(run_id, str):
            story.answered[run_id] = str(entry.payload.get("answer_run_id", ""))
        elif entry.stage == RUN_STAGE and entry.rule in RUN_ENDS and isinstance(run_id, str):
            # The run's own entry says more than its intents' closes (the error's type):
            # it replaces theirs.
            story.failures[run_id] = FailedRun(
                run_id=run_id,
                failed_at=at(entry),
                stage=entry.stage,
                rule=entry.rule,
                reason=str(entry.payload.get("reason", "")),
                audit_seq=entry.seq,
                error_type=str(entry.payload.get("error_type", "")),
            )
        elif entry.stage == CONFIGURATION and entry.rule == "commitment_recorded":
            key = entry.payload.get("key")
            if isinstance(key, str):
                story.commitments_recorded.setdefault(key, at(entry))
    return story


def retry_draft(run_id: str, retry_run_id: str, actor: str) -> AuditDraft:
    """A human retried a failed run: the new run's id. One per failed run (its key)."""
    return AuditDraft(
        event_key=f"retry:{run_id}",
        actor=actor,
        decision=RETRIED,
        stage=RUN_STAGE,
        rule=RUN_RETRIED,
        payload={"run_id": run_id, "retry_run_id": retry_run_id},
    )
