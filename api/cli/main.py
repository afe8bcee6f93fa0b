"""``verletica``: the command line, thin over the same use cases as the HTTP API."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from adapters.ingress.local_issuer import KEY_FILE, LocalIssuer
from adapters.memory.screen_classifier import local_classifier
from adapters.models.replay import fixtures as replay_fixtures
from api.views.counterfactual import counterfactual_table
from api.views.needs_you import needs_you_table
from api.views.runs import run_tables
from api.views.work_graph import deliberation_tables, graph_table
from domain.deliberation.rounds import DeliberationState, DeliberationStatus, plan_from_json
from domain.heartbeat.checks import HeartbeatRun
from domain.ingress import Unauthenticated
from domain.learning.validator import Experience, LearningPass
from domain.memory.judge import second_opinion
from domain.memory.screen import screen
from domain.offers.playbooks import DriftFinding, OfferRecord
from domain.organization.contracts import Barrier, Skill, SpendCap, StaffRole
from domain.runs.failures import FailureClass
from domain.work_graph.graph import GraphState, GraphStatus, StepStatus, WorkGraph
from usecases import (
    audit,
    commitments,
    counterfactual,
    deliberation,
    fleet,
    heartbeat,
    ingress,
    learning,
    memory,
    needs_you,
    offers,
    organization,
    runs,
    work_graph,
)
from usecases.context import Ports
from worker.clock import utc_now
from worker.ports import build_judge, build_ports, open_store
from worker.settings import Settings
from worker.temporal import make_client

app = typer.Typer(help="Verletica: a governed AI-agent fleet.", no_args_is_help=True)
projects_app = typer.Typer(help="Projects (departments, engagements).", no_args_is_help=True)
commit_app = typer.Typer(
    help="Commitments: record or extract (from a document), confirm, reject.",
    no_args_is_help=True,
)
audit_app = typer.Typer(help="The audit chain.", no_args_is_help=True)
broker_app = typer.Typer(help="The broker's state: poisoned or not.", no_args_is_help=True)
memory_app = typer.Typer(
    help="Organizational memory: query it, and its read log.", no_args_is_help=True
)
app.add_typer(projects_app, name="projects")
app.add_typer(commit_app, name="commit")
app.add_typer(audit_app, name="audit")
app.add_typer(broker_app, name="broker")
app.add_typer(memory_app, name="memory")
heartbeat_app = typer.Typer(
    help="The heartbeat: run it now, see its recent runs.", no_args_is_help=True
)
app.add_typer(heartbeat_app, name="heartbeat")
holds_app = typer.Typer(
    help="Standing holds: while one is open, payments on its projects wait for a human.",
    no_args_is_help=True,
)
app.add_typer(holds_app, name="holds")
learn_app = typer.Typer(
    help="The learning pass: run it now, see the experiences it kept.", no_args_is_help=True
)
app.add_typer(learn_app, name="learn")
graph_app = typer.Typer(
    help="Work graphs: several agent runs in dependency order.", no_args_is_help=True
)
app.add_typer(graph_app, name="graph")
deliberation_app = typer.Typer(
    help="Deliberations: personas argue a question through a quality gate; an agent's run "
    "synthesises, and its actions go through the broker.",
    no_args_is_help=True,
)
app.add_typer(deliberation_app, name="deliberation")
fleet_app = typer.Typer(
    help="The fleet registry: an agent's versions (draft, publish, rollout, rollback, "
    "retire); every change is the founder's and goes on the audit chain.",
    no_args_is_help=True,
)
app.add_typer(fleet_app, name="fleet")
# Off a terminal (make demo piped, CI logs) rich would wrap tables at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 160)
T = TypeVar("T")

Org = Annotated[str, typer.Option("--org", envvar="VERLETICA_ORG", help="Organization id.")]
TOKEN_ENV = "VERLETICA_TOKEN"
SIGN_IN = (
    f"sign in: export {TOKEN_ENV}=<an ID token from your issuer> (with the local issuer of "
    f"'verletica up': export {TOKEN_ENV}=$(verletica token <email>))"
)


def _prove_actor(ctx: typer.Context, value: str) -> str:
    """The acting principal, proven as the API proves it: the ID token in
    ``VERLETICA_TOKEN``, or (development header mode only) ``--as``."""
    if ctx.resilient_parsing:
        return value
    token = os.environ.get(TOKEN_ENV) or None
    if token is None and not (value and Settings().dev_principal_header):
        raise typer.BadParameter(
            f"{SIGN_IN}; --as <principal id> is honoured only with "
            "VERLETICA_DEV_PRINCIPAL_HEADER=true",
            param_hint="--as",
        )

    def prove(ports: Ports) -> str:
        return ingress.guarded(
            ports,
            "cli",
            ctx.command_path,
            lambda: ingress.api_caller(
                ports,
                bearer=token,
                nonce=uuid.uuid4().hex,
                dev_principal=value or None,
                acting=True,
                loopback=True,
            ),
        )

    return _sync(prove)


As = Annotated[
    str,
    typer.Option(
        "--as",
        envvar="VERLETICA_ACTOR",
        callback=_prove_actor,
        help=f"Development header mode only: the acting principal's id (else {TOKEN_ENV}).",
    ),
]


def _services(fn: Callable[[Ports], Awaitable[T]], temporal: bool = False) -> T:
    async def go() -> T:
        settings = Settings()
        store = open_store(settings)
        client = await make_client(settings) if temporal else None
        try:
            return await fn(build_ports(store, client, settings, utc_now))
        finally:
            store.close()

    try:
        return asyncio.run(go())
    except (LookupError, PermissionError, ValueError, RuntimeError, Unauthenticated) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from exc


def _sync(fn: Callable[[Ports], T]) -> T:
    async def wrap(svc: Ports) -> T:
        return fn(svc)

    return _services(wrap)


def _text(path: Path | str, what: str) -> str:
    """A file's text; one line saying why (and exit 1) when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        console.print(
            f"[red]error:[/] cannot read {what} {escape(str(path))}: {why}", soft_wrap=True
        )
        raise typer.Exit(1) from None


def _failed(what: str, reasons: list[str]) -> None:
    """A graph or deliberation that failed: say why, in one line, and exit 1."""
    console.print(f"[red]error:[/] {what} failed: {escape('; '.join(reasons))}", soft_wrap=True)
    raise typer.Exit(1)


def _show(value: Any) -> None:
    data = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    console.print_json(json.dumps(data, default=str))


def _principal_id(ports: Ports, org: str, actor: str, agent: str) -> str:
    """A principal of ``org`` by id or handle, as ``actor`` sees the directory."""
    for p in organization.principals(ports, org, actor):
        if agent in (p.id, p.handle):
            return p.id
    raise LookupError(f"no principal {agent!r} in this organization")


@app.command()
def onboard(
    name: Annotated[str, typer.Option(help="Organization name.")],
    founder_email: Annotated[str, typer.Option(help="Founder's email.")],
    founder_name: Annotated[str | None, typer.Option(help="Founder's display name.")] = None,
) -> None:
    """Create an organization, its founder (you: your ID token's subject proves the
    founder) and the starter fleet."""
    token = os.environ.get(TOKEN_ENV) or None
    done = _sync(
        lambda s: organization.onboard(
            s,
            name,
            founder_email,
            founder_name,
            oidc_subject=ingress.guarded(
                s, "cli", "onboard", lambda: ingress.founding_subject(s, token)
            ),
        )
    )
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
    _show(_sync(lambda s: organization.add_project(s, org, actor, slug, name)))


@projects_app.command("list")
def projects_list(org: Org, actor: As = "") -> None:
    """List the organization's projects."""
    for p in _sync(lambda s: organization.projects(s, org, actor)):
        console.print(f"{p.slug:16} {p.name}")


@app.command()
def staff(
    principal: Annotated[str, typer.Argument(help="Principal id or handle.")],
    project: str,
    org: Org,
    actor: As = "",
    role: Annotated[StaffRole, typer.Option(help="member or approver")] = StaffRole.MEMBER,
) -> None:
    """Staff a principal on a project, from now on."""
    _show(
        _sync(
            lambda s: organization.staff(
                s, org, actor, _principal_id(s, org, actor, principal), project, role
            )
        )
    )


@app.command()
def unstaff(staffing_id: str, org: Org, actor: As = "") -> None:
    """End a staffing now (authority ends with it)."""
    _show(_sync(lambda s: organization.unstaff(s, org, actor, staffing_id)))


@app.command()
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

    def raise_it(s: Ports) -> tuple[Barrier, str]:
        made = organization.add_barrier(
            s, org, actor, name, [g.split(",") for g in groups], founder_side=founder_side
        )
        said = dict((b.id, w) for b, w in organization.founder_standing(s, org, actor))
        return made, said[made.id]

    made, said = _sync(raise_it)
    _show(made)
    typer.echo(said, err=True)  # stdout stays the barrier, as JSON for scripts


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
    cap = SpendCap(limit_cents=cap_cents, currency=currency)
    _show(
        _sync(
            lambda s: organization.add_commitment(
                s, org, actor, title, cap, source, "", tuple(project or ())
            )
        )
    )


@commit_app.command("confirm")
def commit_confirm(commitment_id: str, actor: As = "") -> None:
    """Confirm an extracted commitment."""
    _show(_sync(lambda s: organization.confirm_commitment(s, commitment_id, actor)))


@commit_app.command("reject")
def commit_reject(
    commitment_id: str,
    reason: Annotated[str, typer.Option(help="Why it does not bind.")],
    actor: As = "",
) -> None:
    """Reject an extracted commitment: it never binds."""
    _show(_sync(lambda s: commitments.reject(s, commitment_id, actor, reason)))


@commit_app.command("fulfilled")
def commit_fulfilled(
    commitment_id: str,
    note: Annotated[str, typer.Option(help="How it was kept (what was delivered).")],
    actor: As = "",
) -> None:
    """Mark a confirmed delivery or obligation kept: it binds no more."""
    _show(_sync(lambda s: commitments.fulfil(s, commitment_id, actor, note)))


@commit_app.command("extract")
def commit_extract(
    ref: Annotated[str, typer.Argument(help="The memory record to read.")],
    extractor: Annotated[str, typer.Option(help="The extracting agent, by id or handle.")],
    org: Org,
    actor: As = "",
    project: Annotated[list[str] | None, typer.Option(help="Projects they bind.")] = None,
) -> None:
    """An agent extracts a document's obligations as commitments awaiting confirmation."""

    async def go(s: Ports) -> Any:
        agent = _principal_id(s, org, actor, extractor)
        return await commitments.extract(s, org, actor, ref, agent, tuple(project or ()))

    _show(_services(go, temporal=True))


@app.command()
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
    given = None if reply is None else _text(reply, "the reply")

    async def go(s: Ports) -> Any:
        agent_id = _principal_id(s, org, actor, agent)
        started = await runs.start_run(s, org, actor, agent_id, task, given)
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

    view = _services(go, temporal=True)
    if as_json:
        _show(view)
    else:
        console.print(run_tables(view))


@app.command()
def fixtures() -> None:
    """The tasks the committed replay fixtures answer with no model key: which agent,
    which task, and where the reply came from (authored for a scenario, or captured)."""
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


def _decide(intent_id: str, actor: str, reason: str, approve: bool, hold: int | None) -> None:
    _show(
        _services(
            lambda s: runs.decide_hold(s, intent_id, actor, actor, approve, reason, hold_seq=hold),
            temporal=True,
        )
    )


@app.command()
def approve(intent_id: str, actor: As = "", reason: str = "", hold: HoldSeq = None) -> None:
    """Approve a held intent (the broker re-checks your authority)."""
    _decide(intent_id, actor, reason, True, hold)


@app.command()
def deny(intent_id: str, actor: As = "", reason: str = "", hold: HoldSeq = None) -> None:
    """Deny a held intent (the broker re-checks your authority)."""
    _decide(intent_id, actor, reason, False, hold)


@app.command("needs-you")
def needs_you_queue(org: Org, actor: As = "") -> None:
    """What waits for you, most urgent first: evidence and the actions each allows."""
    queue = _sync(lambda s: needs_you.needs_you(s, org, actor))
    console.print(needs_you_table(queue))


@app.command("counterfactual")
def counterfactual_of(intent_id: str, actor: As = "") -> None:
    """A held or rejected intent beside what it would have done without enforcement
    (replayed over the record: nothing written, nothing appended to the chain)."""
    found = _sync(lambda s: counterfactual.counterfactual(s, intent_id, actor))
    console.print(counterfactual_table(found))


@app.command()
def metrics(org: Org, actor: As = "") -> None:
    """Autonomy metrics: work without a human, escalations, blocks by stage, holds' time."""
    _show(_sync(lambda s: needs_you.metrics(s, org, actor)))


@app.command()
def retry(run_id: str, actor: As = "") -> None:
    """Start a failed run again (same agent and task), once, on the record."""
    _show(_services(lambda s: needs_you.retry_run(s, run_id, actor), temporal=True))


@app.command()
def failed(
    org: Org,
    actor: As = "",
    failure: Annotated[
        FailureClass | None, typer.Option("--class", help="Keep one class of failure.")
    ] = None,
) -> None:
    """Failed runs you may read, newest first: class, what stopped them, retries left."""
    found = _sync(lambda s: needs_you.failed_runs(s, org, actor, failure))
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


@app.command()
def answer(
    run_id: str,
    text: Annotated[str, typer.Argument(help="Your answer to the agent's question.")],
    actor: As = "",
) -> None:
    """Answer the question a run's agent asked: a new run goes on with it, once."""
    _show(_services(lambda s: needs_you.answer_run(s, run_id, actor, text), temporal=True))


@audit_app.command("verify")
def audit_verify(org: Org, actor: As = "") -> None:
    """Recompute every hash, link and signature of the organization's chain."""
    view = _sync(lambda s: audit.audit(s, org, actor, verify=True))
    assert view.verification is not None
    _show(view.verification)
    if not view.verification.ok:
        raise typer.Exit(2)


@memory_app.command("ingest")
def memory_ingest(
    ref: str,
    org: Org,
    project: Annotated[list[str], typer.Option(help="A project it belongs to (repeat).")],
    actor: As = "",
    text: Annotated[str | None, typer.Option(help="The text (or --file).")] = None,
    file: Annotated[Path | None, typer.Option(help="Read the text from this file.")] = None,
    kind: Annotated[str, typer.Option(help="note, email, contract, invoice, …")] = "note",
    source: Annotated[
        str | None, typer.Option(help="Where it came from (default: the file's name).")
    ] = None,
) -> None:
    """Ingest a record into memory: screened (instructions refused, card numbers and
    national ids removed, identifying detail tagged), embedded, stored."""
    if file is not None and text is None:
        body = _text(file, "the text")
    elif text is not None and file is None:
        body = text
    else:
        console.print("[red]error:[/] give the text with --text or --file, one of them")
        raise typer.Exit(1)
    origin = source if source is not None else (file.name if file is not None else None)
    _sync(lambda s: organization.remember(s, org, actor, ref, tuple(project), body, kind, origin))
    console.print(f"stored: {ref}")


@memory_app.command("procedure")
def memory_procedure(
    name: str,
    org: Org,
    actor: As = "",
    version: Annotated[int | None, typer.Option(help="A version (default: the newest).")] = None,
) -> None:
    """A procedure (workflow definition or playbook) as you may see it."""
    found = _sync(lambda s: memory.procedure(s, org, actor, name, version))
    console.print(f"{found.name} v{found.version}")
    for i, step in enumerate(found.steps, start=1):
        console.print(f"  {i}. {step}")


@memory_app.command("query")
def memory_query(
    text: str,
    org: Org,
    actor: As = "",
    k: Annotated[int, typer.Option(help="How many records at most.")] = 10,
) -> None:
    """The records most similar to TEXT that you may read, best first."""
    result = _sync(lambda s: memory.query(s, org, actor, text, k))
    table = Table(title=escape(f"memory: {text[:60]}"))
    for column in ("score", "record", "kind", "source", "release", "text"):
        table.add_column(column)
    for hit in result.hits:
        # Stored text is shown as it is: "[card removed]" is not console markup.
        table.add_row(
            f"{hit.score:.3f}",
            hit.view.ref or "",
            hit.view.kind or "",
            escape(hit.view.source or ""),
            hit.view.release.value,
            escape((hit.view.text or "")[:100]),
        )
    console.print(table)
    if result.withheld:
        console.print(f"{result.withheld} record(s) withheld: not yours to see")


@memory_app.command("compact")
def memory_compact(
    ref: Annotated[str, typer.Argument(help="The new, compact record.")],
    sources: Annotated[list[str], typer.Argument(help="The records it summarises.")],
    agent: Annotated[str, typer.Option(help="The agent (id or handle) that reads them.")],
    org: Org,
    actor: As = "",
    max_chars: Annotated[int, typer.Option(help="The summary's length, at most.")] = 1200,
) -> None:
    """Summarise records into one new record, linked back to each (the founder asks, an
    agent reads them through the memory gate)."""
    _show(
        _sync(
            lambda s: memory.compact(
                s, org, actor, _principal_id(s, org, actor, agent), sources, ref, max_chars
            )
        )
    )


@memory_app.command("link")
def memory_link(
    src: str,
    dst: str,
    org: Org,
    actor: As = "",
    kind: Annotated[
        str, typer.Option(help="relates, mentions, supersedes or derived_from.")
    ] = "relates",
    span: Annotated[
        str | None, typer.Option(help="For derived_from: START:END of DST's text drawn on.")
    ] = None,
) -> None:
    """Link record SRC to record DST (the founder's)."""
    bounds = None
    if span is not None:
        start, _, end = span.partition(":")
        bounds = (int(start), int(end))
    link_id = _sync(lambda s: memory.link(s, org, actor, src, dst, kind, bounds))
    console.print(f"linked: {link_id}")


@memory_app.command("explain")
def memory_explain(ref: str, org: Org, actor: As = "") -> None:
    """Where record REF came from, as you may see it."""
    _show(_sync(lambda s: memory.explain(s, org, actor, ref)))


@memory_app.command("screen")
def memory_screen(
    file: Annotated[Path, typer.Argument(help='JSON lines, each {"text": …}; - for stdin.')],
) -> None:
    """Screen texts as ingestion would, storing nothing: one JSON line out per line in,
    with refused, reasons and the identifying detail found (type, start, end)."""
    settings = Settings()
    classifier, judge = local_classifier(), build_judge(settings)
    lines: Iterable[str] = sys.stdin if str(file) == "-" else _text(file, "the lines").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            text = json.loads(line)["text"]
            if not isinstance(text, str):
                raise TypeError("text is not a string")
        except (ValueError, KeyError, TypeError) as exc:
            out: dict[str, Any] = {"line": number, "error": f'not a {{"text": …}} line: {exc}'}
        else:
            first = screen(text, classifier)
            result = second_opinion(first, text, judge, settings.screen_model_from)
            out = {
                "refused": result.refused,
                "reasons": list(result.reasons),
                "spans": [{"type": s.kind, "start": s.start, "end": s.end} for s in result.spans],
            }
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


@memory_app.command("reembed")
def memory_reembed(org: Org, actor: As = "") -> None:
    """Embed again every record another embedder made (after changing the embedder)."""
    count = _sync(lambda s: memory.reembed(s, org, actor))
    console.print(f"{count} record(s) embedded again")


@memory_app.command("reads")
def memory_reads(org: Org, actor: As = "") -> None:
    """Every read of the organization's memory: who asked, for whom, what it released."""
    log = _sync(lambda s: memory.reads(s, org, actor))
    table = Table(title="memory reads")
    for column in (
        "at",
        "asker",
        "on behalf of",
        "path",
        "query",
        "released",
        "withheld",
        "outcome",
    ):
        table.add_column(column)
    for r in log:
        table.add_row(
            r.at.isoformat(timespec="seconds"),
            r.asker_id,
            r.on_behalf_of or "",
            r.path,
            escape(r.query[:60]),
            ", ".join(r.released),
            str(r.withheld),
            r.outcome,
        )
    console.print(table)


@broker_app.command("status")
def broker_status(org: Org, actor: As = "") -> None:
    """Say whether the organization's broker is poisoned, and why."""
    reason = _sync(lambda s: audit.broker_status(s, org, actor))
    console.print("poisoned: " + reason if reason else "not poisoned")


@broker_app.command("unpoison")
def broker_unpoison(
    org: Org,
    reason: Annotated[str, typer.Option(help="Why it is safe to act again (recorded).")],
    actor: As = "",
) -> None:
    """Clear a poisoned broker, on the record, once the chain verifies (the founder)."""
    _sync(lambda s: audit.unpoison(s, org, actor, reason))
    console.print("the broker acts again; the clearing is in the audit chain")


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
    _show_heartbeats(_services(lambda s: heartbeat.run_now(s, org, actor), temporal=True))


@heartbeat_app.command("runs")
def heartbeat_runs(
    org: Org,
    actor: As = "",
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 5,
) -> None:
    """The organization's recent heartbeats."""
    _show_heartbeats(_sync(lambda s: heartbeat.recent(s, org, actor, limit)))


@holds_app.command("list")
def holds_list(org: Org, actor: As = "") -> None:
    """The standing holds placed in the organization that you may read."""
    found = _sync(lambda s: heartbeat.standing_holds(s, org, actor))
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
    _show(_sync(lambda s: heartbeat.release_hold(s, hold_id, actor, reason)))


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
    _show_learning(_services(lambda s: learning.run_now(s, org, actor), temporal=True))


@learn_app.command("experiences")
def learn_experiences(
    org: Org,
    actor: As = "",
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
) -> None:
    """The organization's experiences: candidate lessons (or promoted), never policy."""
    _show_experiences(_sync(lambda s: learning.experiences(s, org, actor, limit)))


@learn_app.command("promote")
def learn_promote(
    experience_id: str,
    reason: Annotated[str, typer.Option(help="Why the lesson holds.")],
    actor: As = "",
) -> None:
    """Promote a candidate lesson (the founder): vouched for, never policy. Once."""
    _show(_sync(lambda s: learning.review(s, experience_id, actor, True, reason)))


@learn_app.command("dismiss")
def learn_dismiss(
    experience_id: str,
    reason: Annotated[str, typer.Option(help="Why the lesson is not worth keeping.")],
    actor: As = "",
) -> None:
    """Dismiss a candidate lesson (the founder): later passes no longer see it. Once."""
    _show(_sync(lambda s: learning.review(s, experience_id, actor, False, reason)))


def _show_versions(found: fleet.AgentVersions) -> None:
    table = Table(title=f"{found.handle}: versions")
    for column in ("version", "status", "serving", "role", "tools", "definition", "skills"):
        table.add_column(column)
    for v in found.versions:
        table.add_row(
            f"v{v.version}",
            v.status.value,
            v.serving,
            escape(v.role),
            ", ".join(v.tools),
            f"v{v.definition}",
            ", ".join(s.name for s in v.skills),
        )
    console.print(table)


def _fleet_change(org: str, actor: str, agent: str, change: Callable[[Ports, str], object]) -> None:
    """Apply one registry change to ``agent`` (id or handle), then list its versions."""

    def go(s: Ports) -> fleet.AgentVersions:
        agent_id = _principal_id(s, org, actor, agent)
        change(s, agent_id)
        return fleet.versions(s, org, actor, agent_id)

    _show_versions(_sync(go))


Agent = Annotated[str, typer.Argument(help="The agent's handle or id.")]
Version = Annotated[int, typer.Argument(help="The version number (as listed).", min=1)]


@fleet_app.command("list")
def fleet_list(agent: Agent, org: Org, actor: As = "") -> None:
    """An agent's versions, newest first, and which serve new runs."""
    _show_versions(
        _sync(lambda s: fleet.versions(s, org, actor, _principal_id(s, org, actor, agent)))
    )


@fleet_app.command("draft")
def fleet_draft(
    agent: Agent,
    org: Org,
    actor: As = "",
    base: Annotated[int | None, typer.Option(help="Start from this version.")] = None,
    role: Annotated[str | None, typer.Option(help="New role.")] = None,
    purpose: Annotated[str | None, typer.Option(help="New purpose.")] = None,
    tools: Annotated[str | None, typer.Option(help="Comma-separated tool names.")] = None,
    ceiling: Annotated[int | None, typer.Option(help="Budget ceiling, cents.")] = None,
    instructions: Annotated[
        Path | None, typer.Option(help="A file with the new instructions.")
    ] = None,
    budget: Annotated[int | None, typer.Option(help="Budget per run, cents.")] = None,
    skill: Annotated[
        list[str] | None,
        typer.Option(help="NAME=FILE: a skill and the file with its instructions (repeat)."),
    ] = None,
) -> None:
    """Draft a new version (the founder): what is not given is kept from the base."""
    skills = None
    if skill is not None:
        skills = []
        for item in skill:
            name, sep, file = item.partition("=")
            if not sep:
                raise typer.BadParameter("a skill is NAME=FILE", param_hint="--skill")
            skills.append(Skill(name=name, instructions=_text(file, f"skill {name}'s file")))
    request = fleet.DraftRequest(
        base=base,
        role=role,
        purpose=purpose,
        tools=None if tools is None else tuple(t.strip() for t in tools.split(",") if t.strip()),
        ceiling_cents=ceiling,
        instructions=None if instructions is None else _text(instructions, "the instructions"),
        budget_cents=budget,
        skills=None if skills is None else tuple(skills),
    )
    _fleet_change(org, actor, agent, lambda s, a: fleet.draft(s, org, actor, a, request))


@fleet_app.command("publish")
def fleet_publish(agent: Agent, version: Version, org: Org, actor: As = "") -> None:
    """Publish a draft version (the founder): it may then be rolled out."""
    _fleet_change(org, actor, agent, lambda s, a: fleet.publish(s, org, actor, a, version))


@fleet_app.command("rollout")
def fleet_rollout(
    agent: Agent,
    version: Version,
    org: Org,
    actor: As = "",
    share: Annotated[
        int, typer.Option(help="Percent of new runs (100: all, and it becomes stable).")
    ] = 100,
) -> None:
    """Give a share of the agent's new runs a published version (the founder)."""
    _fleet_change(org, actor, agent, lambda s, a: fleet.roll_out(s, org, actor, a, version, share))


@fleet_app.command("rollback")
def fleet_rollback(agent: Agent, org: Org, actor: As = "") -> None:
    """New runs stop getting the newest version (the founder); runs going keep theirs."""
    _fleet_change(org, actor, agent, lambda s, a: fleet.roll_back(s, org, actor, a))


@fleet_app.command("retire")
def fleet_retire(agent: Agent, version: Version, org: Org, actor: As = "") -> None:
    """Retire a version (the founder): runs still pinned to it are refused at the broker."""
    _fleet_change(org, actor, agent, lambda s, a: fleet.retire(s, org, actor, a, version))


def _replies(items: list[str] | None, what: str) -> dict[str, list[str]]:
    """``KEY=FILE`` options: each file's text under its key (in the order given)."""
    found: dict[str, list[str]] = {}
    for item in items or ():
        key, sep, file = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"a reply is {what}=FILE", param_hint="--reply")
        found.setdefault(key, []).append(_text(file, f"the reply for {key}"))
    return found


Replies = Annotated[
    list[str] | None,
    typer.Option(
        "--reply",
        help="KEY=FILE: the model's reply for a step (graph) or a persona's round, repeated "
        "for later rounds, or 'synthesis' (deliberation); only where no real model answers.",
    ),
]


@graph_app.command("run")
def graph_run(
    file: Annotated[Path, typer.Argument(help="The graph as JSON: {name, steps}.")],
    org: Org,
    actor: As = "",
    reply: Replies = None,
    wait: Annotated[bool, typer.Option(help="Wait until it ends or waits on a human.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the state as JSON.")] = False,
) -> None:
    """Start a work graph; each step is an agent run governed by the broker."""
    given = {k: v[0] for k, v in _replies(reply, "STEP").items()}
    text = _text(file, "the graph")

    async def go(s: Ports) -> tuple[str, GraphState]:
        graph = WorkGraph.model_validate_json(text)
        started = await work_graph.start_graph(s, org, actor, graph, given)
        status, state = "running", started
        for _ in range(600 if wait else 0):
            status, state = await work_graph.graph_view(s, started.graph_id, actor)
            if status != "running" or state.status.value == "needs_human":
                break
            await asyncio.sleep(0.2)
        return status, state

    status, state = _services(go, temporal=True)
    if as_json:
        _show(state)
    else:
        console.print(f"graph {state.graph_id}")
        console.print(graph_table(state))
    if state.status is GraphStatus.FAILED or status not in ("running", "completed"):
        _failed(f"work graph {state.graph_id}", _graph_reasons(status, state))


def _graph_reasons(status: str, state: GraphState) -> list[str]:
    """Why a graph failed: each step that did not get done, with what its run says."""
    reasons = [
        f"step {step.id} {step.status.value}"
        + (": (withheld: outside your projects)" if step.withheld else f": {step.summary}")
        for step in state.steps
        if step.status in (StepStatus.FAILED, StepStatus.SKIPPED)
    ]
    return reasons or [f"its workflow {status}"]


@graph_app.command("show")
def graph_show(graph_id: str, actor: As = "") -> None:
    """A work graph's steps, as you may see them."""

    async def go(s: Ports) -> GraphState:
        return (await work_graph.graph_view(s, graph_id, actor))[1]

    console.print(graph_table(_services(go, temporal=True)))


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
    given = {k: tuple(v) for k, v in _replies(reply, "PERSONA").items()}
    planned = None if plan is None else _text(plan, "the plan")

    async def go(s: Ports) -> DeliberationState:
        personas = None if planned is None else plan_from_json(planned)
        started = await deliberation.start_deliberation(
            s, org, actor, agent, question, personas, given
        )
        if not wait:
            return started
        return await deliberation.wait_deliberation(s, started.deliberation_id, actor)

    state = _services(go, temporal=True)
    console.print(f"deliberation {state.deliberation_id}")
    console.print(deliberation_tables(state))
    if state.status is DeliberationStatus.FAILED:
        _failed(f"deliberation {state.deliberation_id}", [state.error or "no reason recorded"])


@deliberation_app.command("show")
def deliberation_show(deliberation_id: str, actor: As = "") -> None:
    """A deliberation's turns, provenance and synthesis."""

    async def go(s: Ports) -> DeliberationState:
        return (await deliberation.deliberation_view(s, deliberation_id, actor))[1]

    console.print(deliberation_tables(_services(go, temporal=True)))


@app.command()
def worker() -> None:
    """Run one worker (polls the task queue until interrupted)."""
    # A process of its own: the CLI never imports the composition root (or connectors).
    os.execv(sys.executable, [sys.executable, "-m", "worker"])


class _Stopped(Exception):
    """A signal asked the stack to stop."""


def _stop_on_signals() -> None:
    """SIGINT, SIGTERM (a supervisor, ``docker stop``) and SIGHUP (a closed terminal) all
    stop what this command started, instead of leaving it running behind."""

    def stop(signum: int, _frame: object) -> None:
        # A second signal while stopping must not cut the stopping short.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        raise _Stopped(signal.Signals(signum).name)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


def _stack_session(play: bool, keep_running: bool | None) -> None:
    from api.local.demo import ENV_FILE, DemoReport, env_file, render
    from api.local.demo import play as play_demo
    from api.local.stack import Stack, StackRefused

    settings = Settings()
    stack = Stack(settings)
    _stop_on_signals()
    try:
        if play and not stack.local_issuer:
            raise typer.BadParameter(
                "the demo signs its people in with its own local issuer: "
                "unset VERLETICA_OIDC_ISSUER/_AUDIENCE/_JWKS to play it"
            )
        try:
            stack.claim()  # before anything is started or written: a busy port refuses
            console.print("Starting the Temporal dev server, a worker and the API…")
            stack.start()
        except (StackRefused, RuntimeError, TimeoutError) as refused:
            console.print(f"[red]error:[/] {escape(str(refused))}", soft_wrap=True)
            raise typer.Exit(1) from refused
        console.print(
            f"API {stack.api_url}  ·  Web console {stack.api_url}/console/  ·  "
            f"Temporal UI {settings.temporal_ui_url}"
        )
        if stack.local_issuer:
            console.print(
                f"Local OIDC issuer {settings.local_issuer_url} (development only): "
                "sign in with [bold]export VERLETICA_TOKEN=$(verletica token <email>)[/]"
            )
        if play:
            issuer = stack.issuer()

            async def go() -> DemoReport:
                async with httpx.AsyncClient(base_url=stack.api_url, timeout=30) as http:
                    report = await play_demo(http, issuer.mint, console)
                    render(report, console)
                    return report

            played = asyncio.run(go())
            written = Path(settings.data_dir) / ENV_FILE
            written.write_text(env_file(played), encoding="utf-8")
            console.print(
                f"[bold]Web console[/] {stack.api_url}/console/ — sign in as "
                f"{played.founder_subject} (Ada, the founder) or {played.associate_subject} "
                "(Ben, a member of East)"
            )
            console.print(
                "[bold]Command line[/] (the README's walkthrough): "
                + escape(
                    f". .venv/bin/activate; . {written}; "
                    f'export {TOKEN_ENV}=$(verletica token "$DEMO_FOUNDER")'
                ),
                soft_wrap=True,
            )
        if keep_running is None:
            keep_running = sys.stdin.isatty()
        if keep_running:
            console.print("Running. Press Ctrl-C to stop.")
            while True:
                signal.pause()
    except (KeyboardInterrupt, _Stopped) as why:
        console.print(f"Stopping ({why or 'interrupted'})…")
    finally:
        stack.stop()


@app.command()
def token(
    subject: Annotated[str, typer.Argument(help="Who signs in (the demo uses emails).")],
) -> None:
    """An ID token from the local issuer of 'verletica up' (development only): print it,
    for export VERLETICA_TOKEN=$(verletica token ada@example.com)."""
    settings = Settings()
    key = Path(settings.data_dir) / KEY_FILE
    if settings.environment != "development" or not key.exists():
        console.print(
            "[red]error:[/] no local issuer is running (start one with 'verletica up'); "
            "with your own identity provider, get an ID token from it"
        )
        raise typer.Exit(1)
    sys.stdout.write(LocalIssuer.load(settings.local_issuer_url, key).mint(subject) + "\n")


@app.command()
def up() -> None:
    """Start the Temporal dev server, a worker and the API; keep them running."""
    _stack_session(play=False, keep_running=True)


@app.command()
def demo(
    keep_running: Annotated[
        bool | None,
        typer.Option(
            "--keep-running/--exit", help="Keep the stack up afterwards (default: on a terminal)."
        ),
    ] = None,
) -> None:
    """Start the stack and play the diligence showcase."""
    _stack_session(play=True, keep_running=keep_running)


# process offers and drift findings ----------------------------------------------------------
offers_app = typer.Typer(
    help="Process offers: review episodes into offers, confirm one into a playbook, "
    "review playbooks for drift.",
    no_args_is_help=True,
)
findings_app = typer.Typer(
    help="Findings: list drift findings, resolve one (drift, or filed by Sentinel).",
    no_args_is_help=True,
)
app.add_typer(offers_app, name="offers")
app.add_typer(findings_app, name="findings")


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
    _show_offers(_sync(lambda s: offers.offers(s, org, actor)))


@offers_app.command("review")
def offers_review(org: Org, actor: As = "") -> None:
    """Place every new episode into the offer of its process (or a new offer)."""
    reviewed = _sync(lambda s: offers.review_episodes(s, org, actor))
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
    _show(_sync(lambda s: offers.confirm_offer(s, offer_id, actor, name)))


@offers_app.command("drift")
def offers_drift(org: Org, actor: As = "") -> None:
    """Flag confirmed playbooks whose later episodes consistently miss their outcome."""
    reviewed = _sync(lambda s: offers.review_drift(s, org, actor))
    console.print(f"{len(reviewed.flagged)} playbook(s) flagged for drift")
    _show_findings(reviewed.findings, "unresolved drift findings")


@findings_app.command("list")
def findings_list(org: Org, actor: As = "") -> None:
    """The organization's drift findings you may read."""
    _show_findings(_sync(lambda s: offers.findings(s, org, actor)))


@findings_app.command("resolve")
def findings_resolve(
    finding_id: str,
    reason: Annotated[str, typer.Option(help="Why it is resolved.")],
    actor: As = "",
) -> None:
    """Resolve a finding (a playbook's drift, or one Sentinel filed), once, with a reason."""
    _show(_sync(lambda s: heartbeat.resolve_any_finding(s, finding_id, actor, reason)))


def main() -> None:
    app()
