"""Ports of the heartbeat: its store, the statuses of runs' workflows, and where a
heartbeat is started on demand."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from domain.audit import AuditDraft
from domain.model import StandingHold
from domain.ports import OrgChange
from domain.time.heartbeat import FiledFinding, HeartbeatRun, OrgSnapshot
from domain.time.learning import Experience, InsightStatus, LearningPass, WorkEvent
from domain.time.playbooks import DriftFinding, EpisodeRecord, OfferRecord, RunFacts


class HeartbeatStore(Protocol):
    """Reads an organization's snapshot; keeps the heartbeat's own record."""

    def orgs(self) -> list[str]:
        """Every organization's id."""
        ...

    def snapshot(self, org_id: str, now: datetime) -> OrgSnapshot:
        """What the checks read, as of now (workflow statuses not yet asked)."""
        ...

    def findings(self, org_id: str) -> list[FiledFinding]:
        """The findings filed in the organization (through the broker), oldest first."""
        ...

    def finding(self, finding_id: str) -> FiledFinding | None:
        """One filed finding (its id is the filing intent's)."""
        ...

    def resolve(
        self, finding_id: str, actor_id: str, reason: str, now: datetime, audit: AuditDraft
    ) -> FiledFinding:
        """Mark a filed finding resolved by ``actor_id`` with ``reason``, and append
        ``audit`` to its organization's chain, in one transaction under the organization's
        lock. A finding resolved already is a :class:`~domain.errors.Conflict` (the first
        reason stays), also when two resolutions race."""
        ...

    def standing_holds(self, org_id: str) -> list[StandingHold]:
        """The standing holds placed in the organization, released or not, oldest first."""
        ...

    def standing_hold(self, hold_id: str) -> StandingHold | None:
        """One standing hold (its id is the placing intent's)."""
        ...

    def release(
        self, hold_id: str, actor_id: str, reason: str, now: datetime, audit: AuditDraft
    ) -> StandingHold:
        """Release a standing hold, with ``audit`` on the chain, in one transaction under
        the organization's lock; one released already is a Conflict (the first reason
        stays), also when two releases race."""
        ...

    def record(self, run: HeartbeatRun) -> None:
        """Keep ``run`` (again, with more of it, under the same id: the newest wins)."""
        ...

    def runs(self, org_id: str, limit: int = 20) -> list[HeartbeatRun]:
        """The organization's recent heartbeats, newest first."""
        ...


class RunStatuses(Protocol):
    """Where runs execute: whether a run's workflow still runs."""

    async def status(self, workflow_id: str) -> str:
        """``running``, ``completed``, ``failed``, ``canceled``, ``terminated``,
        ``timed_out``, or ``not_found``; :class:`~domain.errors.Unavailable` when it
        cannot be asked."""
        ...


class HeartbeatGateway(Protocol):
    """Starts a heartbeat now and waits for it."""

    async def run_now(self, org_id: str | None) -> list[HeartbeatRun]:
        """One heartbeat over ``org_id`` (None: every organization); its runs."""
        ...


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


class OfferChange(OrgChange, Protocol):
    """One change to an organization's process offers, under its lock and in one
    transaction with its audit entries (and, on confirmation, the playbook it publishes
    through :meth:`~domain.ports.OrgChange.add_procedure`)."""

    def episodes(self, unplaced: bool = False) -> list[EpisodeRecord]:
        """The organization's episodes oldest first (only those no offer holds yet)."""
        ...

    def add_episode(self, episode: EpisodeRecord) -> EpisodeRecord: ...

    def offers(self) -> list[OfferRecord]:
        """The organization's offers, oldest first."""
        ...

    def add_offer(self, offer: OfferRecord) -> OfferRecord:
        """Keep a new offer; its episodes are placed in it."""
        ...

    def join(self, offer_id: str, episode_id: str) -> OfferRecord:
        """Add an episode to an offer's evidence (its newest)."""
        ...

    def confirm_offer(self, offer_id: str, playbook: str, version: int) -> OfferRecord:
        """Mark an open offer confirmed into ``playbook``; a confirmed one is a Conflict."""
        ...

    def findings(self) -> list[DriftFinding]:
        """The organization's drift findings, oldest first."""
        ...

    def add_finding(self, finding: DriftFinding) -> DriftFinding: ...

    def resolve_finding(self, finding_id: str, reason: str) -> DriftFinding:
        """Resolve an unresolved finding with ``reason`` (a conditional update: a resolved
        one is a :class:`~domain.errors.Conflict`, never overwritten)."""
        ...


class OfferStore(Protocol):
    """Reads process offers and drift findings; hands out changes to them."""

    def change(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> AbstractContextManager[OfferChange]:
        """Lock ``org_id`` for one change by ``actor_id``."""
        ...

    def offer(self, offer_id: str) -> OfferRecord | None: ...

    def finding(self, finding_id: str) -> DriftFinding | None: ...

    def offers(self, org_id: str) -> list[OfferRecord]: ...

    def findings(self, org_id: str) -> list[DriftFinding]: ...

    def unharvested(self, org_id: str, limit: int) -> list[RunFacts]:
        """Up to ``limit`` of the organization's runs with intents that no episode stands
        for yet, oldest first."""
        ...
