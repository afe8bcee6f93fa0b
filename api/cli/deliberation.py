"""``verletica deliberation``: personas argue a question through a quality gate; an
agent's run synthesises."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli.common import As, Org, Replies, console, fail, read_text, replies, services

if TYPE_CHECKING:
    from domain.deliberation.state import DeliberationState
    from usecases.context import Ports

deliberation_app = typer.Typer(
    help="Deliberations: personas argue a question through a quality gate; an agent's run "
    "synthesises, and its actions go through the broker.",
    no_args_is_help=True,
)


@deliberation_app.command("start")
def deliberation_start(
    agent: Annotated[str, typer.Argument(help="The synthesising agent's handle or id.")],
    question: str,
    org: Org,
    actor: As = "",
    plan: Annotated[
        Path | None, typer.Option(help="Personas as JSON: {personas, max_rounds}.")
    ] = None,
    reply: Replies = None,
    wait: Annotated[bool, typer.Option(help="Wait for the synthesis.")] = True,
) -> None:
    """Personas (default: analyst, skeptic, counsel) argue ``question`` in turn."""
    from api.views.work_graph import deliberation_tables
    from domain.deliberation.plan import plan_from_json
    from domain.deliberation.state import DeliberationStatus
    from usecases import deliberation

    given = {k: tuple(v) for k, v in replies(reply, "PERSONA").items()}
    planned = None if plan is None else read_text(plan, "the plan")

    async def go(s: Ports) -> DeliberationState:
        personas = None if planned is None else plan_from_json(planned)
        started = await deliberation.start_deliberation(
            s,
            org,
            actor,
            deliberation.StartDeliberation(agent, question, plan=personas, scripted_replies=given),
        )
        if not wait:
            return started
        return await deliberation.wait_deliberation(s, started.deliberation_id, actor)

    state = services(go, temporal=True)
    console.print(f"deliberation {state.deliberation_id}")
    console.print(deliberation_tables(state))
    if state.status is DeliberationStatus.FAILED:
        fail(f"deliberation {state.deliberation_id}", [state.error or "no reason recorded"])


@deliberation_app.command("show")
def deliberation_show(deliberation_id: str, actor: As = "") -> None:
    """A deliberation's turns, provenance and synthesis."""
    from api.views.work_graph import deliberation_tables
    from usecases import deliberation

    async def go(s: Ports) -> DeliberationState:
        return (await deliberation.deliberation_view(s, deliberation_id, actor))[1]

    console.print(deliberation_tables(services(go, temporal=True)))
