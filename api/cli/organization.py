"""The organization: onboarding, projects, staffing and information barriers."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from api.cli.common import TOKEN_ENV, As, Org, console, principal_id, show, sync
from domain.organization.kinds import StaffRole

if TYPE_CHECKING:
    from domain.organization.contracts import Barrier
    from usecases.context import Ports
    from usecases.organization import Onboarded

projects_app = typer.Typer(help="Projects (departments, engagements).", no_args_is_help=True)


def onboard(
    name: Annotated[str, typer.Option(help="Organization name.")],
    founder_email: Annotated[str, typer.Option(help="Founder's email.")],
    founder_name: Annotated[str | None, typer.Option(help="Founder's display name.")] = None,
) -> None:
    """Create an organization, its founder (you: your ID token's subject proves the
    founder) and the starter fleet."""
    from usecases import ingress, organization

    token = os.environ.get(TOKEN_ENV) or None

    def found(ports: Ports) -> Onboarded:
        with ingress.refusals_recorded(ports, "cli", "onboard"):
            subject = ingress.founding_subject(ports, token)
        return organization.onboard(ports, name, founder_email, founder_name, oidc_subject=subject)

    done = sync(found)
    table = Table(title=f"{done.org.name} ({done.org.id})")
    for col in ("id", "handle", "kind", "agent kind"):
        table.add_column(col)
    for p in [done.founder, *done.agents]:
        table.add_row(p.id, p.handle, p.kind, p.agent_kind or "")
    console.print(table)
    console.print(f"founder {done.founder.id} ({done.founder.handle})")
    console.print(f"export VERLETICA_ORG={done.org.id}")


@projects_app.command("add")
def projects_add(slug: str, name: str, org: Org, actor: As = "") -> None:
    """Create a project; the founder becomes its approver."""
    from usecases import organization

    show(sync(lambda s: organization.add_project(s, org, actor, slug, name)))


@projects_app.command("list")
def projects_list(org: Org, actor: As = "") -> None:
    """List the organization's projects."""
    from usecases import organization

    for p in sync(lambda s: organization.projects(s, org, actor)):
        console.print(f"{p.slug:16} {p.name}")


def staff(
    principal: Annotated[str, typer.Argument(help="Principal id or handle.")],
    project: str,
    org: Org,
    actor: As = "",
    role: Annotated[StaffRole, typer.Option(help="member or approver")] = StaffRole.MEMBER,
) -> None:
    """Staff a principal on a project, from now on."""
    from usecases import organization

    show(
        sync(
            lambda s: organization.staff(
                s,
                org,
                actor,
                organization.AssignStaff(principal_id(s, org, actor, principal), project, role),
            )
        )
    )


def unstaff(staffing_id: str, org: Org, actor: As = "") -> None:
    """End a staffing now (authority ends with it)."""
    from usecases import organization

    show(sync(lambda s: organization.unstaff(s, org, actor, staffing_id)))


Reason = Annotated[str, typer.Option(help="Why (kept on the record).")]
Who = Annotated[str, typer.Argument(help="Principal id or handle.")]


def _standing(move: str, principal: str, reason: str, org: str, actor: str) -> None:
    """Suspend, reactivate or offboard (the use case of that name)."""
    from usecases import organization

    def moved(s: Ports) -> object:
        found = principal_id(s, org, actor, principal)
        return getattr(organization, move)(s, org, actor, found, reason)

    show(sync(moved))


def suspend(principal: Who, reason: Reason, org: Org, actor: As = "") -> None:
    """Stop a person or an agent from acting until brought back."""
    _standing("suspend", principal, reason, org, actor)


def reactivate(principal: Who, reason: Reason, org: Org, actor: As = "") -> None:
    """Bring a suspended person or agent back (a person signs in again)."""
    _standing("reactivate", principal, reason, org, actor)


def offboard(principal: Who, reason: Reason, org: Org, actor: As = "") -> None:
    """A person or an agent leaves for good: their staffing ends and their sign-ins and
    chat accounts are unlinked, on the record."""
    _standing("offboard", principal, reason, org, actor)


def barrier(
    name: str,
    groups: Annotated[list[str], typer.Argument(help="Groups, each a comma list: east west,north")],
    org: Org,
    actor: As = "",
    founder_side: Annotated[
        str | None,
        typer.Option(
            help="A project of the side the founder stays on (the founder's staffing on the other "
            "sides ends). Without it the founder stays approver on every side and reads "
            "the memory of none."
        ),
    ] = None,
) -> None:
    """Create an information barrier between disjoint project groups, and say what the
    founder reads and approves across it."""
    from usecases import organization

    def raise_it(s: Ports) -> tuple[Barrier, str]:
        made = organization.add_barrier(
            s, org, actor, name, [g.split(",") for g in groups], founder_side=founder_side
        )
        said = dict((b.id, w) for b, w in organization.founder_standing(s, org, actor))
        return made, said[made.id]

    made, said = sync(raise_it)
    show(made)
    typer.echo(said, err=True)  # stdout stays the barrier, as JSON for scripts
