"""``verletica commit``: commitments recorded or extracted, confirmed, rejected, kept."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from api.cli.common import As, Org, principal_id, services, show, sync

if TYPE_CHECKING:
    from usecases.context import Ports

commit_app = typer.Typer(
    help="Commitments: record or extract (from a document), confirm, reject.",
    no_args_is_help=True,
)


@commit_app.command("add")
def commit_add(
    title: str,
    cap_cents: Annotated[int, typer.Option(help="Spend cap in cents.")],
    source: Annotated[str, typer.Option(help="Where it comes from.")],
    org: Org,
    actor: As = "",
    project: Annotated[list[str] | None, typer.Option(help="Projects it binds.")] = None,
    currency: str = "USD",
) -> None:
    """Record an extracted spend-cap commitment (it binds once confirmed)."""
    from domain.organization.contracts import SpendCap
    from usecases import commitments

    cap = SpendCap(limit_cents=cap_cents, currency=currency)
    show(
        sync(
            lambda s: commitments.add_commitment(
                s,
                org,
                actor,
                commitments.AddCommitment(
                    title, cap, source, excerpt="", projects=tuple(project or ())
                ),
            )
        )
    )


@commit_app.command("confirm")
def commit_confirm(commitment_id: str, actor: As = "") -> None:
    """Confirm an extracted commitment."""
    from usecases import commitments

    show(sync(lambda s: commitments.confirm(s, commitment_id, actor)))


@commit_app.command("reject")
def commit_reject(
    commitment_id: str,
    reason: Annotated[str, typer.Option(help="Why it does not bind.")],
    actor: As = "",
) -> None:
    """Reject an extracted commitment: it never binds."""
    from usecases import commitments

    show(sync(lambda s: commitments.reject(s, commitment_id, actor, reason)))


@commit_app.command("fulfilled")
def commit_fulfilled(
    commitment_id: str,
    note: Annotated[str, typer.Option(help="How it was kept (what was delivered).")],
    actor: As = "",
) -> None:
    """Mark a confirmed delivery or obligation kept: it binds no more."""
    from usecases import commitments

    show(sync(lambda s: commitments.fulfil(s, commitment_id, actor, note)))


@commit_app.command("extract")
def commit_extract(
    ref: Annotated[str, typer.Argument(help="The memory record to read.")],
    extractor: Annotated[str, typer.Option(help="The extracting agent, by id or handle.")],
    org: Org,
    actor: As = "",
    project: Annotated[list[str] | None, typer.Option(help="Projects they bind.")] = None,
) -> None:
    """An agent extracts a document's obligations as commitments awaiting confirmation."""
    from usecases import commitments

    async def go(s: Ports) -> Any:
        agent = principal_id(s, org, actor, extractor)
        return await commitments.extract(s, org, actor, ref, agent, tuple(project or ()))

    show(services(go, temporal=True))
