"""The heartbeat (``verletica heartbeat``) and the standing holds it places
(``verletica holds``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, services, show, sync

if TYPE_CHECKING:
    from domain.heartbeat.checks import HeartbeatRun

heartbeat_app = typer.Typer(
    help="The heartbeat: run it now, see its recent runs.", no_args_is_help=True
)
holds_app = typer.Typer(
    help="Standing holds: while one is open, payments on its projects wait for a human.",
    no_args_is_help=True,
)


def _show_heartbeats(found: list[HeartbeatRun]) -> None:
    """Each heartbeat as a table: its checks, then its findings and what became of
    Sentinel's proposals for each."""
    for hb in found:
        ended = hb.ended_at.isoformat(timespec="seconds") if hb.ended_at else "running"
        table = Table(title=f"heartbeat {hb.id} · {hb.started_at:%Y-%m-%d %H:%M:%S} → {ended}")
        for column in ("check", "findings", "ms"):
            table.add_column(column)
        for check in hb.checks:
            table.add_row(check.name, str(check.count), f"{check.duration_ms:.2f}")
        console.print(table)
        outcomes: dict[str, list[str]] = {}
        for p in hb.proposals:
            done = "dispatched" if p.dispatched else p.rule
            outcomes.setdefault(p.subject, []).append(f"{p.tool}: {p.outcome} ({done})")
        findings = Table(title="findings")
        for column in ("severity", "kind", "summary", "sentinel's proposals"):
            findings.add_column(column)
        for f in hb.findings:
            findings.add_row(
                f.severity,
                f.kind,
                escape(f.summary[:120]),
                "; ".join(outcomes.get(f.subject, ["already on file"])),
            )
        console.print(findings)
        if hb.error:
            console.print(f"[yellow]{escape(hb.error)}[/]")


@heartbeat_app.command("run")
def heartbeat_run(org: Org, actor: As = "") -> None:
    """Run the heartbeat over the organization now (the founder) and show what it found."""
    from usecases import heartbeat

    _show_heartbeats(services(lambda s: heartbeat.run_now(s, org, actor), temporal=True))


@heartbeat_app.command("runs")
def heartbeat_runs(
    org: Org,
    actor: As = "",
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 5,
) -> None:
    """The organization's recent heartbeats."""
    from usecases import heartbeat

    _show_heartbeats(sync(lambda s: heartbeat.recent(s, org, actor, limit)))


@holds_app.command("list")
def holds_list(org: Org, actor: As = "") -> None:
    """The standing holds placed in the organization that you may read."""
    from usecases import heartbeat

    found = sync(lambda s: heartbeat.standing_holds(s, org, actor))
    table = Table(title="standing holds")
    for column in ("id", "projects", "state", "placed", "reason"):
        table.add_column(column)
    for h in found:
        state = "open" if h.released_at is None else f"released: {escape(h.release_reason)}"
        table.add_row(
            h.id,
            ", ".join(h.projects) or "(whole org)",
            state,
            h.placed_at.isoformat(timespec="seconds"),
            escape(h.reason[:120]),
        )
    console.print(table)


@holds_app.command("release")
def holds_release(
    hold_id: str,
    reason: Annotated[str, typer.Option(help="Why spending may go on.")],
    actor: As = "",
) -> None:
    """Release a standing hold, once, with a reason."""
    from usecases import heartbeat

    show(sync(lambda s: heartbeat.release_hold(s, hold_id, actor, reason)))
