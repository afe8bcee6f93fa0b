"""Process offers (``verletica offers``: episodes reviewed into offers, confirmed into
playbooks, reviewed for drift) and the findings on them (``verletica findings``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, show, sync

if TYPE_CHECKING:
    from domain.offers.playbooks import DriftFinding, OfferRecord

offers_app = typer.Typer(
    help="Process offers: review episodes into offers, confirm one into a playbook, "
    "review playbooks for drift.",
    no_args_is_help=True,
)
findings_app = typer.Typer(
    help="Findings: list drift findings, resolve one (drift, or filed by Sentinel).",
    no_args_is_help=True,
)


def _show_offers(found: list[OfferRecord], title: str = "process offers") -> None:
    table = Table(title=title)
    for column in ("offer", "state", "tools", "episodes", "projects", "playbook"):
        table.add_column(column)
    for o in found:
        playbook = f"{o.playbook} v{o.version}" if o.playbook else ""
        table.add_row(
            o.id,
            o.state.value,
            " → ".join(o.tools),
            str(len(o.episodes)),
            ", ".join(o.projects) or "the whole org",
            escape(playbook),
        )
    console.print(table)


def _show_findings(found: list[DriftFinding], title: str = "drift findings") -> None:
    table = Table(title=title)
    for column in ("finding", "playbook", "missed", "resolved", "reason"):
        table.add_column(column)
    for f in found:
        resolved = f.resolved_at.isoformat(timespec="seconds") if f.resolved_at else "open"
        table.add_row(
            f.id,
            escape(f.playbook),
            f"{f.missed}/{len(f.episodes)}",
            resolved,
            escape(f.reason or ""),
        )
    console.print(table)


@offers_app.command("list")
def offers_list(org: Org, actor: As = "") -> None:
    """The organization's process offers you may read."""
    from usecases import offers

    _show_offers(sync(lambda s: offers.offers(s, org, actor)))


@offers_app.command("review")
def offers_review(org: Org, actor: As = "") -> None:
    """Place every new episode into the offer of its process (or a new offer)."""
    from usecases import offers

    reviewed = sync(lambda s: offers.review_episodes(s, org, actor))
    console.print(
        f"{reviewed.placed} episode(s) placed: {len(reviewed.created)} new offer(s), "
        f"{len(reviewed.joined)} offer(s) with more evidence"
    )
    _show_offers(reviewed.offers)


@offers_app.command("confirm")
def offers_confirm(
    offer_id: str,
    name: Annotated[str, typer.Option(help="The playbook's name in procedural memory.")],
    actor: As = "",
) -> None:
    """Confirm an offer into a named playbook (procedural memory)."""
    from usecases import offers

    show(sync(lambda s: offers.confirm_offer(s, offer_id, actor, name)))


@offers_app.command("decline")
def offers_decline(
    offer_id: str,
    reason: Annotated[str, typer.Option(help="Why (kept on the record).")],
    actor: As = "",
) -> None:
    """Decline an offer: it is not offered again."""
    from usecases import offers

    show(sync(lambda s: offers.decline_offer(s, offer_id, actor, reason)))


@offers_app.command("drift")
def offers_drift(org: Org, actor: As = "") -> None:
    """Flag confirmed playbooks whose later episodes consistently miss their outcome."""
    from usecases.offers_drift import review_drift

    reviewed = sync(lambda s: review_drift(s, org, actor))
    console.print(f"{len(reviewed.flagged)} playbook(s) flagged for drift")
    _show_findings(reviewed.findings, "unresolved drift findings")


@findings_app.command("list")
def findings_list(org: Org, actor: As = "") -> None:
    """The organization's drift findings you may read."""
    from usecases.offers_drift import findings

    _show_findings(sync(lambda s: findings(s, org, actor)))


@findings_app.command("resolve")
def findings_resolve(
    finding_id: str,
    reason: Annotated[str, typer.Option(help="Why it is resolved.")],
    actor: As = "",
) -> None:
    """Resolve a finding (a playbook's drift, or one Sentinel filed), once, with a reason."""
    from usecases import heartbeat

    show(sync(lambda s: heartbeat.resolve_any_finding(s, finding_id, actor, reason)))
