"""Ports of the heartbeat: its store, the statuses of runs' workflows, and where a
heartbeat is started on demand."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from domain.audit.chain import AuditDraft
from domain.heartbeat.checks import FiledFinding, HeartbeatRun, OrgSnapshot
from domain.organization.contracts import StandingHold


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
