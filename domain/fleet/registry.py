"""The fleet registry: versions of an agent, and which version new runs get.

A *version* of an agent is one charter (role, purpose, tools, ceiling, skills) with the
agent definition (instructions, budget) it pins. A version is drafted, published, rolled
out to a share of new runs, rolled back and retired; each step is a configuration change
on the audit chain. A run is pinned to the version it resolved: it keeps that version
while it runs (a rollout or rollback changes only what *new* runs get), and the broker
decides its intents under that version's charter. A pin whose version is no longer
published (retired) is refused at the broker with ``charter_unpublished``.

Which version a new run gets is a pure function of the agent's :class:`Rollout` and the
run's id, so a worker that resolves the run again after a crash picks the same one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from pydantic import Field

from domain.errors import Conflict
from domain.organization.contracts import AgentDefinition, Charter, Frozen, Skill
from domain.organization.kinds import CharterStatus


class AgentPin(Frozen):
    """The version a run resolved: its charter and the definition that charter pins."""

    version: int = Field(ge=1)
    """The charter version."""
    definition: int = Field(ge=1)
    """The agent definition version the run was prompted with."""


class Rollout(Frozen):
    """Which published version of one agent new runs get."""

    principal_id: str
    stable: int = Field(ge=1)
    """The version every new run gets, except the candidate's share."""
    candidate: int | None = None
    """A version being rolled out, or None."""
    share: int = Field(default=0, ge=0, le=100)
    """Percent of new runs (by a hash of the run id) that get the candidate."""
    previous: int | None = None
    """The stable version before the last full rollout: what a rollback returns to."""
    rolled_back: tuple[int, ...] = ()
    """Versions rolled back, newest last: no new run gets them until rolled out again."""


def bucket(run_id: str) -> int:
    """A run's place in 0..99, the same in every process: compared with a share."""
    return int.from_bytes(hashlib.sha256(run_id.encode("utf-8")).digest()[:8], "big") % 100


def initial_rollout(principal_id: str, charters: Mapping[int, Charter]) -> Rollout | None:
    """The rollout of an agent that never had one: its newest published version is
    stable (how every agent ran before rollouts existed); None when none is published."""
    published = [v for v, c in charters.items() if c.status is CharterStatus.PUBLISHED]
    return Rollout(principal_id=principal_id, stable=max(published)) if published else None


def version_for(rollout: Rollout, run_id: str) -> int:
    """The version a new run ``run_id`` gets."""
    if rollout.candidate is not None and bucket(run_id) < rollout.share:
        return rollout.candidate
    return rollout.stable


def serving(rollout: Rollout | None, version: int) -> str:
    """What the rollout does with ``version``, for a listing."""
    if rollout is None:
        return ""
    if version == rollout.stable:
        return "stable"
    if version == rollout.candidate:
        return f"candidate {rollout.share}%"
    if version in rollout.rolled_back:
        return "rolled back"
    return ""


# lifecycle: each step is checked here and written (with its audit entry) by the store ----


def draft(
    base: Charter,
    base_definition: AgentDefinition,
    *,
    charter_version: int,
    definition_version: int,
    role: str | None = None,
    purpose: str | None = None,
    tools: tuple[str, ...] | None = None,
    ceiling_cents: int | None = None,
    instructions: str | None = None,
    budget_cents: int | None = None,
    skills: tuple[Skill, ...] | None = None,
) -> tuple[Charter, AgentDefinition | None]:
    """A new draft version from ``base``: what is not given is kept. A new definition
    version is made only when the instructions or the budget change."""
    definition: AgentDefinition | None = None
    pin = base.definition_pin
    if (instructions is not None and instructions != base_definition.instructions) or (
        budget_cents is not None and budget_cents != base_definition.budget_cents
    ):
        definition = AgentDefinition(
            principal_id=base.principal_id,
            version=definition_version,
            instructions=base_definition.instructions if instructions is None else instructions,
            budget_cents=base_definition.budget_cents if budget_cents is None else budget_cents,
        )
        pin = definition.version
    charter = Charter(
        principal_id=base.principal_id,
        version=charter_version,
        status=CharterStatus.DRAFT,
        role=base.role if role is None else role,
        purpose=base.purpose if purpose is None else purpose,
        tools=base.tools if tools is None else tools,
        budget_ceiling_cents=base.budget_ceiling_cents if ceiling_cents is None else ceiling_cents,
        definition_pin=pin,
        skills=base.skills if skills is None else skills,
    )
    return charter, definition


def publish(charter: Charter) -> Charter:
    """A draft becomes published: it may be rolled out (it serves no run yet)."""
    if charter.status is not CharterStatus.DRAFT:
        raise Conflict(f"v{charter.version} is {charter.status.value}, not a draft")
    return charter.model_copy(update={"status": CharterStatus.PUBLISHED})


def roll_out(rollout: Rollout, charter: Charter, share: int) -> Rollout:
    """Give ``share`` percent of new runs the published ``charter``; at 100 it becomes
    the stable version (the old one is kept as what a rollback returns to)."""
    if not 1 <= share <= 100:
        raise ValueError("a rollout's share is between 1 and 100 percent")
    if charter.status is not CharterStatus.PUBLISHED:
        raise Conflict(f"v{charter.version} is {charter.status.value}; publish it first")
    if charter.version == rollout.stable:
        raise Conflict(f"v{charter.version} is already the stable version")
    rolled_back = tuple(v for v in rollout.rolled_back if v != charter.version)
    if share == 100:
        return rollout.model_copy(
            update={
                "stable": charter.version,
                "candidate": None,
                "share": 0,
                "previous": rollout.stable,
                "rolled_back": rolled_back,
            }
        )
    return rollout.model_copy(
        update={"candidate": charter.version, "share": share, "rolled_back": rolled_back}
    )


def roll_back(rollout: Rollout) -> tuple[Rollout, int]:
    """Stop giving new runs the newest version: the candidate, or else the last fully
    rolled-out version (the previous stable one serves again). Runs already pinned to
    it keep it. Returns the new rollout and the version rolled back."""
    if rollout.candidate is not None:
        back = rollout.candidate
        return (
            rollout.model_copy(
                update={
                    "candidate": None,
                    "share": 0,
                    "rolled_back": (*rollout.rolled_back, back),
                }
            ),
            back,
        )
    if rollout.previous is not None:
        back = rollout.stable
        return (
            rollout.model_copy(
                update={
                    "stable": rollout.previous,
                    "previous": None,
                    "rolled_back": (*rollout.rolled_back, back),
                }
            ),
            back,
        )
    raise Conflict("nothing to roll back: no rollout is under way and none was completed")


def retire(rollout: Rollout, charter: Charter) -> tuple[Charter, Rollout]:
    """A version is retired: it serves no run again, and a run still pinned to it is
    refused at the broker. The stable version cannot be retired (new runs need one)."""
    if charter.status is CharterStatus.RETIRED:
        raise Conflict(f"v{charter.version} is retired already")
    if charter.version == rollout.stable:
        raise Conflict(
            f"v{charter.version} serves new runs; roll out another version before retiring it"
        )
    update: dict[str, object] = {
        "rolled_back": tuple(v for v in rollout.rolled_back if v != charter.version)
    }
    if rollout.candidate == charter.version:
        update |= {"candidate": None, "share": 0}
    if rollout.previous == charter.version:
        update["previous"] = None
    retired = charter.model_copy(update={"status": CharterStatus.RETIRED})
    return retired, rollout.model_copy(update=update)
