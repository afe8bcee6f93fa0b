"""``verletica fleet``: the fleet registry, an agent's versions (draft, publish, rollout,
rollback, retire)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, principal_id, read_text, sync

if TYPE_CHECKING:
    from usecases.context import Ports
    from usecases.fleet import AgentVersions

fleet_app = typer.Typer(
    help="The fleet registry: an agent's versions (draft, publish, rollout, rollback, "
    "retire); every change is the founder's and goes on the audit chain.",
    no_args_is_help=True,
)


def _show_versions(found: AgentVersions) -> None:
    table = Table(title=f"{found.handle}: versions")
    for column in ("version", "status", "serving", "role", "tools", "definition", "skills"):
        table.add_column(column)
    for v in found.versions:
        table.add_row(
            f"v{v.version}",
            v.status.value,
            v.serving,
            escape(v.role),
            ", ".join(v.tools),
            f"v{v.definition}",
            ", ".join(s.name for s in v.skills),
        )
    console.print(table)


def _fleet_change(org: str, actor: str, agent: str, change: Callable[[Ports, str], object]) -> None:
    """Apply one registry change to ``agent`` (id or handle), then list its versions."""
    from usecases import fleet

    def go(s: Ports) -> AgentVersions:
        agent_id = principal_id(s, org, actor, agent)
        change(s, agent_id)
        return fleet.versions(s, org, actor, agent_id)

    _show_versions(sync(go))


Agent = Annotated[str, typer.Argument(help="The agent's handle or id.")]
Version = Annotated[int, typer.Argument(help="The version number (as listed).", min=1)]


@fleet_app.command("list")
def fleet_list(agent: Agent, org: Org, actor: As = "") -> None:
    """An agent's versions, newest first, and which serve new runs."""
    from usecases import fleet

    _show_versions(
        sync(lambda s: fleet.versions(s, org, actor, principal_id(s, org, actor, agent)))
    )


@fleet_app.command("draft")
def fleet_draft(
    agent: Agent,
    org: Org,
    actor: As = "",
    base: Annotated[int | None, typer.Option(help="Start from this version.")] = None,
    role: Annotated[str | None, typer.Option(help="New role.")] = None,
    purpose: Annotated[str | None, typer.Option(help="New purpose.")] = None,
    tools: Annotated[str | None, typer.Option(help="Comma-separated tool names.")] = None,
    ceiling: Annotated[int | None, typer.Option(help="Budget ceiling, cents.")] = None,
    instructions: Annotated[
        Path | None, typer.Option(help="A file with the new instructions.")
    ] = None,
    budget: Annotated[int | None, typer.Option(help="Budget per run, cents.")] = None,
    skill: Annotated[
        list[str] | None,
        typer.Option(help="NAME=FILE: a skill and the file with its instructions (repeat)."),
    ] = None,
) -> None:
    """Draft a new version (the founder): what is not given is kept from the base."""
    from domain.organization.contracts import Skill
    from usecases import fleet

    skills = None
    if skill is not None:
        skills = []
        for item in skill:
            name, sep, file = item.partition("=")
            if not sep:
                raise typer.BadParameter("a skill is NAME=FILE", param_hint="--skill")
            skills.append(Skill(name=name, instructions=read_text(file, f"skill {name}'s file")))
    request = fleet.DraftRequest(
        base=base,
        role=role,
        purpose=purpose,
        tools=None if tools is None else tuple(t.strip() for t in tools.split(",") if t.strip()),
        ceiling_cents=ceiling,
        instructions=None if instructions is None else read_text(instructions, "the instructions"),
        budget_cents=budget,
        skills=None if skills is None else tuple(skills),
    )
    _fleet_change(org, actor, agent, lambda s, a: fleet.draft(s, org, actor, a, request))


@fleet_app.command("publish")
def fleet_publish(agent: Agent, version: Version, org: Org, actor: As = "") -> None:
    """Publish a draft version (the founder): it may then be rolled out."""
    from usecases import fleet

    _fleet_change(org, actor, agent, lambda s, a: fleet.publish(s, org, actor, a, version))


@fleet_app.command("rollout")
def fleet_rollout(
    agent: Agent,
    version: Version,
    org: Org,
    actor: As = "",
    share: Annotated[
        int, typer.Option(help="Percent of new runs (100: all, and it becomes stable).")
    ] = 100,
) -> None:
    """Give a share of the agent's new runs a published version (the founder)."""
    from usecases import fleet

    _fleet_change(org, actor, agent, lambda s, a: fleet.roll_out(s, org, actor, a, version, share))


@fleet_app.command("rollback")
def fleet_rollback(agent: Agent, org: Org, actor: As = "") -> None:
    """New runs stop getting the newest version (the founder); runs going keep theirs."""
    from usecases import fleet

    _fleet_change(org, actor, agent, lambda s, a: fleet.roll_back(s, org, actor, a))


@fleet_app.command("retire")
def fleet_retire(agent: Agent, version: Version, org: Org, actor: As = "") -> None:
    """Retire a version (the founder): runs still pinned to it are refused at the broker."""
    from usecases import fleet

    _fleet_change(org, actor, agent, lambda s, a: fleet.retire(s, org, actor, a, version))
