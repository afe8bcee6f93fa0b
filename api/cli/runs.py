"""Agent runs: start one, the replay fixtures that answer without a model, and deciding a
held intent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, principal_id, read_text, services, show

if TYPE_CHECKING:
    from usecases.context import Ports


def run(
    agent: Annotated[str, typer.Argument(help="Agent id or handle.")],
    task: str,
    org: Org,
    actor: As = "",
    wait: Annotated[bool, typer.Option(help="Wait for the run to settle.")] = True,
    reply: Annotated[
        Path | None,
        typer.Option(
            help="A file holding the model's reply, used as given (only where no real model "
            "answers: no GEMINI_API_KEY). `verletica fixtures` lists the tasks that need none.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run as JSON.")] = False,
) -> None:
    """Start an agent run and show its decisions (tables; --json for the run itself)."""
    from api.views.runs import run_tables
    from usecases import runs

    given = None if reply is None else read_text(reply, "the reply")

    async def go(s: Ports) -> Any:
        agent_id = principal_id(s, org, actor, agent)
        started = await runs.start_run(
            s, org, actor, runs.StartRun(agent_id, task, scripted_reply=given)
        )
        if not as_json:
            console.print(f"run {started.run_id} — {started.ui_url}")
        if wait:
            for _ in range(300):
                view = await runs.run_view(s, started.run_id, actor)
                if view.workflow_status != "running" or (
                    view.state and view.state.status == "needs_human"
                ):
                    return view
                await asyncio.sleep(0.2)
        return await runs.run_view(s, started.run_id, actor)

    view = services(go, temporal=True)
    if as_json:
        show(view)
    else:
        console.print(run_tables(view))


def fixtures() -> None:
    """The tasks the committed replay fixtures answer with no model key: which agent,
    which task, and where the reply came from (authored for a scenario, or captured)."""
    from adapters.models.replay import fixtures as replay_fixtures

    table = Table(title="replay fixtures (agent and task must match, spaces aside)")
    for column in ("agent", "task", "origin", "file"):
        table.add_column(column)
    for f in replay_fixtures():
        table.add_row(f.agent, escape(f.task), f.origin, f.file)
    console.print(table)
    console.print(
        "Any other task: give the model's reply with `verletica run <agent> <task> --reply "
        "FILE`, or set GEMINI_API_KEY."
    )


HoldSeq = Annotated[
    int | None,
    typer.Option(
        "--hold",
        help="The audit entry of the hold you looked at (`verletica needs-you` shows it): "
        "refused, sending nothing, when the hold open is another by now.",
    ),
]


def _decide(
    intent_id: str,
    actor: str,
    reason: str,
    approve: bool,
    hold: int | None,
    establish: bool = False,
    again: bool = False,
) -> None:
    from usecases import runs

    show(
        services(
            lambda s: runs.decide_hold(
                s,
                intent_id,
                actor,
                actor,
                approve=approve,
                reason=reason,
                hold_seq=hold,
                establish=establish,
                again=again,
            ),
            temporal=True,
        )
    )


def approve(
    intent_id: str,
    actor: As = "",
    reason: str = "",
    hold: HoldSeq = None,
    establish: Annotated[
        bool,
        typer.Option(
            help="Also establish where it goes (its new recipients, payee, bank details) for "
            "its projects: the founder's to do."
        ),
    ] = False,
    again: Annotated[
        bool,
        typer.Option(
            help="For a write already done (an invoice paid once): you mean it done a second "
            "time. Without it such an approval is refused and nothing is sent."
        ),
    ] = False,
) -> None:
    """Approve a held intent (the broker re-checks your authority)."""
    _decide(intent_id, actor, reason, True, hold, establish, again)


def deny(intent_id: str, actor: As = "", reason: str = "", hold: HoldSeq = None) -> None:
    """Deny a held intent (the broker re-checks your authority)."""
    _decide(intent_id, actor, reason, False, hold)
