"""Agent runs: start one, read one, wait for one, decide one of its holds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel

from domain.errors import Conflict, Forbidden, NotFound, Unavailable
from domain.governance.approvals import Decided, sign
from domain.governance.intents import (
    ApprovalVerdict,
    Decision,
    Intent,
    Outcome,
    held_decision,
    repeats_a_write,
)
from domain.governance.review import authority_refusal
from domain.organization.contracts import Principal, Staffing
from domain.organization.kinds import PrincipalKind
from domain.organization.visibility import decision_for, may_read
from domain.runs.ports import RunRecords
from domain.runs.run import (
    DEFAULT_HOLD_SECONDS,
    ApprovalSignal,
    RunInput,
    RunRecord,
    RunState,
    check_hold_timeout,
)
from usecases import destinations, ingress
from usecases.access import (
    Reader,
    check_scripted,
    member,
    readable,
    reader,
    run_and_reader,
    run_for,
)
from usecases.context import Ports, new_id


class RunStarted(BaseModel):
    """A run that was started (or found again by its client key)."""

    run_id: str
    workflow_id: str
    created: bool
    ui_url: str


class IntentRecord(BaseModel):
    """An intent of a run with its status and every decision, oldest first."""

    intent: Intent
    status: str
    decisions: list[Decision]


class RunView(BaseModel):
    """A run as a reader sees it: workflow status, node states and every intent."""

    run_id: str
    workflow_id: str
    org_id: str
    agent_id: str
    task: str
    started_by: str | None = None
    """The human the run acts for (who started it); None when the system started it."""
    workflow_status: str
    state: RunState | None
    intents: list[IntentRecord]
    ui_url: str


class HoldSignalled(BaseModel):
    """An approve or deny sent to the run holding an intent; the broker re-checks it."""

    intent_id: str
    run_id: str
    workflow_id: str
    signal: str
    intent_digest: str
    hold_seq: int | None = None
    """The audit entry of the hold the decision answers (the proof covers it)."""


def new_run(
    agent: Principal,
    task: str,
    staffing: Iterable[Staffing],
    *,
    started_by: str | None,
    client_key: str | None,
    hold_timeout_seconds: int | None,
    now: datetime,
) -> RunRecord:
    """The record of a new run of ``agent``: its workflow named for the agent, and the
    projects the agent is staffed on now (part of what the run reaches)."""
    run_id = new_id()
    return RunRecord(
        id=run_id,
        org_id=agent.org_id,
        agent_id=agent.id,
        task=task,
        workflow_id=f"run-{agent.handle}-{run_id}",
        client_key=client_key,
        started_by=started_by,
        projects=tuple(
            sorted(s.project for s in staffing if s.principal_id == agent.id and s.active_at(now))
        ),
        hold_timeout_seconds=hold_timeout_seconds or DEFAULT_HOLD_SECONDS,
        created_at=now,
    )


def record_system_run(runs: RunRecords, record: RunRecord) -> RunRecord:
    """Record a run the system starts under its own key (a graph's step, a
    deliberation): a retried recording finds the first; a key that names another run
    (another agent, org or starter) is a :class:`Conflict`."""
    run, _ = runs.create(record)
    if (run.org_id, run.agent_id, run.started_by) != (
        record.org_id,
        record.agent_id,
        record.started_by,
    ):
        raise Conflict(f"the key {record.client_key!r} names another run")
    return run


@dataclass(frozen=True)
class StartRun:
    """What starting a run asks: which agent, the task, and how the run behaves
    (a scripted reply for the demo and tests, the client's idempotency key, how long
    its holds wait for a human)."""

    agent_id: str
    task: str
    scripted_reply: str | None = None
    client_key: str | None = None
    hold_timeout_seconds: int | None = None
    read_refs: tuple[str, ...] = ()
    """Records handed to the run with its task (what the run whose question it answers
    read): never from a client, only from the system's own runs."""
    read_reach: tuple[str, ...] = ()
    """The projects of those records."""


async def start_run(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: StartRun,
) -> RunStarted:
    """Start an agent run on behalf of ``actor_id``, an active human of the organization;
    the same client key returns the run it started before (and never runs it again)."""
    _, actor = member(ports, org_id, actor_id)
    check_scripted(ports, given=command.scripted_reply is not None)
    standing = ports.directory.standing(org_id, command.agent_id)
    if standing is None:
        raise NotFound(f"no principal {command.agent_id} in this organization")
    _, agent, staffing = standing
    if agent.kind is not PrincipalKind.AGENT:
        raise ValueError(f"{agent.handle} is not an agent")
    if not command.task.strip():
        raise ValueError("a run needs a task")
    check_hold_timeout(command.hold_timeout_seconds)
    if command.client_key is None or ports.runs.by_client_key(org_id, command.client_key) is None:
        ingress.reserve_run(ports, actor)
    run, created = ports.runs.create(
        new_run(
            agent,
            command.task,
            list(staffing),
            started_by=actor_id,
            client_key=command.client_key,
            hold_timeout_seconds=command.hold_timeout_seconds,
            now=ports.clock(),
        )
    )
    if not created and (run.agent_id, run.task) != (command.agent_id, command.task):
        raise Conflict("this client key already started a different run")
    run_input = RunInput(
        run_id=run.id,
        org_id=org_id,
        agent_id=command.agent_id,
        task=command.task,
        requested_by=actor_id,
        read_refs=command.read_refs,
        read_reach=command.read_reach,
        scripted_reply=command.scripted_reply,
        **(
            {"hold_timeout_seconds": command.hold_timeout_seconds}
            if command.hold_timeout_seconds
            else {}
        ),
    )
    # Starting is idempotent by workflow id, so a crash between the record and the start
    # is repaired by the client retrying with its key.
    await ports.gateway.start(run_input, run.workflow_id, agent.handle, run.projects)
    return RunStarted(
        run_id=run.id,
        workflow_id=run.workflow_id,
        created=created,
        ui_url=ports.gateway.ui_url(run.workflow_id),
    )


def asker_of(
    ports: Ports, requested_by: str | None, run_id: str, run: RunRecord | None = None
) -> str | None:
    """Who an intent's run acts for: the intent says (``requested_by``), or, for one
    recorded before intents named their requester, its run's record (``run`` when the
    caller has read it already); None when the system started it."""
    if requested_by is not None:
        return requested_by
    record = run if run is not None else ports.runs.get(run_id)
    return None if record is None else record.started_by


async def run_view(ports: Ports, run_id: str, actor_id: str) -> RunView:
    """Status, node states (from the workflow) and intents with decisions (from the
    record). A human reads a run only within their own projects (the founder and whoever
    started it read it anyway); to anyone else it does not exist."""
    # The record's reads on a thread: a live page asks every half second, and the event
    # loop serves every other page meanwhile.
    run, who = await asyncio.to_thread(run_and_reader, ports, run_id, actor_id)
    status, state = await ports.gateway.state(run.workflow_id)

    def read() -> tuple[list[IntentRecord], RunState | None]:
        seen = decisions_seen(ports, run, actor_id, who)
        intents = [
            IntentRecord(intent=i, status=s, decisions=[seen(x) for x in d])
            for i, s, d in ports.runs.intents(run_id)
        ]
        return intents, None if state is None else state_seen(state, seen)

    intents, state = await asyncio.to_thread(read)
    return RunView(
        run_id=run.id,
        workflow_id=run.workflow_id,
        org_id=run.org_id,
        agent_id=run.agent_id,
        task=run.task,
        started_by=run.started_by,
        workflow_status=status,
        state=state,
        intents=intents,
        ui_url=ports.gateway.ui_url(run.workflow_id),
    )


async def wait_run(ports: Ports, run_id: str, actor_id: str) -> RunState:
    """Wait for a run to finish; its final state."""
    run = run_for(ports, run_id, actor_id)
    state = await ports.gateway.result(run.workflow_id)
    # Who the person is and what they may read, as of now: the wait may outlast a hold.
    return state_seen(state, decisions_seen(ports, run, actor_id))


def decisions_seen(
    ports: Ports, run: RunRecord, actor_id: str, who: Reader | None = None
) -> Callable[[Decision], Decision]:
    """A run's decisions as ``actor_id`` sees them: one they may read may rest on intents
    they may not (a collision), which its evidence and reason then do not name. ``who``:
    what the caller read of the actor already (:func:`~usecases.access.run_and_reader`)."""
    if who is None or who.actor.id != actor_id or who.org.id != run.org_id:
        who = reader(ports, run.org_id, actor_id)
    projects = who.projects
    if projects is None:
        return lambda decision: decision
    # Only a decision resting on other intents (a collision) needs their reach: the
    # organization's whole map is read then, once, not for every look at a run.
    reach_of = _Reaches(lambda: ports.runs.reaches(run.org_id)[1])
    return lambda decision: decision_for(projects, decision, reach_of)


class _Reaches(Mapping[str, set[str]]):
    """Each intent's reach, read when first asked for."""

    def __init__(self, load: Callable[[], dict[str, set[str]]]) -> None:
        self._load = load
        self._read: dict[str, set[str]] | None = None

    def _map(self) -> dict[str, set[str]]:
        if self._read is None:
            self._read = self._load()
        return self._read

    def __getitem__(self, intent_id: str) -> set[str]:
        return self._map()[intent_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())


def state_seen(state: RunState, seen: Callable[[Decision], Decision]) -> RunState:
    """``state`` with each intent's decision as :func:`decisions_seen` shows it."""
    views = tuple(v.model_copy(update={"decision": seen(v.decision)}) for v in state.intents)
    return state.model_copy(update={"intents": views})


async def decide_hold(
    ports: Ports,
    intent_id: str,
    actor_id: str,
    approver_id: str,
    *,
    approve: bool,
    reason: str = "",
    hold_seq: int | None = None,
    establish: bool = False,
    again: bool = False,
) -> HoldSignalled:
    """Send an approve or deny bound to the intent's digest and to the hold it answers,
    with a proof signed by this process's approval key; the broker verifies the proof and
    re-checks the rest in the run. The acting (authenticated) principal speaks only for
    itself: ``approver_id`` must be the actor, and the proof names the actor.

    ``hold_seq`` is the audit entry of the hold the person was shown (the console sends
    it): when the hold open now is another (a re-hold since, for a cap another payment
    took), nothing is sent and it is a :class:`Conflict` (``hold_changed``), so a click on
    a page that is no longer true answers nothing. Without it, the decision answers the
    hold open as the API signs.

    ``establish`` (the founder's, with an approval) first establishes the new
    destinations the intent would reach for its projects, on the record.

    ``again``: an approval of a hold on a write already done (an invoice paid once) does it
    a second time; it is sent only when the person says so, else :class:`Conflict`
    (``repeat_write``) and nothing is sent."""
    if approver_id != actor_id:
        raise Forbidden("approver_id must be the acting principal")
    found = ports.runs.intent(intent_id)
    try:
        if found is None:
            raise NotFound(f"no intent {intent_id}")
        run, who = run_and_reader(ports, found[2], actor_id)
    except NotFound:
        raise NotFound(f"no intent {intent_id}") from None
    intent, status, run_id = found
    if status != Outcome.HOLD:
        raise Conflict(f"intent is {status}, not held")
    if ports.approvals is None:
        raise Unavailable(
            "this process holds no approval key (VERLETICA_APPROVAL_KEY): it cannot decide holds"
        )
    verdict = ApprovalVerdict.APPROVE if approve else ApprovalVerdict.DENY
    # The hold the person answers: the intent's newest decision, as the pages show it.
    decisions = next((d for i, _, d in ports.runs.intents(run_id) if i.id == intent_id), [])
    if not decisions or decisions[-1].outcome is not Outcome.HOLD:
        raise Conflict(f"intent {intent_id[:64]} is not held")
    newest = decisions[-1]

    def seen() -> str:
        """What the person is told of the hold, as far as they may read it (a reason
        recorded long ago may name intents on the other side of a wall)."""
        return decisions_seen(ports, run, actor_id, who)(newest).reason[:300]

    if hold_seq is not None and hold_seq != newest.audit_seq:
        raise Conflict(
            f"hold_changed: the hold you were shown (audit entry {hold_seq}) is no longer the "
            f"one open; it is now held because {seen()}. Look again, then decide"
        )
    if approve and repeats_a_write(newest.rule) and not again:
        raise Conflict(
            f"repeat_write: {seen()}. Approving does it a second time: say that you mean to "
            "(again), or deny it"
        )
    if establish:
        if not approve:
            raise ValueError("only an approval establishes where an intent goes")
        # Trust nothing for an approval the broker will refuse: who may not approve it
        # may not make it go out later by trusting where it goes.
        lacking = approval_outlook(ports, intent_id, actor_id)
        if lacking is not None:
            raise Forbidden(f"your approval would be refused ({lacking}): nothing was trusted")
        destinations.establish_for(ports, run.org_id, actor_id, intent, newest.reach)
    hold = held_decision(newest)
    decided = Decided(
        run_id=run_id,
        intent_id=intent_id,
        intent_digest=intent.digest,
        approver_id=actor_id,
        verdict=verdict.value,
        reason=reason,
        hold=hold,
    )
    signal = ApprovalSignal(
        intent_id=intent_id,
        approver_id=actor_id,
        intent_digest=intent.digest,
        reason=reason,
        proof=sign(ports.approvals, decided, ports.clock()),
        hold=hold,
    )
    await ports.gateway.signal(run.workflow_id, approve, signal)
    return HoldSignalled(
        intent_id=intent_id,
        run_id=run_id,
        workflow_id=run.workflow_id,
        signal="approve" if approve else "deny",
        intent_digest=intent.digest,
        hold_seq=hold.audit_seq,
    )


RECENT_SCANNED = 5_000
"""How far back the runs list looks for runs a reader may read."""


def recent_runs(ports: Ports, org_id: str, actor_id: str, limit: int = 50) -> list[RunRecord]:
    """The organization's newest runs that ``actor_id`` may read (the others are left
    out, as they do not exist for them)."""
    org, actor = member(ports, org_id, actor_id)
    allowed = readable(ports, org, actor)
    if allowed is None:
        return ports.runs.recent(org_id, limit)
    by_run, _ = ports.runs.reaches(org_id)
    # newest first, as many as the reader may read (those they may not are skipped)
    return [
        run
        for run in ports.runs.recent(org_id, RECENT_SCANNED)
        if may_read(allowed, by_run.get(run.id, set(run.projects)))
    ][:limit]


def approval_outlook(ports: Ports, intent_id: str, actor_id: str) -> str | None:
    """Why the broker would refuse ``actor_id``'s approval of ``intent_id`` for want of
    authority (None: it would not, on that ground; the broker still decides). Asked by
    the console before a person sends an approval."""
    unknown = NotFound(f"no intent {intent_id}")
    found = ports.runs.intent(intent_id)
    if found is None:
        raise unknown
    intent, _, run_id = found
    try:
        run_for(ports, run_id, actor_id)  # another firm's, or beyond a wall: no such intent
        _, actor = member(ports, intent.org_id, actor_id)
    except NotFound:
        raise unknown from None
    reach = tuple(sorted(ports.runs.intent_reach(intent_id)))
    staffing = tuple(ports.directory.staffing(intent.org_id, actor.id))
    if authority_refusal(actor, staffing, reach, ports.clock()) is None:
        return None
    names = {p.slug: p.name for p in ports.directory.projects(intent.org_id)}  # to say why
    lacking = authority_refusal(actor, staffing, reach, ports.clock(), names)
    return None if lacking is None else lacking.reason
