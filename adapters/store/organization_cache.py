"""A process's copy of each organization's configuration, checked against its head.

Every configuration change appends a ``configuration`` entry, and the head row keeps the
sequence of the newest one (``config_seq``). A reader that knows the current
``config_seq`` (a decision reads it with the lock it takes anyway) uses the copy it has
for that sequence, or loads one: no decision re-reads projects, barriers, commitments,
charters and staffing that have not changed, and no process can act on a stale copy.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import select
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditHeadRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    DestinationRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    RolloutRow,
    StaffingRow,
)
from domain.fleet.registry import AgentPin, Rollout, initial_rollout
from domain.governance.addresses import domain_of
from domain.governance.destinations import Counterparties, colleagues_of
from domain.governance.index import PolicyIndex
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Organization,
    Principal,
    Staffing,
)


@dataclass(frozen=True)
class OrgPolicy:
    """An organization's configuration as of one ``config_seq``."""

    config_seq: int
    org: Organization | None
    projects: frozenset[str]
    barriers: tuple[Barrier, ...]
    commitments: tuple[Commitment, ...]
    project_names: Mapping[str, str] = field(default_factory=dict)
    """Each project's name, by slug: the broker's reasons name projects as the owner does."""
    principals: dict[str, Principal] = field(default_factory=dict)
    definitions: dict[str, AgentDefinition] = field(default_factory=dict)
    """The definition each agent's stable version pins."""
    charters: dict[str, Charter] = field(default_factory=dict)
    """The charter of each agent's stable version (what a new run gets, but a rollout's
    share): see :meth:`pinned` for a run's own version."""
    charter_versions: dict[str, dict[int, Charter]] = field(default_factory=dict)
    """Every version of each agent's charter, by version."""
    definition_versions: dict[str, dict[int, AgentDefinition]] = field(default_factory=dict)
    """Every version of each agent's definition, by version."""
    rollouts: dict[str, Rollout] = field(default_factory=dict)
    """Which version new runs get, for each agent with a published version."""
    staffing: dict[str, tuple[Staffing, ...]] = field(default_factory=dict)
    """Every staffing row (current or not), by principal."""
    destinations: dict[str, tuple[Destination, ...]] = field(default_factory=dict)
    """Every established destination (current or retired), by project."""
    index: PolicyIndex = field(init=False)
    """``barriers`` and ``commitments`` indexed by project, built once per sequence."""
    colleagues: dict[str, tuple[Staffing, ...]] = field(init=False)
    """Each active human's staffing rows, by their folded email address."""
    own_domains: frozenset[str] = field(init=False)
    """The domains of the firm's people's addresses."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", PolicyIndex.of(self.barriers, self.commitments))
        colleagues = colleagues_of(self.principals.values(), self.staffing)
        object.__setattr__(self, "colleagues", colleagues)
        object.__setattr__(self, "own_domains", frozenset(domain_of(a) for a in colleagues))

    def counterparties(self, now: datetime) -> Counterparties:
        """The destinations and colleagues an egress check reads, at ``now``."""
        return Counterparties(self.destinations, self.colleagues, self.own_domains, now)

    def pinned(
        self, principal_id: str, pin: AgentPin | None
    ) -> tuple[Charter | None, AgentDefinition | None]:
        """The charter and definition an intent is decided under: its run's pinned
        version, or (no pin) the agent's stable version."""
        if pin is None:
            return self.charters.get(principal_id), self.definitions.get(principal_id)
        charter = self.charter_versions.get(principal_id, {}).get(pin.version)
        definition = self.definition_versions.get(principal_id, {}).get(pin.definition)
        return charter, definition


def _load(s: Session, org_id: str, config_seq: int) -> OrgPolicy:
    principals = {
        r.id: convert.principal(r)
        for r in s.execute(select(PrincipalRow).where(col(PrincipalRow.org_id) == org_id))
        .scalars()
        .all()
    }
    ids = list(principals)
    definition_versions: dict[str, dict[int, AgentDefinition]] = defaultdict(dict)
    for d in s.execute(
        select(AgentDefinitionRow).where(col(AgentDefinitionRow.principal_id).in_(ids))
    ).scalars():
        definition_versions[d.principal_id][d.version] = convert.definition(d)
    charter_versions: dict[str, dict[int, Charter]] = defaultdict(dict)
    for c in s.execute(select(CharterRow).where(col(CharterRow.principal_id).in_(ids))).scalars():
        charter_versions[c.principal_id][c.version] = convert.charter(c)
    rollouts = {
        r.principal_id: convert.rollout(r)
        for r in s.execute(select(RolloutRow).where(col(RolloutRow.org_id) == org_id)).scalars()
    }
    for principal_id, versions in charter_versions.items():
        if principal_id not in rollouts:
            first = initial_rollout(principal_id, versions)
            if first is not None:
                rollouts[principal_id] = first
    charters: dict[str, Charter] = {}
    definitions: dict[str, AgentDefinition] = {}
    for principal_id, rollout in rollouts.items():
        stable = charter_versions[principal_id].get(rollout.stable)
        if stable is None:
            continue
        charters[principal_id] = stable
        pinned = definition_versions.get(principal_id, {}).get(stable.definition_pin)
        if pinned is not None:
            definitions[principal_id] = pinned
    staffing: dict[str, list[Staffing]] = defaultdict(list)
    for r in s.execute(select(StaffingRow).where(col(StaffingRow.org_id) == org_id)).scalars():
        staffing[r.principal_id].append(convert.staffing(r))
    destinations: dict[str, list[Destination]] = defaultdict(list)
    for r in s.execute(
        select(DestinationRow).where(col(DestinationRow.org_id) == org_id)
    ).scalars():
        destinations[r.project].append(convert.destination(r))
    org = s.get(OrgRow, org_id)
    names: dict[str, str] = {
        slug: name
        for slug, name in s.execute(
            select(col(ProjectRow.slug), col(ProjectRow.name)).where(
                col(ProjectRow.org_id) == org_id
            )
        ).all()
    }
    return OrgPolicy(
        config_seq=config_seq,
        org=None if org is None else convert.org(org),
        projects=frozenset(names),
        project_names=MappingProxyType(names),  # shared by every snapshot of this sequence
        barriers=tuple(
            convert.barrier(r)
            for r in s.execute(select(BarrierRow).where(col(BarrierRow.org_id) == org_id))
            .scalars()
            .all()
        ),
        commitments=tuple(
            convert.commitment(r)
            for r in s.execute(select(CommitmentRow).where(col(CommitmentRow.org_id) == org_id))
            .scalars()
            .all()
        ),
        principals=principals,
        definitions=definitions,
        charters=charters,
        charter_versions=dict(charter_versions),
        definition_versions=dict(definition_versions),
        rollouts=rollouts,
        staffing={k: tuple(v) for k, v in staffing.items()},
        destinations={k: tuple(v) for k, v in destinations.items()},
    )


class OrgCache:
    """Each organization's newest configuration this process has seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_org: dict[str, OrgPolicy] = {}
        self.facts: dict[str, Any] = {}
        """Facts that never change once written, by key: what a spending intent spent,
        where and when (see adapters.store.governance). Not configuration, but shared
        the same way."""
        self.charges: dict[str, int] = {}
        """Run id → what its model call was charged (written before the run proposes
        anything, never changed)."""
        self.recipients: dict[str, frozenset[str]] = {}
        """Intent id → whom its message writes to (its payload never changes)."""

    def policy(self, s: Session, org_id: str, config_seq: int) -> OrgPolicy:
        """The configuration as of ``config_seq`` (read in ``s`` if this process has no
        copy of that sequence)."""
        cached = self._by_org.get(org_id)
        if cached is not None and cached.config_seq == config_seq:
            return cached
        loaded = _load(s, org_id, config_seq)
        with self._lock:
            current = self._by_org.get(org_id)
            if current is None or current.config_seq < config_seq:
                self._by_org[org_id] = loaded
        return loaded

    def current(self, s: Session, org_id: str) -> OrgPolicy | None:
        """The configuration as it stands now (one read of the head row); None for an
        unknown organization."""
        seq = s.execute(
            select(col(AuditHeadRow.config_seq)).where(col(AuditHeadRow.org_id) == org_id)
        ).scalar_one_or_none()
        return None if seq is None else self.policy(s, org_id, seq)
