"""What the showcase reports: what happened, the file the README's walkthrough reads
(``.verletica/demo.env``), and the report printed as rich tables."""

from __future__ import annotations

import shlex
from collections import Counter
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from api.views.needs_you import needs_you_table
from api.views.work_graph import deliberation_tables, graph_table
from domain.deliberation.state import DeliberationState
from domain.work_graph.graph import GraphState
from usecases.needs_you import NeedsYou


class MemoryShow(BaseModel):
    """What the "Memory behind the wall" section saw."""

    west_ref: str
    tagged: dict[str, int]
    """Identifying detail tagged in the West note at ingestion, by kind (its audit entry)."""
    east_query: dict[str, Any]
    """An East human's similarity query for the West note: hits and a withheld count."""
    refusal: dict[str, Any]
    """The instruction-like invoice's answer: HTTP ``status`` and ``detail``."""
    reads: list[dict[str, Any]] = []
    """The memory read log (the founder's view), oldest first."""


class DemoReport(BaseModel):
    """Everything the scenario produced, for printing and for tests."""

    org_id: str
    founder_id: str
    associate_id: str
    founder_subject: str
    """The founder's subject at the issuer (tests sign in as the founder with it)."""
    associate_subject: str
    handles: dict[str, str]
    """Principal id → handle."""
    runs: dict[str, dict[str, Any]]
    """Scenario step → final run view."""
    audit: dict[str, Any]
    memory: MemoryShow
    needs_you: dict[str, Any] = {}
    """The founder's needs-you queue while the payment was held."""
    metrics: dict[str, Any] = {}
    """The autonomy metrics at the end."""
    failed: list[dict[str, Any]] = []
    """The failed runs at the end, each with its class and the retries it has left."""
    graph_held: dict[str, Any] = {}
    """The diligence checklist's work graph while its payment was held."""
    graph: dict[str, Any] = {}
    """The work graph at its end."""
    deliberation: dict[str, Any] = {}
    """The deliberation at its end."""
    commitments: dict[str, str] = {}
    """The engagement letter's extracted commitments: kind → id."""
    waiting: list[dict[str, Any]] = []
    """The founder's needs-you queue as the demo leaves it: what the console shows."""


def waiting_lines(report: DemoReport, console_url: str) -> list[str]:
    """What the demo leaves for the owner to decide in the console, a line each: the
    item, the reason that matters first, and where to open it."""
    lines = []
    for item in report.waiting:
        if item.get("kind") == "withheld":
            continue
        said: dict[str, str] = {}
        for e in item.get("evidence", ()):  # the first of a label: the most worrying cause
            said.setdefault(e["label"], e["detail"])
        reason = said.get("already done") or said.get("reason") or said.get("summary") or ""
        if not reason and "constraint" in said:
            reason = said["constraint"] + (
                f", extracted from {said['source']}" if said.get("source") else ""
            )
        where = (
            f"{console_url}intents/{item['subject_id']}"
            if item["kind"] == "held_intent"
            else f"{console_url}queue"
        )
        lines.append(f"{item['title']}" + (f" — {reason}" if reason else "") + f"  {where}")
    return lines


ENV_FILE = "demo.env"
"""What ``verletica demo`` writes into its data folder for the README's walkthrough."""


def env_file(report: DemoReport) -> str:
    """Shell lines naming the firm the demo founded, whom to sign in as and records it
    made, so that the README's command-line walkthrough runs as shown after ``make demo``
    (``. .verletica/demo.env``). No token: an ID token expires, the stack's issuer mints
    a fresh one (``verletica token "$DEMO_FOUNDER"``)."""
    cross = report.runs["cross"]["intents"][0]["intent"]["id"]
    lines = (
        ("VERLETICA_ORG", report.org_id, "Harbor & Vale Advisory, founded by the demo"),
        ("DEMO_FOUNDER", report.founder_subject, "Ada, the founder: sign in as her"),
        ("DEMO_ASSOCIATE", report.associate_subject, "Ben, on East, without approval authority"),
        ("DEMO_REJECTED", cross, "the intent of Orion's brief, rejected at the wall"),
        ("DEMO_FAILED_RUN", report.runs["malformed"]["run_id"], "Scout's malformed reply's run"),
        (
            "DEMO_DELIVERY",
            report.commitments.get("delivery", ""),
            "the letter's index delivery, extracted, not yet confirmed",
        ),
    )
    head = "# Written by `verletica demo` (make demo): . .verletica/demo.env\n"
    return head + "".join(f"export {k}={shlex.quote(v)}  # {why}\n" for k, v, why in lines)


def render(report: DemoReport, console: Console) -> None:
    """Print the decisions, the audit trail, its verification and the Temporal UI links."""
    handle = report.handles.get
    decisions = Table(title="Broker decisions", show_lines=True)
    for col in (
        "step",
        "agent",
        "tool",
        "outcome",
        "stage",
        "rule",
        "reason / what would release it",
    ):
        decisions.add_column(col)
    for step, view in report.runs.items():
        state = view["state"] or {}
        agent = handle(view["agent_id"], view["agent_id"])
        if state.get("rejection"):
            r = state["rejection"]
            decisions.add_row(step, agent, "-", "reject", "parser", r["rule"], r["reason"])
        for item in view["intents"]:
            for d in item["decisions"]:
                text = d["reason"] + "".join(f"\n→ {r}" for r in d["release"])
                decisions.add_row(
                    step, agent, item["intent"]["tool"], d["outcome"], d["stage"], d["rule"], text
                )
        for item in state.get("intents", []):
            for refusal in item["refused_reviews"]:
                who, _, rule = refusal.partition(": ")
                decisions.add_row(
                    step,
                    handle(who, who),
                    item["intent"]["tool"],
                    "review refused",
                    "human_review",
                    rule,
                    "approval attempt recorded and refused",
                )
            if item.get("dispatch"):
                d = item["dispatch"]
                decisions.add_row(
                    step,
                    agent,
                    item["intent"]["tool"],
                    "dispatched",
                    "dispatch",
                    f"{d['system']}.{d['action']}",
                    d["external_id"],
                )
    console.print(decisions)

    log = Table(title="Memory read log (every read, whoever asked; never the content)")
    for col in ("asker", "on behalf of", "path", "query", "released", "withheld", "outcome"):
        log.add_column(col)
    for read in report.memory.reads:
        behalf = read["on_behalf_of"]
        log.add_row(
            handle(read["asker_id"], read["asker_id"]),
            "-" if behalf is None else handle(behalf, behalf),
            read["path"],
            read["query"],
            ", ".join(read["released"]) or "-",
            str(read["withheld"]),
            read["outcome"],
        )
    console.print(log)

    trail = Table(
        title="Audit chain (hash-linked, RFC 8785 canonical JSON, SHA-256; each entry signed)"
    )
    for col in ("seq", "actor", "decision", "stage", "rule", "prev hash", "entry hash"):
        trail.add_column(col)
    for group in _runs_of_configuration(report.audit["entries"]):
        first, last = group[0], group[-1]
        if first["stage"] == "configuration":
            rules = Counter(e["rule"] for e in group)
            trail.add_row(
                f"{first['seq']}–{last['seq']}" if len(group) > 1 else str(first["seq"]),
                ", ".join(sorted({handle(e["actor"], e["actor"]) for e in group})),
                "configured",
                "configuration",
                ", ".join(f"{rule} ×{n}" for rule, n in rules.items()),
                first["prev_hash"][:12],
                last["entry_hash"][:12],
            )
            continue
        trail.add_row(
            str(first["seq"]),
            handle(first["actor"], first["actor"]),
            first["decision"],
            first["stage"],
            first["rule"],
            first["prev_hash"][:12],
            first["entry_hash"][:12],
        )
    console.print(trail)
    v = report.audit["verification"]
    colour = "green" if v["ok"] else "red"
    console.print(
        f"[{colour}]Chain verification: {'OK' if v['ok'] else 'BROKEN'}[/] — "
        f"{v['entries']} entries, head {v['head_hash'][:16]}…"
        + ("" if v["ok"] else f" broken at {v['broken_at']}: {v['problem']}")
    )
    if report.needs_you:
        console.print(needs_you_table(NeedsYou.model_validate(report.needs_you)))
    if report.metrics:
        m = report.metrics
        median = m["hold_resolution"]["median_seconds"]
        console.print(
            f"[bold]Autonomy[/] — runs without a human: {m['work_without_human']['runs']} of "
            f"{m['work_without_human']['runs_with_intents']}; escalated: "
            f"{m['escalated']['held']} of {m['escalated']['decided']} decisions; blocked by "
            f"stage: {m['blocked_by_stage']}; holds resolved: {m['hold_resolution']['resolved']}"
            + (f" (median {median:.1f} s)" if median is not None else "")
        )
    if report.graph_held:
        console.print(graph_table(GraphState.model_validate(report.graph_held["state"])))
    if report.graph:
        console.print(graph_table(GraphState.model_validate(report.graph["state"])))
    if report.deliberation:
        console.print(
            deliberation_tables(DeliberationState.model_validate(report.deliberation["state"]))
        )
    if report.failed:
        failed = Table(title="failed runs (verletica failed): class, what stopped them, retries")
        for column in ("agent", "class", "stopped at", "retries left", "task"):
            failed.add_column(column)
        for f in report.failed:
            failed.add_row(
                f["agent"],
                f["failure"],
                f"{f['stage']}: {f['rule']}",
                str(f["retries_left"]),
                escape(f["task"][:60]),
            )
        console.print(failed)
    console.print("[bold]Temporal UI[/]")
    for step, view in report.runs.items():
        console.print(f"  {step:10} {view['ui_url']}")
    for step, view in (("graph", report.graph), ("deliberate", report.deliberation)):
        if view:
            console.print(f"  {step:10} {view['ui_url']}")


def _runs_of_configuration(entries: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Entries grouped so that consecutive configuration changes fold into one row."""
    groups: list[list[dict[str, Any]]] = []
    for entry in entries:
        folds = entry["stage"] == "configuration"
        if folds and groups and groups[-1][0]["stage"] == "configuration":
            groups[-1].append(entry)
        else:
            groups.append([entry])
    return groups
