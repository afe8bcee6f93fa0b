"""The fleet registry, as the founder manages it: draft a new version of an agent,
publish it, roll it out to a share of new runs, roll it back, retire it.

Each step runs under the organization's lock (:meth:`ConfigurationStore.change`), is
checked by :mod:`domain.fleet.registry` and appends its ``configuration`` audit entry with the
version's or rollout's new state. A run already going keeps the version it resolved.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from domain.errors import Conflict, NotFound
from domain.fleet import registry
from domain.fleet.registry import Rollout
from domain.organization.contracts import MAX_SKILLS, AgentDefinition, Charter, Skill
from domain.organization.kinds import CharterStatus, PrincipalKind
from domain.organization.ports import OrgChange
from domain.runs.parser import MAX_CENTS
from domain.tools import REGISTRY
from usecases.access import founder, member
from usecases.context import Ports


class VersionView(BaseModel):
    """One version of an agent, as the registry lists it."""

    version: int
    status: CharterStatus
    serving: str
    """``stable``, ``candidate N%``, ``rolled back`` or empty."""
    role: str
    purpose: str
    tools: tuple[str, ...]
    budget_ceiling_cents: int
    definition: int
    """The definition version it pins."""
    instructions: str
    budget_cents: int
    skills: tuple[Skill, ...]


class AgentVersions(BaseModel):
    """An agent's versions and its rollout."""

    agent_id: str
    handle: str
    rollout: Rollout | None
    versions: list[VersionView]


class DraftRequest(BaseModel):
    """What changes in a new version; anything left out is kept from ``base``."""

    base: int | None = Field(default=None, ge=1)
    """The version to start from (default: the stable one)."""
    role: str | None = Field(default=None, min_length=1, max_length=200)
    purpose: str | None = Field(default=None, min_length=1, max_length=2000)
    tools: tuple[str, ...] | None = Field(default=None, max_length=50)
    ceiling_cents: int | None = Field(default=None, ge=0, le=MAX_CENTS)
    instructions: str | None = Field(default=None, min_length=1, max_length=20_000)
    budget_cents: int | None = Field(default=None, ge=0, le=MAX_CENTS)
    skills: tuple[Skill, ...] | None = Field(default=None, max_length=MAX_SKILLS)


def _agent(change: OrgChange, agent_id: str) -> str:
    agent = change.principal(agent_id)
    if agent.kind is not PrincipalKind.AGENT:
        raise NotFound(f"{agent.handle} is not an agent")
    return agent.id


def _version(charters: dict[int, Charter], version: int) -> Charter:
    found = charters.get(version)
    if found is None:
        raise NotFound(f"no version v{version}")
    return found


def _rollout(rollout: Rollout | None) -> Rollout:
    if rollout is None:
        raise Conflict("the agent has no published version yet; publish one first")
    return rollout


def versions(ports: Ports, org_id: str, actor_id: str, agent_id: str) -> AgentVersions:
    """An agent's versions (newest first) and which of them serve new runs."""
    member(ports, org_id, actor_id)
    agent = ports.directory.agent(org_id, agent_id)
    if agent is None or agent.principal.kind is not PrincipalKind.AGENT:
        raise NotFound(f"no agent {agent_id} in this organization")
    definitions = {d.version: d for d in agent.definitions}
    views = []
    for charter in sorted(agent.versions, key=lambda c: -c.version):
        definition = definitions.get(charter.definition_pin)
        views.append(
            VersionView(
                version=charter.version,
                status=charter.status,
                serving=registry.serving(agent.rollout, charter.version),
                role=charter.role,
                purpose=charter.purpose,
                tools=charter.tools,
                budget_ceiling_cents=charter.budget_ceiling_cents,
                definition=charter.definition_pin,
                instructions="" if definition is None else definition.instructions,
                budget_cents=0 if definition is None else definition.budget_cents,
                skills=charter.skills,
            )
        )
    return AgentVersions(
        agent_id=agent.principal.id,
        handle=agent.principal.handle,
        rollout=agent.rollout,
        versions=views,
    )


def draft(
    ports: Ports, org_id: str, actor_id: str, agent_id: str, request: DraftRequest
) -> Charter:
    """A new draft version of an agent (the founder); it serves no run until published
    and rolled out."""
    founder(ports, org_id, actor_id)
    if request.tools is not None:
        unknown = sorted(set(request.tools) - set(REGISTRY))
        if unknown:
            raise ValueError(f"no such tool: {', '.join(unknown)}")
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal_id = _agent(change, agent_id)
        charters, definitions, rollout = change.agent_versions(principal_id)
        base_version = request.base or (rollout.stable if rollout else max(charters))
        base = _version(charters, base_version)
        base_definition: AgentDefinition | None = definitions.get(base.definition_pin)
        if base_definition is None:
            raise NotFound(f"v{base.version} pins definition v{base.definition_pin}, not held")
        charter, definition = registry.draft(
            base,
            base_definition,
            charter_version=max(charters) + 1,
            definition_version=max(definitions) + 1,
            role=request.role,
            purpose=request.purpose,
            tools=request.tools,
            ceiling_cents=request.ceiling_cents,
            instructions=request.instructions,
            budget_cents=request.budget_cents,
            skills=request.skills,
        )
        return change.add_version(charter, definition)


def publish(ports: Ports, org_id: str, actor_id: str, agent_id: str, version: int) -> Charter:
    """A draft version becomes published (the founder): it may now be rolled out. An
    agent's first published version serves its new runs at once."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal_id = _agent(change, agent_id)
        charters, _, rollout = change.agent_versions(principal_id)
        published = change.set_charter_status(
            registry.publish(_version(charters, version)), "agent_version_published"
        )
        if rollout is None:
            change.set_rollout(
                Rollout(principal_id=principal_id, stable=version), "agent_rollout_started"
            )
        return published


def roll_out(
    ports: Ports, org_id: str, actor_id: str, agent_id: str, version: int, share: int
) -> Rollout:
    """``share`` percent of the agent's new runs get ``version`` (the founder); at 100 it
    becomes the stable version. Runs already going keep theirs."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal_id = _agent(change, agent_id)
        charters, _, rollout = change.agent_versions(principal_id)
        changed = registry.roll_out(_rollout(rollout), _version(charters, version), share)
        return change.set_rollout(changed, "agent_rollout_changed")


def roll_back(ports: Ports, org_id: str, actor_id: str, agent_id: str) -> Rollout:
    """New runs of the agent stop getting its newest version (the founder): the candidate
    is withdrawn, or the previous stable version serves again. Runs already going keep
    their version."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal_id = _agent(change, agent_id)
        _, _, rollout = change.agent_versions(principal_id)
        changed, _ = registry.roll_back(_rollout(rollout))
        return change.set_rollout(changed, "agent_rolled_back")


def retire(ports: Ports, org_id: str, actor_id: str, agent_id: str, version: int) -> Charter:
    """Retire a version (the founder): it serves no run again, and the broker refuses
    the intents of a run still pinned to it (``charter_unpublished``)."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal_id = _agent(change, agent_id)
        charters, _, rollout = change.agent_versions(principal_id)
        retired, changed = registry.retire(_rollout(rollout), _version(charters, version))
        if changed != rollout:
            change.set_rollout(changed, "agent_rollout_changed")
        return change.set_charter_status(retired, "agent_version_retired")
