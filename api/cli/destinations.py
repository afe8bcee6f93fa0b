"""Established destinations: where a project's outbound work may go without a human."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from api.cli.common import As, Org, console, show, sync
from domain.organization.kinds import DestinationKind

destinations_app = typer.Typer(
    help="Established destinations: where a project's outbound work may go without a human.",
    no_args_is_help=True,
)


@destinations_app.command("list")
def list_destinations(org: Org, actor: As = "") -> None:
    """The current destinations of the projects you may read."""
    from usecases import destinations

    found = sync(lambda s: destinations.destinations(s, org, actor))
    table = Table("id", "project", "kind", "value", "account", "label")
    for d in found:
        table.add_row(d.id, d.project, d.kind.value, d.value, d.account or "", d.label)
    console.print(table)


@destinations_app.command("add")
def add_destination(
    project: str,
    kind: Annotated[DestinationKind, typer.Argument(help="email_domain, email or payee.")],
    value: Annotated[str, typer.Argument(help="A domain, an address or a payee's name.")],
    org: Org,
    actor: As = "",
    account: Annotated[
        str | None, typer.Option(help="A payee's bank details (IBAN or account number).")
    ] = None,
    label: Annotated[str, typer.Option(help="Who it is, in your words.")] = "",
) -> None:
    """Establish a destination for a project (the founder's to do)."""
    from usecases import destinations

    show(
        sync(
            lambda s: destinations.establish(
                s, org, actor, destinations.Establish(project, kind, value, account, label)
            )
        )
    )


@destinations_app.command("retire")
def retire_destination(destination_id: str, org: Org, actor: As = "") -> None:
    """Retire a destination: work to it is held again."""
    from usecases import destinations

    show(sync(lambda s: destinations.retire(s, org, actor, destination_id)))
