"""What the chaos harness (:mod:`bench.chaos`) found, once the runs are over: the report
and its invariants, the writes checked against the chain, how long lost tasks took to
recover, why a run that did not end is still waiting, and the table ``make chaos`` prints.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC

from rich.console import Console
from rich.table import Table
from sqlalchemy import select
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from adapters.store.store import Store
from adapters.store.tables import CONNECTOR_TABLES
from usecases import runs

LOST = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
    EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
}
RELEASING = ("dispatched", "expired", "denied", "reject")
"""Entries after which an intent holds its operation key no more."""
PROGRESS = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
}


@dataclass
class ChaosReport:
    """What happened and what held."""

    runs: int = 0
    terminal: int = 0
    kills: int = 0
    temporal_restarts: int = 0
    writes: int = 0
    duplicate_writes: int = 0
    writes_without_allow: int = 0
    double_allowed: int = 0
    self_exits: int = 0
    """Workers that ended without being killed (one that cannot reach Temporal waits)."""
    chain_ok: bool = False
    seconds: float = 0.0
    """From the first run submitted to the last one ended (or the harness giving up)."""
    decisions: dict[str, int] = field(default_factory=dict)
    """The chain's decisions on intents, by decision and rule: why runs wrote or did not."""
    outcomes: dict[str, int] = field(default_factory=dict)
    """How the runs' workflows ended (completed, failed, …): work failed shows here."""
    recoveries: list[float] = field(default_factory=list)
    approver_retries: int = 0
    """Approval rounds that failed and were tried again (not a defect of the product)."""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What happened that is not a failure, said so a failure can be read beside it."""
    approver_saw: dict[str, str] = field(default_factory=dict)
    """The approver's last word on each held intent (sent, skipped and why, refused and
    why): a run still held at the end is read beside it."""
    poisonings: list[str] = field(default_factory=list)
    """The broker found its own record broken (nothing here tampers with it): why, and
    the refused dispatch that found it."""

    @property
    def sound(self) -> bool:
        """True when every invariant held."""
        return (
            self.terminal == self.runs
            and self.duplicate_writes == 0
            and self.writes_without_allow == 0
            and self.double_allowed == 0
            and self.self_exits == 0
            and self.chain_ok
            and not self.poisonings
        )


async def why_not_ended(
    client: Client, store: Store, org: str, run: runs.RunStarted, approver_saw: dict[str, str]
) -> str:
    """What a run that did not end waits on: its pending activities (attempt, last
    failure, last worker), its last history events (a timer with what it waits for), its
    intents still held with their decisions, and what the approver last did of each."""
    try:
        handle = client.get_workflow_handle(run.workflow_id)
        raw = (await handle.describe()).raw_description
        pending = [
            f"{a.activity_type.name} attempt {a.attempt} on {a.last_worker_identity or '-'}"
            f" ({a.last_failure.message[:120] or 'no failure'})"
            for a in raw.pending_activities
        ]
        events = [e async for e in handle.fetch_history_events()]
        last = [event_line(e) for e in events[-8:]]
    except Exception as exc:  # noqa: BLE001 - a diagnosis must not hide the failure
        return f"could not describe it: {exc!r:.200}"
    held = [
        f"{intent.id[:8]} ({intent.tool}): "
        + ", ".join(f"{d.outcome}/{d.rule}@{d.audit_seq}" for d in decisions)
        + f"; approver: {approver_saw.get(intent.id, 'never saw it')}"
        for intent, status, decisions in store.runs.intents(run.run_id)
        if status == "hold"
    ]
    return (
        f"pending {pending or 'none'}; {len(events)} events, last {last}; "
        f"intents held {held or 'none'}"
    )


def event_line(event: HistoryEvent) -> str:
    """An event's type, and for a timer or a signal what it is about."""
    name = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")
    if event.event_type == EventType.EVENT_TYPE_TIMER_STARTED:
        summary = event.user_metadata.summary.data.decode(errors="replace")[:160]
        seconds = event.timer_started_event_attributes.start_to_fire_timeout.seconds
        return f"{name} {seconds}s {summary}"
    if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        return f"{name} {event.workflow_execution_signaled_event_attributes.signal_name}"
    return name


async def recoveries(
    client: Client, started: list[runs.RunStarted], kills: list[tuple[float, str]]
) -> list[float]:
    """For each task a killed worker held: seconds from the kill to the run's next step
    done."""
    out: list[float] = []
    for run in started:
        events = [
            e async for e in client.get_workflow_handle(run.workflow_id).fetch_history_events()
        ]
        starts: dict[int, str] = {}
        for event in events:
            identity = getattr(event.activity_task_started_event_attributes, "identity", "") or (
                getattr(event.workflow_task_started_event_attributes, "identity", "")
            )
            if identity:
                starts[event.event_id] = identity
        out += retried_activities(events, kills)
        for i, event in enumerate(events):
            if event.event_type not in LOST:
                continue
            attrs = (
                event.activity_task_timed_out_event_attributes
                if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT
                else event.workflow_task_timed_out_event_attributes
            )
            who = starts.get(getattr(attrs, "started_event_id", 0), "")
            killed = [t for t, identity in kills if identity == who]
            if not killed:
                continue
            at = killed[0]
            after = next(
                (
                    e.event_time.ToDatetime(UTC).timestamp()
                    for e in events[i:]
                    if e.event_type in PROGRESS
                ),
                None,
            )
            if after is not None and after >= at:
                out.append(after - at)
    return out


def retried_activities(events: list[HistoryEvent], kills: list[tuple[float, str]]) -> list[float]:
    """Activities whose attempt was lost with its worker. Their retries are not in the
    history (only the attempt that finished is), but that attempt's started event says
    it is a retry after a timeout. The lost attempt's worker is not named, so the kill is
    taken to be the first one after the activity was scheduled: the figure is an upper
    bound on the recovery, from that kill to the activity done."""
    out: list[float] = []
    scheduled: dict[int, float] = {}
    retried: dict[int, bool] = {}
    for event in events:
        at = event.event_time.ToDatetime(UTC).timestamp()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.event_id] = at
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            attrs = event.activity_task_started_event_attributes
            retried[attrs.scheduled_event_id] = attrs.attempt > 1 and attrs.last_failure.HasField(
                "timeout_failure_info"
            )
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes.scheduled_event_id
            if retried.get(done) and done in scheduled:
                after = [t for t, _ in kills if scheduled[done] <= t <= at]
                if after:
                    out.append(at - after[0])
    return out


def check_writes(store: Store, org: str, report: ChaosReport) -> None:
    """Writes against the chain: each after an allowing entry, no resource written twice
    without a human's approval, and no two colliding intents allowed at once."""
    entries = store.audit.entries(org)
    seq_of: dict[tuple[str, str], int] = {}
    holder: dict[str, str] = {}
    key_of: dict[str, str] = {}
    for e in entries:
        if e.decision == "broker_poisoned":  # its dispatch_refused beside it says the same
            said = f"seq {e.seq}: {e.payload.get('reason', e.payload)}"
            report.poisonings.append(said)
            report.problems.append(f"the broker found its record broken: {said}")
        if e.intent_id is None:
            continue
        body = e.payload.get("intent")
        if isinstance(body, dict) and body.get("tool") == "payments.pay":
            invoice = str(body.get("payload", {}).get("invoice", "")).strip().lower()
            key_of[e.intent_id] = f"payments.pay:{invoice or '*'}"
        seq_of.setdefault((e.intent_id, e.decision), e.seq)
        said = f"{e.decision}:{e.rule}" if e.rule else e.decision
        report.decisions[said] = report.decisions.get(said, 0) + 1
        key = key_of.get(e.intent_id)
        if key is None:
            continue
        if e.decision in ("allow", "approved"):
            other = holder.get(key)
            if other is not None and other != e.intent_id and e.decision == "allow":
                report.double_allowed += 1
                report.problems.append(f"{key}: {e.intent_id} allowed while {other} held it")
            holder[key] = e.intent_id
        elif e.decision in RELEASING and holder.get(key) == e.intent_id:
            del holder[key]
    paid: dict[str, list[str]] = defaultdict(list)
    for system, table in CONNECTOR_TABLES:
        with store.db.read() as s:
            rows = list(s.execute(select(table).where(table.org_id == org)).scalars())
        for row in rows:
            report.writes += 1
            allowed = min(
                (seq_of.get((row.intent_id, d), 10**12) for d in ("allow", "approved")),
                default=10**12,
            )
            dispatched = seq_of.get((row.intent_id, "dispatched"), 0)
            if not allowed < dispatched:
                report.writes_without_allow += 1
                report.problems.append(f"{system} {row.intent_id}: no allow before its write")
            if system == "payments":
                paid[key_of.get(row.intent_id, "?")].append(row.intent_id)
    for key, intents in paid.items():
        repeats = [i for i in intents[1:] if (i, "approved") not in seq_of]
        report.duplicate_writes += len(repeats)
        if repeats:
            report.problems.append(f"{key} written again without approval: {repeats}")


def render(report: ChaosReport, console: Console) -> None:
    """The counts and the recovery times."""
    table = Table(title="chaos: runs across worker processes killed at random")
    table.add_column("what")
    table.add_column("count", justify="right")
    rows = [
        ("runs", report.runs),
        ("runs terminal", report.terminal),
        ("workers killed (SIGKILL) and restarted", report.kills),
        ("Temporal dev server restarts", report.temporal_restarts),
        ("workers that exited on their own", report.self_exits),
        ("connector writes", report.writes),
        ("duplicate writes", report.duplicate_writes),
        ("writes without a prior allow", report.writes_without_allow),
        ("colliding intents allowed at once", report.double_allowed),
        ("chain verifies", "yes" if report.chain_ok else "NO"),
        ("broker found its record broken", len(report.poisonings)),
        ("how the runs ended", ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items()))),
        ("seconds, first run to last ended", f"{report.seconds:.0f}"),
        ("lost tasks recovered", len(report.recoveries)),
    ]
    if report.recoveries:
        rows += [
            ("recovery, median (s)", f"{statistics.median(report.recoveries):.1f}"),
            ("recovery, worst (s)", f"{max(report.recoveries):.1f}"),
        ]
    for what, value in rows:
        table.add_row(what, str(value))
    console.print(table)
    for note in report.notes:
        console.print(note)
    for problem in report.problems:
        console.print(f"[red]{problem}[/]")
