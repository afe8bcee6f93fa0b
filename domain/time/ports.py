"""Ports of the heartbeat: its store, the statuses of runs' workflows, and where a
heartbeat is started on demand."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from domain.time.heartbeat import HeartbeatRun, OrgSnapshot


class HeartbeatStore(Protocol):
    """Reads an organization's snapshot; keeps the heartbeat's own record."""

    def orgs(self) -> list[str]:
        """Every organization's id."""
        ...

    def snapshot(self, org_id: str, now: datetime) -> OrgSnapshot:
        """What the checks read, as of now (workflow statuses not yet asked)."""
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
