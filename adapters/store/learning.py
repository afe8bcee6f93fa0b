"""The learning pass's store: the window of work events it reads (from the audit chain
and the intents of runs), earlier experiences, and its one write (experiences, with
every acceptance and refusal in the audit chain)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlmodel import col, or_

from adapters.store.audit import ChainWriter, append, lock
from adapters.store.db import utc
from adapters.store.session import Database
from adapters.store.tables import AuditEntryRow, ExperienceRow, IntentRow, OrgRow
from domain.audit.chain import AuditDraft, ChainKeys
from domain.errors import Conflict, NotFound
from domain.governance.intents import Stage
from domain.governance.records import DISPATCH_REFUSED
from domain.learning.records import Experience, InsightStatus, LearningPass, Refused, WorkEvent
from domain.learning.validator import LEARNING, LEARNING_AGENT

MAX_REASON = 200
"""How much of a decision's reason an event's summary carries."""
_RUN_REFUSALS = (Stage.PARSER.value, "resolve")
"""Stages of a run refused before any intent (their entries name the run in the payload)."""


def event_id(seq: int) -> str:
    """A work event's id: its audit entry's sequence (stable: the chain is append-only)."""
    return f"a{seq}"


def _stamp(at: datetime) -> str:
    """An instant as the chain writes its entries' ``at`` (UTC, microseconds)."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def _kind(stage: str, decision: str) -> str:
    if stage == Stage.REVIEW.value:
        return "review"
    if stage == Stage.DISPATCH.value or decision in ("dispatched", DISPATCH_REFUSED):
        return "dispatch"
    if stage in _RUN_REFUSALS:
        return "run_refused"
    return "decision"


def _summary(tool: str | None, entry: AuditEntryRow) -> str:
    reason = entry.payload.get("reason") or entry.payload.get("problem") or ""
    what = f"{tool}: " if tool else ""
    text = f"{what}{entry.decision} at {entry.stage} ({entry.rule})"
    if isinstance(reason, str) and reason:
        text += f": {reason[:MAX_REASON]}"
    return text


class SqlLearning:
    """:class:`~domain.learning.ports.LearningStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

    def orgs(self) -> list[str]:
        with self._db.read() as s:
            return list(s.execute(select(col(OrgRow.id)).order_by(col(OrgRow.id))).scalars())

    def window(self, org_id: str, since: datetime, until: datetime, limit: int) -> list[WorkEvent]:
        with self._db.read() as s:
            rows = list(
                s.execute(
                    select(AuditEntryRow, IntentRow)
                    .outerjoin(IntentRow, col(IntentRow.id) == col(AuditEntryRow.intent_id))
                    .where(
                        col(AuditEntryRow.org_id) == org_id,
                        col(AuditEntryRow.at) >= _stamp(since),
                        col(AuditEntryRow.at) < _stamp(until),
                        or_(
                            col(AuditEntryRow.intent_id).is_not(None),
                            col(AuditEntryRow.stage).in_(_RUN_REFUSALS),
                        ),
                    )
                    .order_by(col(AuditEntryRow.seq).desc())
                    .limit(limit)
                )
            )
        events: list[WorkEvent] = []
        for entry, intent in reversed(rows):
            episode = intent.run_id if intent is not None else entry.payload.get("run_id")
            if not isinstance(episode, str):
                continue
            events.append(
                WorkEvent(
                    id=event_id(entry.seq),
                    episode_id=episode,
                    at=datetime.fromisoformat(entry.at),
                    principal_id=intent.principal_id if intent is not None else entry.actor,
                    kind=_kind(entry.stage, entry.decision),
                    summary=_summary(intent.tool if intent is not None else None, entry),
                )
            )
        return events

    def experiences(self, org_id: str, limit: int = 50) -> list[Experience]:
        with self._db.read() as s:
            rows = s.execute(
                select(ExperienceRow)
                .where(col(ExperienceRow.org_id) == org_id)
                .order_by(col(ExperienceRow.created_at).desc(), col(ExperienceRow.id))
                .limit(limit)
            ).scalars()
            return [_experience(r) for r in rows]

    def experience(self, experience_id: str) -> Experience | None:
        with self._db.read() as s:
            row = s.get(ExperienceRow, experience_id)
            return None if row is None else _experience(row)

    def review(
        self,
        experience_id: str,
        status: InsightStatus,
        actor_id: str,
        reason: str,
        now: datetime,
        audit: AuditDraft,
    ) -> Experience:
        with self._db.transaction() as s:
            row = s.get(ExperienceRow, experience_id)
            if row is None:
                raise NotFound(f"no experience {experience_id}")
            append(s, row.org_id, audit, now, self._keys)
            done = s.execute(
                update(ExperienceRow)
                .where(
                    col(ExperienceRow.id) == experience_id,
                    col(ExperienceRow.status) == InsightStatus.CANDIDATE.value,
                )
                .values(
                    status=status.value, reviewed_by=actor_id, reviewed_at=now, review_reason=reason
                )
            )
            if done.rowcount != 1:  # type: ignore[attr-defined]
                raise Conflict(f"experience {experience_id} is reviewed already")
            s.expire_all()
            reviewed = s.get(ExperienceRow, experience_id)
            assert reviewed is not None
            return _experience(reviewed)

    def record(self, learning: LearningPass) -> None:
        common: dict[str, Any] = {
            "pass_id": learning.id,
            "workflow_id": learning.workflow_id,
            "requested_by": learning.requested_by,
            "model": f"{learning.provider}/{learning.model}",
            "reply_digest": learning.reply_digest,
        }
        with self._db.transaction() as s:
            writer = ChainWriter(s, learning.org_id, self._keys, lock(s, learning.org_id))
            for x in learning.accepted:
                entry = writer.append(
                    AuditDraft(
                        event_key=f"learning:{learning.id}:accepted:{x.id}",
                        actor=LEARNING_AGENT,
                        decision=InsightStatus.CANDIDATE.value,
                        stage=LEARNING,
                        rule="insight_accepted",
                        payload={
                            **common,
                            "experience_id": x.id,
                            "lesson": x.lesson,
                            "cites": list(x.cites),
                            "general": x.general,
                        },
                    ),
                    learning.window_to,
                )
                if s.get(ExperienceRow, x.id) is None:
                    s.add(
                        ExperienceRow(
                            id=x.id,
                            org_id=x.org_id,
                            pass_id=x.pass_id,
                            lesson=x.lesson,
                            cites=list(x.cites),
                            episodes=list(x.episodes),
                            general=x.general,
                            status=x.status.value,
                            audit_seq=entry.seq,
                            created_at=x.created_at,
                        )
                    )
            for n, refused in enumerate(learning.refused):
                writer.append(_refusal(learning, n, refused, common), learning.window_to)
            writer.flush()


def _refusal(
    learning: LearningPass, n: int, refused: Refused, common: dict[str, Any]
) -> AuditDraft:
    return AuditDraft(
        event_key=f"learning:{learning.id}:refused:{n}",
        actor=LEARNING_AGENT,
        decision="refused",
        stage=LEARNING,
        rule=refused.rule,
        payload={**common, "reason": refused.reason, "index": refused.index},
    )


def _experience(row: ExperienceRow) -> Experience:
    return Experience(
        id=row.id,
        org_id=row.org_id,
        lesson=row.lesson,
        cites=tuple(row.cites),
        episodes=tuple(row.episodes),
        general=row.general,
        status=InsightStatus(row.status),
        pass_id=row.pass_id,
        created_at=utc(row.created_at),
        reviewed_by=row.reviewed_by,
        reviewed_at=None if row.reviewed_at is None else utc(row.reviewed_at),
        review_reason=row.review_reason,
    )
