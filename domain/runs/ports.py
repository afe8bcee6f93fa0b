"""Ports of a run: the agents' directory, the run records, and where runs execute."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from domain.fleet.registry import Rollout
from domain.governance.intents import Decision, Intent
from domain.organization.contracts import AgentDefinition, Charter, Frozen, Principal, Staffing
from domain.runs.outcome import RunEnd, Spent
from domain.runs.run import ApprovalSignal, RunInput, RunRecord, RunState


class AgentProfile(Frozen):
    """An agent as the resolve and reasoning steps read it."""

    principal: Principal
    definition: AgentDefinition | None
    """The definition the stable version pins."""
    charter: Charter | None
    """The stable version's charter."""
    staffing: tuple[Staffing, ...]
    """Every staffing row, current or not."""
    versions: tuple[Charter, ...] = ()
    """Every version of its charter (draft, published, retired)."""
    definitions: tuple[AgentDefinition, ...] = ()
    """Every version of its definition."""
    rollout: Rollout | None = None
    """Which version new runs get; None when no version is published."""

    def version(self, version: int) -> tuple[Charter | None, AgentDefinition | None]:
        """Charter ``version`` and the definition it pins (either None when missing)."""
        charter = next((c for c in self.versions if c.version == version), None)
        if charter is None:
            return None, None
        pin = charter.definition_pin
        return charter, next((d for d in self.definitions if d.version == pin), None)


class AgentDirectory(Protocol):
    """What the resolve and reasoning steps read of the directory."""

    def agent(self, org_id: str, principal_id: str) -> AgentProfile | None:
        """The agent, if ``org_id`` has such a principal."""
        ...


class RunRecords(Protocol):
    """Runs and the intents and decisions recorded for them."""

    def create(self, run: RunRecord) -> tuple[RunRecord, bool]:
        """Record a run; with a client key already used, the first run and False."""
        ...

    def get(self, run_id: str) -> RunRecord | None: ...

    def records(self, org_id: str, run_ids: Sequence[str]) -> dict[str, RunRecord]:
        """The records of ``run_ids`` of ``org_id``, in one read (unknown ones absent)."""
        ...

    def recent(self, org_id: str, limit: int = 50) -> list[RunRecord]:
        """The organization's runs, newest first."""
        ...

    def by_client_key(self, org_id: str, client_key: str) -> RunRecord | None:
        """The run a client key started, if any."""
        ...

    def intents(self, run_id: str) -> list[tuple[Intent, str, list[Decision]]]:
        """Each intent of the run with its status and its decisions, oldest first."""
        ...

    def intent(self, intent_id: str) -> tuple[Intent, str, str] | None:
        """An intent, its status and its run id."""
        ...

    def reach(self, run_id: str) -> set[str]: ...

    def reaches(self, org_id: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The reach of every run and every intent of an organization."""
        ...

    def intent_reach(self, intent_id: str) -> set[str]:
        """The projects one intent reaches (none for an unknown intent)."""
        ...

    def spent(self, org_id: str, since: datetime) -> list[Spent]:
        """Each allowed or approved intent since ``since`` that moved money: its agent,
        its reach and what it moved (as the broker counts it)."""
        ...

    def ends(self, org_id: str, run_ids: Sequence[str]) -> dict[str, RunEnd]:
        """What the record holds of each run's course (its intents' outcomes, a bad
        end), in one read; a run with neither is absent."""
        ...


class RunGateway(Protocol):
    """Where runs execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(
        self, run: RunInput, workflow_id: str, agent_handle: str, projects: tuple[str, ...] = ()
    ) -> None:
        """Start the run's workflow, findable by org, agent and the agent's ``projects``; a
        start repeated under the same id does nothing (and never runs a finished workflow
        again)."""
        ...

    async def state(self, workflow_id: str) -> tuple[str, RunState | None]:
        """The workflow's status (``running``, ``completed``…) and the run's state."""
        ...

    async def result(self, workflow_id: str) -> RunState:
        """Wait for the run to finish: its final state."""
        ...

    async def signal(self, workflow_id: str, approve: bool, signal: ApprovalSignal) -> None:
        """Send an approve or deny; :class:`~domain.errors.Conflict` when the run ended."""
        ...

    def ui_url(self, workflow_id: str) -> str:
        """Where a person sees the run in the Temporal UI."""
        ...

    async def statuses(self, workflow_ids: Sequence[str]) -> dict[str, str]:
        """Temporal's status of each workflow (``running``, ``completed``…), in one
        visibility query; those it does not list are absent."""
        ...
