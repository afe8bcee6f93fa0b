"""The counterfactual: what a held or rejected intent would have done without enforcement.

The recorded history is replayed, not re-lived: the broker's stages run over the
snapshot as it stood when the intent was decided (:func:`replay`), every verdict is
computed and none stops the path, and the would-be write is what a dry-run connector
computes from the intent (:func:`would_write`): nothing is written, nothing claimed,
nothing appended to the chain. :func:`view` then shows it to one reader, the way the
memory gate shows memory: what lies beyond the reader's projects is withheld (a record
across a wall keeps neither its reference nor its projects), and every reason text that
names such projects is withheld whole rather than edited.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from domain.governance.broker import Hold, Reject, operation_key, unenforced, wildcard_key
from domain.governance.intents import Decision, Intent, Outcome, Stage
from domain.governance.values import BrokerSnapshot, StoredIntent
from domain.organization.contracts import Frozen, SpendCap, ToolSpec
from domain.organization.visibility import may_read

WITHHELD = "withheld: it concerns projects outside yours"
"""What a reader sees in place of a text that names projects it may not read."""
MAX_FIELD = 200
"""How much of each would-be field is shown."""
REPLAYABLE = frozenset({Outcome.HOLD, Outcome.REJECT})
"""The broker outcomes a counterfactual replays."""
NOT_LET_THROUGH = frozenset({Outcome.HOLD, Outcome.REJECT, Outcome.DENIED, Outcome.EXPIRED})
"""Statuses of an intent that enforcement stopped (its write never happened)."""


class SnapshotBasis(StrEnum):
    """What the replay's snapshot is."""

    AS_DECIDED = "as_decided"
    """The configuration has not changed since the decision: the snapshot is the one the
    broker read (spend, in-flight keys and completed writes rebuilt as of the decision)."""
    NOW = "now"
    """The configuration changed since: today's configuration, with spend, in-flight keys
    and completed writes still rebuilt as of the decision."""


def replayed_decision(stored: StoredIntent, decisions: Sequence[Decision]) -> Decision | None:
    """The broker decision a counterfactual replays: the newest hold or rejection of an
    intent that enforcement stopped; None for an intent that was let through."""
    if stored.status not in NOT_LET_THROUGH or stored.dispatched:
        return None
    for decision in reversed(decisions):
        if decision.outcome in REPLAYABLE and decision.stage is not Stage.REVIEW:
            return decision
    return None


class StageVerdict(Frozen):
    """One stage's verdict with enforcement off."""

    stage: Stage
    verdict: str
    """``pass``, ``hold``, ``reject`` or ``not_run``."""
    rule: str = ""
    reason: str = ""


class WouldWrite(Frozen):
    """What a dry-run connector computes: the row the connector would have written."""

    system: str
    action: str
    fields: dict[str, str | int]


class CapView(Frozen):
    """A spend cap against the intent's spend."""

    commitment_id: str
    title: str
    currency: str
    limit_cents: int
    committed_cents: int
    """Already counted against it when the intent was decided."""
    intent_cents: int
    total_cents: int
    over_by_cents: int
    """How far the total would have gone past the limit (0: within it)."""


class RecordView(Frozen):
    """A referenced record as the reader may see it (through the memory gate)."""

    ref: str
    projects: tuple[str, ...] = ()
    released: bool
    """Whether the memory gate released the record to this reader. A reader who may
    read everything the intent reached sees its reference (it is part of the intent)
    even when the gate withholds the record's content from them; anyone else sees a
    record only when the gate releases it."""


class SideView(Frozen):
    """One side of a barrier that the intent reaches."""

    projects: tuple[str, ...]
    """Empty when withheld."""
    records: tuple[RecordView, ...] = ()
    withheld: bool = False


class CrossingView(Frozen):
    """The barrier the intent would have crossed."""

    barrier: str
    sides: tuple[SideView, ...]


class OtherIntent(Frozen):
    """Another intent on the same resource, as recorded."""

    intent_id: str
    status: Outcome
    dispatched: bool
    reach: tuple[str, ...]
    payload: dict[str, object]


class OtherView(Frozen):
    """Another intent on the same resource, as the reader may see it."""

    intent_id: str | None
    """None: withheld."""
    status: str | None = None
    written: bool | None = None
    """Its write happened (the invoice was paid)."""
    fields: dict[str, str | int] = {}
    withheld: bool = False


class CollisionView(Frozen):
    """The other writes to the same resource that this one would have joined."""

    key: str
    in_flight: tuple[OtherView, ...]
    completed: tuple[OtherView, ...]
    double_write: bool
    """A write that may not be repeated (an invoice paid) would have happened twice."""
    writes: int
    """How many times the resource would have been written (this one included)."""


class Replay(Frozen):
    """The unredacted counterfactual: what the stages say with enforcement off."""

    intent: Intent
    stages: tuple[StageVerdict, ...]
    reach: tuple[str, ...]
    write: WouldWrite | None
    caps: tuple[CapView, ...]
    crossing: tuple[str, tuple[tuple[str, ...], ...]] | None
    """The barrier crossed and the reach's projects on each side it touches."""
    key: str | None
    in_flight: tuple[str, ...]
    completed: tuple[str, ...]
    repeatable: bool
    records: dict[str, tuple[str, ...]] = {}
    """The projects of each referenced record (as the broker read them)."""


def _fields(tool: ToolSpec, payload: Mapping[str, object]) -> dict[str, str | int]:
    out: dict[str, str | int] = {}
    for name in tool.params:
        value = payload.get(name)
        if isinstance(value, bool) or value is None:
            continue
        out[name] = value if isinstance(value, int) else str(value)[:MAX_FIELD]
    return out


def would_write(intent: Intent, tool: ToolSpec | None) -> WouldWrite | None:
    """The dry-run connector: the row ``tool``'s connector would write for ``intent``,
    computed and never written (None for an unknown tool)."""
    if tool is None:
        return None
    return WouldWrite(system=tool.system, action=tool.action, fields=_fields(tool, intent.payload))


def _verdict(stage: Stage, found: Reject | Hold | None) -> StageVerdict:
    if found is None:
        return StageVerdict(stage=stage, verdict="pass")
    kind = "reject" if isinstance(found, Reject) else "hold"
    return StageVerdict(stage=stage, verdict=kind, rule=found.rule, reason=found.reason)


def replay(intent: Intent, snap: BrokerSnapshot) -> Replay:
    """Every stage over ``snap`` with enforcement off, and what would have followed."""
    run = unenforced(intent, snap)
    stages = [_verdict(stage, found) for stage, found in run.verdicts]
    stages += [
        StageVerdict(stage=stage, verdict="not_run", reason=why) for stage, why in run.skipped
    ]
    stages.sort(key=lambda s: list(Stage).index(s.stage))
    policy = snap.policy()
    caps: list[CapView] = []
    if run.spend > 0:
        for c in policy.caps(run.reach):
            if not (isinstance(c.constraint, SpendCap) and c.binds(snap.now)):
                continue
            committed = snap.committed_spend.get(c.id, 0)
            total = committed + run.spend
            caps.append(
                CapView(
                    commitment_id=c.id,
                    title=c.title,
                    currency=c.constraint.currency,
                    limit_cents=c.constraint.limit_cents,
                    committed_cents=committed,
                    intent_cents=run.spend,
                    total_cents=total,
                    over_by_cents=max(total - c.constraint.limit_cents, 0),
                )
            )
    crossing = None
    crossed = policy.crossed(run.reach)
    if crossed is not None:
        barrier, touched = crossed
        crossing = (
            barrier.name,
            tuple(tuple(sorted(run.reach & set(barrier.groups[i]))) for i in touched),
        )
    key: str | None = None
    in_flight: tuple[str, ...] = ()
    completed: tuple[str, ...] = ()
    repeatable = True
    if run.tool is not None:
        tool = run.tool
        key = operation_key(tool, intent.payload)
        wildcard = wildcard_key(tool)
        if key is not None:
            claims = [*snap.in_flight.get(key, ()), *snap.in_flight.get(wildcard, ())]
        else:
            claims = [
                f for k, g in snap.in_flight.items() if k.startswith(wildcard[:-1]) for f in g
            ]
        in_flight = tuple(dict.fromkeys(f.intent_id for f in claims if f.intent_id != intent.id))
        if key is not None:
            done = snap.completed.get(key, ())
            completed = tuple(i for i in done if i != intent.id)
        key = key or wildcard
        repeatable = tool.repeatable
    return Replay(
        intent=intent,
        stages=tuple(stages),
        reach=tuple(sorted(run.reach)),
        write=would_write(intent, run.tool),
        caps=tuple(caps),
        crossing=crossing,
        key=key,
        in_flight=in_flight,
        completed=completed,
        repeatable=repeatable,
        records=dict(snap.records),
    )


class DoneView(Frozen):
    """What enforcement did."""

    outcome: Outcome
    stage: Stage
    rule: str
    reason: str
    status: Outcome
    """The intent's status now (a hold may since have been denied or expired)."""
    written: bool
    """Whether its write happened: never, for an intent enforcement stopped."""
    audit_seq: int | None


class Counterfactual(Frozen):
    """A held or rejected intent, side by side: what was done, and what would have
    happened without enforcement, as one reader may see it."""

    intent_id: str
    run_id: str
    tool: str
    requested_by: str | None = None
    """The human the intent's run acted for (None: the system started it)."""
    snapshot: SnapshotBasis
    done: DoneView
    would: Outcome
    """Without enforcement every intent goes through: allow."""
    stages: tuple[StageVerdict, ...]
    write: WouldWrite | None
    caps: tuple[CapView, ...]
    crossing: CrossingView | None
    collision: CollisionView | None
    withheld_projects: int
    """How many projects of the intent's reach the reader may not read."""


def _other(other: OtherIntent | None, intent_id: str, readable: frozenset[str] | None) -> OtherView:
    if other is None or not may_read(readable, other.reach):
        return OtherView(intent_id=None, withheld=True)
    tool_fields = {
        k: v if isinstance(v, int) and not isinstance(v, bool) else str(v)[:MAX_FIELD]
        for k, v in other.payload.items()
        if k not in ("body", "memo")
    }
    return OtherView(
        intent_id=intent_id,
        status=other.status.value,
        written=other.dispatched,
        fields=tool_fields,
    )


def view(
    replayed: Replay,
    stored: StoredIntent,
    decision: Decision,
    basis: SnapshotBasis,
    readable: frozenset[str] | None,
    records: Mapping[str, tuple[str, ...] | None],
    others: Mapping[str, OtherIntent],
) -> Counterfactual:
    """``replayed`` as a reader of ``readable`` projects (None: all) sees it. ``records``
    is what the memory gate released of each referenced record to this reader (its
    projects; None: withheld); ``others`` the recorded intents it collides with."""
    whole = may_read(readable, [*replayed.reach, *decision.reach])

    def said(text: str) -> str:
        return text if whole or not text else WITHHELD

    stages = tuple(s.model_copy(update={"reason": said(s.reason)}) for s in replayed.stages)
    crossing = None
    if replayed.crossing is not None:
        barrier, groups = replayed.crossing
        sides = []
        for projects in groups:
            side = set(projects)
            if not may_read(readable, projects):  # nothing of it: no project, no record
                sides.append(SideView(projects=(), withheld=True))
                continue
            refs = tuple(
                RecordView(ref=ref, projects=projects, released=records.get(ref) is not None)
                for ref in dict.fromkeys(replayed.intent.references)
                for projects in [replayed.records.get(ref, ())]
                if side & set(projects) and (whole or records.get(ref) is not None)
            )
            sides.append(SideView(projects=projects, records=refs))
        crossing = CrossingView(barrier=barrier, sides=tuple(sides))
    collision = None
    if replayed.key is not None and (replayed.in_flight or replayed.completed):
        in_flight = tuple(_other(others.get(i), i, readable) for i in replayed.in_flight)
        completed = tuple(_other(others.get(i), i, readable) for i in replayed.completed)
        writes = 1 + len(replayed.completed) + len(replayed.in_flight)
        collision = CollisionView(
            key=replayed.key if whole else WITHHELD,
            in_flight=in_flight,
            completed=completed,
            double_write=not replayed.repeatable and writes > 1,
            writes=writes,
        )
    outside = set(replayed.reach) - (set(replayed.reach) if readable is None else readable)
    return Counterfactual(
        intent_id=replayed.intent.id,
        run_id=stored.run_id,
        tool=replayed.intent.tool,
        requested_by=replayed.intent.requested_by,
        snapshot=basis,
        done=DoneView(
            outcome=decision.outcome,
            stage=decision.stage,
            rule=decision.rule,
            reason=said(decision.reason),
            status=stored.status,
            written=stored.dispatched,
            audit_seq=decision.audit_seq,
        ),
        would=Outcome.ALLOW,
        stages=stages,
        write=replayed.write,
        caps=replayed.caps if whole else (),
        crossing=crossing,
        collision=collision,
        withheld_projects=len(outside),
    )
