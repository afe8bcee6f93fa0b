"""``verletica``: the command line, thin over the same use cases as the HTTP API.

The root: every top-level command and command group, in the order ``--help`` lists them.
Each capability's commands are in the module of its name (``api/cli/<stem>.py``, the stem
of its use case and router); what they share is in :mod:`api.cli.common`.
"""

from __future__ import annotations

import typer

from api.cli import (
    audit,
    commitments,
    counterfactual,
    deliberation,
    destinations,
    fleet,
    heartbeat,
    ingress,
    learning,
    memory,
    needs_you,
    offers,
    organization,
    runs,
    stack,
    work_graph,
)

app = typer.Typer(help="Verletica: a governed AI-agent fleet.", no_args_is_help=True)

app.command("onboard")(organization.onboard)
app.command("staff")(organization.staff)
app.command("unstaff")(organization.unstaff)
app.command("suspend")(organization.suspend)
app.command("reactivate")(organization.reactivate)
app.command("offboard")(organization.offboard)
app.command("barrier")(organization.barrier)
app.command("run")(runs.run)
app.command("fixtures")(runs.fixtures)
app.command("approve")(runs.approve)
app.command("deny")(runs.deny)
app.command("needs-you")(needs_you.needs_you_queue)
app.command("counterfactual")(counterfactual.counterfactual_of)
app.command("metrics")(needs_you.metrics)
app.command("retry")(needs_you.retry)
app.command("failed")(needs_you.failed)
app.command("answer")(needs_you.answer)
app.command("worker")(stack.worker)
app.command("token")(ingress.token)
app.command("up")(stack.up)
app.command("demo")(stack.demo)

app.add_typer(organization.projects_app, name="projects")
app.add_typer(destinations.destinations_app, name="destinations")
app.add_typer(commitments.commit_app, name="commit")
app.add_typer(audit.audit_app, name="audit")
app.add_typer(audit.broker_app, name="broker")
app.add_typer(memory.memory_app, name="memory")
app.add_typer(heartbeat.heartbeat_app, name="heartbeat")
app.add_typer(heartbeat.holds_app, name="holds")
app.add_typer(learning.learn_app, name="learn")
app.add_typer(work_graph.graph_app, name="graph")
app.add_typer(deliberation.deliberation_app, name="deliberation")
app.add_typer(fleet.fleet_app, name="fleet")
app.add_typer(offers.offers_app, name="offers")
app.add_typer(offers.findings_app, name="findings")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
