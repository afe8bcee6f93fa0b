"""``verletica learn``: the learning pass and the experiences it keeps (candidate
lessons, never policy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, services, show, sync

if TYPE_CHECKING:
    from domain.learning.records import Experience, LearningPass

learn_app = typer.Typer(
    help="The learning pass: run it now, see the experiences it kept.", no_args_is_help=True
)


def _show_experiences(found: list[Experience], title: str = "experiences") -> None:
    table = Table(title=title)
    for column in ("status", "lesson", "cites", "episodes"):
        table.add_column(column)
    for x in found:
        table.add_row(x.status, escape(x.lesson[:160]), " ".join(x.cites), str(len(x.episodes)))
    console.print(table)


def _show_learning(learned: LearningPass) -> None:
    """A pass: what it read, the candidates it kept, each refusal with its rule."""
    console.print(
        f"learning pass {learned.id}: {learned.events} events, {learned.prior} earlier "
        f"experiences, {learned.window_from:%Y-%m-%d} → {learned.window_to:%Y-%m-%d}"
    )
    _show_experiences(list(learned.accepted), "accepted as candidates (never policy)")
    refused = Table(title="refused")
    for column in ("insight", "rule", "reason"):
        refused.add_column(column)
    for r in learned.refused:
        where = "reply" if r.index is None else str(r.index)
        refused.add_row(where, r.rule, escape(r.reason[:160]))
    console.print(refused)
    if learned.error:
        console.print(f"[yellow]{escape(learned.error)}[/]")


@learn_app.command("run")
def learn_run(org: Org, actor: As = "") -> None:
    """Run a learning pass over the organization's last 7 days now (the founder)."""
    from usecases import learning

    _show_learning(services(lambda s: learning.run_now(s, org, actor), temporal=True))


@learn_app.command("experiences")
def learn_experiences(
    org: Org,
    actor: As = "",
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
) -> None:
    """The organization's experiences: candidate lessons (or promoted), never policy."""
    from usecases import learning

    _show_experiences(sync(lambda s: learning.experiences(s, org, actor, limit)))


@learn_app.command("promote")
def learn_promote(
    experience_id: str,
    reason: Annotated[str, typer.Option(help="Why the lesson holds.")],
    actor: As = "",
) -> None:
    """Promote a candidate lesson (the founder): vouched for, never policy. Once."""
    from usecases import learning

    show(sync(lambda s: learning.review(s, experience_id, actor, promote=True, reason=reason)))


@learn_app.command("dismiss")
def learn_dismiss(
    experience_id: str,
    reason: Annotated[str, typer.Option(help="Why the lesson is not worth keeping.")],
    actor: As = "",
) -> None:
    """Dismiss a candidate lesson (the founder): later passes no longer see it. Once."""
    from usecases import learning

    show(sync(lambda s: learning.review(s, experience_id, actor, promote=False, reason=reason)))
