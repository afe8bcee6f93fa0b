"""What waits for a human: the needs-you queue, failed runs (retry one, answer one's
question) and the autonomy metrics."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, services, show, sync
from domain.runs.failures import FailureClass


def needs_you_queue(org: Org, actor: As = "") -> None:
    """What waits for you, most urgent first: evidence and the actions each allows."""
    from api.views.needs_you import needs_you_table
    from usecases import needs_you

    queue = sync(lambda s: needs_you.needs_you(s, org, actor))
    console.print(needs_you_table(queue))


def metrics(org: Org, actor: As = "") -> None:
    """Autonomy metrics: work without a human, escalations, blocks by stage, holds' time."""
    from usecases import needs_you

    show(sync(lambda s: needs_you.metrics(s, org, actor)))


def retry(run_id: str, actor: As = "") -> None:
    """Start a failed run again (same agent and task), once, on the record."""
    from usecases import needs_you

    show(services(lambda s: needs_you.retry_run(s, run_id, actor), temporal=True))


def failed(
    org: Org,
    actor: As = "",
    failure: Annotated[
        FailureClass | None, typer.Option("--class", help="Keep one class of failure.")
    ] = None,
) -> None:
    """Failed runs you may read, newest first: class, what stopped them, retries left."""
    from usecases import needs_you

    found = sync(lambda s: needs_you.failed_runs(s, org, actor, failure))
    table = Table(title="failed runs")
    for column in ("run", "agent", "class", "stopped at", "reason", "retries left", "task"):
        table.add_column(column)
    for f in found:
        table.add_row(
            f.run_id,
            f.agent,
            str(f.failure),
            f"{f.stage}: {f.rule}",
            escape(f.reason[:100]),
            str(f.retries_left) if f.retried_by is None else f"retried as {f.retried_by}",
            escape(f.task[:60]),
        )
    console.print(table)


def answer(
    run_id: str,
    text: Annotated[str, typer.Argument(help="Your answer to the agent's question.")],
    actor: As = "",
) -> None:
    """Answer the question a run's agent asked: a new run goes on with it, once."""
    from usecases import needs_you

    show(services(lambda s: needs_you.answer_run(s, run_id, actor, text), temporal=True))
