"""Ports of the learning pass: its store, and where a pass is started on demand."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from domain.audit.chain import AuditDraft
from domain.learning.records import Experience, InsightStatus, LearningPass, WorkEvent


class LearningStore(Protocol):
    """The learning pass's reads (the window, earlier experiences) and its one write."""

    def orgs(self) -> list[str]:
        """Every organization's id."""
        ...

    def window(self, org_id: str, since: datetime, until: datetime, limit: int) -> list[WorkEvent]:
        """The organization's work events recorded in [since, until), the ``limit`` most
        recent, oldest first; each a decision, dispatch or review of a run (its episode),
        its id the audit entry's (``a<seq>``, stable)."""
        ...

    def experiences(self, org_id: str, limit: int = 50) -> list[Experience]:
        """The organization's candidate or promoted experiences, newest first."""
        ...

    def experience(self, experience_id: str) -> Experience | None: ...

    def review(
        self,
        experience_id: str,
        status: InsightStatus,
        actor_id: str,
        reason: str,
        now: datetime,
        audit: AuditDraft,
    ) -> Experience:
        """Promote or dismiss a candidate, with ``audit`` on the chain in the same
        transaction; one reviewed already is a Conflict (also when two race)."""
        ...

    def record(self, learning: LearningPass) -> None:
        """Keep the pass's accepted insights as candidate experiences and put each
        acceptance and each refusal, with its rule, in the audit chain; nothing else.
        Idempotent: recording the same pass again writes nothing twice."""
        ...


class LearningGateway(Protocol):
    """Starts a learning pass now and waits for it."""

    async def run_now(
        self, org_id: str | None, requested_by: str | None, scripted_reply: str | None = None
    ) -> list[LearningPass]:
        """One pass over ``org_id`` (None: every organization); its results."""
        ...
