"""The needs-you queue, the autonomy metrics and retrying a failed run.

The queue is built from item sources (:class:`ItemSource`): each turns what it knows into
:class:`~domain.needs_you.items.QueueItem`\\ s, and the queue ranks them, then shows each
reader only the items on projects it may read (the others as
:class:`~domain.needs_you.items.WithheldItem`, nothing of them). A new kind of work for
humans (findings, process offers, agent replies) is a new source in :data:`SOURCES`; the
queue, its route and its command do not change. Every action an item lists is taken at
its own endpoint, where it is brokered and audited.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from pydantic import BaseModel

from domain.audit.chain import AuditEntry
from domain.errors import Conflict
from domain.governance.records import answer_draft
from domain.needs_you.chain import ChainStory, FailedRun, HeldIntent, read_chain, retry_draft
from domain.needs_you.items import (
    ActionKind,
    Evidence,
    ItemAction,
    ItemKind,
    QueueItem,
    WithheldItem,
    for_reader,
    rank,
)
from domain.needs_you.metrics import (
    AutonomyMetrics,
    autonomy,
    finding_resolution,
    process_precision,
)
from domain.offers.playbooks import OfferState, offered
from domain.organization.contracts import MAX_REASON, Commitment, Obligation, ReviewState, SpendCap
from domain.organization.visibility import evidence_for, may_read
from domain.runs.failures import NEXT_STEP, RETRIES, FailureClass, retries_left
from domain.runs.run import DEFAULT_HOLD_SECONDS, RunStatus
from domain.tools import REGISTRY
from usecases.access import member, readable, run_for
from usecases.context import Ports
from usecases.runs import RunStarted, start_run


@dataclass(frozen=True)
class QueueContext:
    """What every source reads from: the chain's story (read once), the reaches of the
    organization's runs and intents, and who is asking."""

    ports: Ports
    org_id: str
    actor_id: str
    founder: bool
    now: datetime
    story: ChainStory
    run_reach: dict[str, set[str]]
    intent_reach: dict[str, set[str]]
    handles: dict[str, str]
    """Principal id → handle, for titles."""
    readable: frozenset[str] | None
    """The projects the asker may read (None: all): what an item's evidence may name."""

    def hold_seconds(self, run_id: str) -> int:
        """How long a run's holds wait for a human, as the run recorded it (runs recorded
        before it was kept, and the heartbeat's proposals: the default)."""
        run = self.ports.runs.get(run_id)
        timeout = None if run is None else run.hold_timeout_seconds
        return timeout or DEFAULT_HOLD_SECONDS

    def handle(self, principal_id: str) -> str:
        """A principal's handle, or its id when it has none here."""
        return self.handles.get(principal_id, principal_id)


class ItemSource(Protocol):
    """Something that knows of work waiting for a human."""

    @property
    def name(self) -> str:
        """The source's name, as the queue reports it."""
        ...

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        """Every item of the organization, unfiltered (the queue applies visibility)."""
        ...


def _money(hold: HeldIntent) -> int:
    tool = REGISTRY.get(hold.tool)
    amount = hold.payload.get(tool.money_param) if tool and tool.money_param else None
    return amount if isinstance(amount, int) and amount >= 0 else hold.cost_cents


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


class HeldIntents:
    """Intents the broker held for a human: approve or deny, with what the broker said
    would release them."""

    name = "held_intents"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        for hold in context.story.open_holds():
            money = _money(hold)
            # A hold the reader may read may rest on intents they may not (a collision).
            rests_on, reason = evidence_for(
                context.readable, hold.evidence, hold.reason, context.intent_reach
            )
            evidence = [
                Evidence(label="reason", detail=reason, ref=f"audit#{hold.audit_seq}"),
                Evidence(label="rule", detail=f"{hold.stage}: {hold.rule}"),
                *(Evidence(label="release", detail=r) for r in hold.release),
                *(Evidence(label="rests on", detail="intent", ref=i) for i in rests_on),
                *(Evidence(label="refused review", detail=r) for r in hold.refused_reviews),
                Evidence(label="justification", detail=hold.justification),
            ]
            base = f"/v1/intents/{hold.intent_id}"
            reach = context.run_reach.get(hold.run_id, set()) | set(hold.reach)
            yield QueueItem(
                kind=ItemKind.HELD_INTENT,
                subject_id=hold.intent_id,
                hold_seq=hold.audit_seq,
                title=f"{hold.tool} {_dollars(money)} by {context.handle(hold.principal_id)}",
                waiting_since=hold.held_at,
                due=hold.held_at + timedelta(seconds=context.hold_seconds(hold.run_id)),
                money_cents=money,
                reach=tuple(sorted(reach)),
                evidence=tuple(evidence),
                actions=(
                    ItemAction(
                        kind=ActionKind.APPROVE,
                        path=f"{base}/approve",
                        cli=f"verletica approve {hold.intent_id}",
                    ),
                    ItemAction(
                        kind=ActionKind.DENY,
                        path=f"{base}/deny",
                        cli=f"verletica deny {hold.intent_id}",
                    ),
                ),
            )


def _constraint(commitment: Commitment) -> str:
    match commitment.constraint:
        case SpendCap(limit_cents=cents, currency=currency):
            return f"spend cap {_dollars(cents)} {currency}"
        case Obligation(text=text):
            return f"obligation: {text}"
    # Other kinds (deliveries, notice periods…) as their fields say them.
    fields = commitment.constraint.model_dump(mode="json")
    kind = fields.pop("kind", "constraint")
    return f"{kind}: " + ", ".join(f"{k} {v}" for k, v in fields.items() if v is not None)


class PendingCommitments:
    """Commitments extracted from documents: evidence, binding nothing, until a human
    confirms them (or rejects them)."""

    name = "pending_commitments"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        for c in context.ports.directory.commitments(context.org_id):
            if c.state is not ReviewState.EXTRACTED:
                continue
            base = f"/v1/commitments/{c.id}"
            yield QueueItem(
                kind=ItemKind.COMMITMENT,
                subject_id=c.id,
                title=f"confirm commitment: {c.title}",
                waiting_since=context.story.commitments_recorded.get(c.id, c.valid_from),
                money_cents=c.constraint.limit_cents
                if isinstance(c.constraint, SpendCap)
                else None,
                reach=c.projects,
                evidence=(
                    Evidence(label="constraint", detail=_constraint(c)),
                    Evidence(label="source", detail=c.provenance.source),
                    Evidence(label="excerpt", detail=c.provenance.excerpt),
                    Evidence(label="recorded by", detail=context.handle(c.provenance.recorded_by)),
                    Evidence(label="projects", detail=", ".join(c.projects) or "the whole org"),
                ),
                # Listed to whoever sees it: the endpoint checks who may review it (the
                # founder, or an approver on every project it binds) and records the answer.
                actions=(
                    ItemAction(
                        kind=ActionKind.CONFIRM,
                        path=f"{base}/confirm",
                        cli=f"verletica commit confirm {c.id}",
                    ),
                    ItemAction(
                        kind=ActionKind.REJECT,
                        path=f"{base}/reject",
                        cli=f"verletica commit reject {c.id} --reason <why>",
                        needs=("reason",),
                    ),
                ),
            )


class FailedRuns:
    """Runs that ended without doing their work (refused at resolve, a refused model
    reply, a failed write, a failure or cancellation): one item each, with the class of
    what stopped it and what would help; retry it while its class allows."""

    name = "failed_runs"

    def _item(self, context: QueueContext, failed: FailedRun) -> QueueItem | None:
        run = context.ports.runs.get(failed.run_id)
        if run is None or run.org_id != context.org_id:
            return None
        failure = failed.failure
        left = retries_left(failure, context.story.tries(run.id))
        return QueueItem(
            kind=ItemKind.FAILED_RUN,
            subject_id=run.id,
            title=f"run of {context.handle(run.agent_id)} failed ({failure}): {run.task[:80]}",
            waiting_since=failed.failed_at,
            reach=tuple(sorted(context.run_reach.get(run.id, set()) | set(run.projects))),
            evidence=(
                Evidence(label="class", detail=str(failure)),
                Evidence(label="reason", detail=failed.reason, ref=f"audit#{failed.audit_seq}"),
                Evidence(label="rule", detail=f"{failed.stage}: {failed.rule}"),
                Evidence(label="next step", detail=NEXT_STEP[failure]),
                Evidence(label="retries left", detail=str(left)),
                Evidence(label="task", detail=run.task),
                Evidence(label="started by", detail=context.handle(run.started_by or "system")),
            ),
            actions=(
                ItemAction(
                    kind=ActionKind.RETRY,
                    path=f"/v1/runs/{run.id}/retry",
                    cli=f"verletica retry {run.id}",
                ),
            )
            if left
            else (),
        )

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        for failed in context.story.failed_runs():
            item = self._item(context, failed)
            if item is not None:
                yield item


class AgentReplies:
    """Runs whose agent asked the human a question instead of acting: answer it, and a
    new run goes on with the answer."""

    name = "agent_replies"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        for asked in context.story.open_questions():
            run = context.ports.runs.get(asked.run_id)
            if run is None or run.org_id != context.org_id:
                continue
            yield QueueItem(
                kind=ItemKind.AGENT_REPLY,
                subject_id=run.id,
                title=f"{context.handle(asked.agent_id)} asks: {asked.question[:100]}",
                waiting_since=asked.asked_at,
                reach=tuple(sorted(context.run_reach.get(run.id, set()) | set(run.projects))),
                evidence=(
                    Evidence(
                        label="question", detail=asked.question, ref=f"audit#{asked.audit_seq}"
                    ),
                    Evidence(label="summary", detail=asked.summary),
                    Evidence(label="task", detail=run.task),
                    Evidence(label="asked", detail=context.handle(run.started_by or "system")),
                ),
                actions=(
                    ItemAction(
                        kind=ActionKind.ANSWER,
                        path=f"/v1/runs/{run.id}/answer",
                        cli=f'verletica answer {run.id} "<answer>"',
                        needs=("answer",),
                    ),
                ),
            )


class ProcessOffers:
    """Episodes merged into a process offer: confirm it into a named playbook. Only what
    is offered (:func:`domain.offers.playbooks.offered`): a recurring process, never a
    one-off, never one that could not be confirmed (across a barrier)."""

    name = "process_offers"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.offers
        if store is None:
            return
        barriers = context.ports.directory.barriers(context.org_id)
        for offer in store.offers(context.org_id):
            if offer.state is not OfferState.OPEN or not offered(offer, barriers):
                continue
            yield QueueItem(
                kind=ItemKind.PROCESS_OFFER,
                subject_id=offer.id,
                title=f"process offer: {' → '.join(offer.tools)} ({len(offer.episodes)} episodes)",
                waiting_since=offer.created_at,
                reach=offer.projects,
                evidence=(
                    *(Evidence(label="step", detail=f"{s.tool}: {s.text}") for s in offer.steps),
                    *(Evidence(label="episode", detail="episode", ref=e) for e in offer.episodes),
                ),
                actions=(
                    ItemAction(
                        kind=ActionKind.CONFIRM,
                        path=f"/v1/offers/{offer.id}/confirm",
                        cli=f"verletica offers confirm {offer.id} --name <playbook>",
                        needs=("name",),
                    ),
                ),
            )


def _resolve(finding_id: str) -> ItemAction:
    """Resolving a finding, of either kind: one endpoint and one command take both."""
    return ItemAction(
        kind=ActionKind.RESOLVE,
        path=f"/v1/findings/{finding_id}/resolve",
        cli=f"verletica findings resolve {finding_id} --reason <why>",
        needs=("reason",),
    )


class DriftFindings:
    """A confirmed playbook whose later episodes consistently miss their outcome:
    resolve the finding, saying why."""

    name = "drift_findings"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.offers
        for finding in store.findings(context.org_id) if store is not None else ():
            if finding.resolved_at is not None:
                continue
            yield QueueItem(
                kind=ItemKind.DRIFT_FINDING,
                subject_id=finding.id,
                title=f"playbook {finding.playbook!r} drifts: "
                f"{finding.missed} of its last {len(finding.episodes)} episodes missed",
                waiting_since=finding.flagged_at,
                reach=finding.projects,
                evidence=(
                    Evidence(label="playbook", detail=finding.playbook, ref=finding.offer_id),
                    *(Evidence(label="episode", detail="episode", ref=e) for e in finding.episodes),
                ),
                actions=(_resolve(finding.id),),
            )


class FiledFindings:
    """Findings filed through the broker (the heartbeat's, by Sentinel): what the check
    found and the records it rests on; resolve one, saying why."""

    name = "findings"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.heartbeats
        for finding in store.findings(context.org_id) if store is not None else ():
            if finding.resolved_at is not None:
                continue
            yield QueueItem(
                kind=ItemKind.FINDING,
                subject_id=finding.id,
                title=f"{finding.kind} ({finding.severity}) filed by "
                f"{context.handle(finding.principal_id)}: {finding.summary[:80]}",
                waiting_since=finding.filed_at,
                reach=tuple(sorted(finding.projects)),
                evidence=(
                    Evidence(label="summary", detail=finding.summary, ref=finding.id),
                    Evidence(label="check", detail=f"{finding.kind}: {finding.subject}"),
                    *(
                        (Evidence(label="cites", detail="commitment", ref=finding.cites),)
                        if finding.cites
                        else ()
                    ),
                    *(Evidence(label="rests on", detail="record", ref=e) for e in finding.evidence),
                ),
                actions=(_resolve(finding.id),),
            )


class StandingHolds:
    """Standing holds placed through the broker (Sentinel's, on spending whose cap
    expired): every payment there waits for a human until one releases the hold."""

    name = "standing_holds"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.heartbeats
        for hold in store.standing_holds(context.org_id) if store is not None else ():
            if hold.released_at is not None:
                continue
            where = ", ".join(hold.projects) or "the whole organization"
            yield QueueItem(
                kind=ItemKind.STANDING_HOLD,
                subject_id=hold.id,
                title=f"spending on {where} is on hold, placed by {context.handle(hold.placed_by)}",
                waiting_since=hold.placed_at,
                reach=hold.projects,
                evidence=(
                    Evidence(label="reason", detail=hold.reason, ref=hold.id),
                    Evidence(label="subject", detail=hold.subject),
                    *(
                        (Evidence(label="cites", detail="commitment", ref=hold.cites),)
                        if hold.cites
                        else ()
                    ),
                    Evidence(
                        label="release",
                        detail="renew or retire the commitment it cites, then release the "
                        "hold; meanwhile each payment there waits for an approver",
                    ),
                ),
                actions=(
                    ItemAction(
                        kind=ActionKind.RELEASE,
                        path=f"/v1/holds/{hold.id}/release",
                        cli=f"verletica holds release {hold.id} --reason <why>",
                        needs=("reason",),
                    ),
                ),
            )


SOURCES: tuple[ItemSource, ...] = (
    HeldIntents(),
    StandingHolds(),
    PendingCommitments(),
    FailedRuns(),
    AgentReplies(),
    ProcessOffers(),
    DriftFindings(),
    FiledFindings(),
)
"""The sources the queue reads. A new one is added here."""


class SourceStatus(BaseModel):
    """Whether a kind of work for humans reaches the queue yet."""

    name: str
    wired: bool
    note: str = ""


NOT_WIRED: tuple[SourceStatus, ...] = ()
"""Kinds of work the queue will show once their sources exist."""


class NeedsYou(BaseModel):
    """The queue as one reader sees it: visible items most urgent first, then the ones
    withheld from this reader (nothing of them but that they exist)."""

    org_id: str
    generated_at: datetime
    items: list[QueueItem | WithheldItem]
    withheld: int
    """How many items concern projects the reader may not read."""
    sources: list[SourceStatus]


def _context(
    ports: Ports, org_id: str, actor_id: str, story: ChainStory
) -> tuple[QueueContext, frozenset[str] | None]:
    org, actor = member(ports, org_id, actor_id)
    run_reach, intent_reach = ports.runs.reaches(org_id)
    context = QueueContext(
        ports=ports,
        org_id=org_id,
        actor_id=actor_id,
        founder=actor_id == org.founder_id,
        now=ports.clock(),
        story=story,
        run_reach=run_reach,
        intent_reach=intent_reach,
        handles={p.id: p.handle for p in ports.directory.principals(org_id)},
        readable=readable(ports, org, actor),
    )
    return context, context.readable


def needs_you(
    ports: Ports, org_id: str, actor_id: str, sources: Sequence[ItemSource] = SOURCES
) -> NeedsYou:
    """What waits for a human in ``org_id``, as ``actor_id`` may see it."""
    member(ports, org_id, actor_id)  # a stranger learns nothing, and folds nothing
    with ports.stories.story(ports.audit, org_id) as story:
        context, projects = _context(ports, org_id, actor_id, story)
        found = [item for source in sources for item in source.items(context)]
    ranked = rank(found, context.now)
    items = for_reader(ranked, projects)
    return NeedsYou(
        org_id=org_id,
        generated_at=context.now,
        items=items,
        withheld=sum(isinstance(item, WithheldItem) for item in items),
        sources=[
            *(SourceStatus(name=source.name, wired=True) for source in sources),
            *(s for s in NOT_WIRED if s.name not in {source.name for source in sources}),
        ],
    )


def _readable(
    entries: list[AuditEntry],
    projects: frozenset[str] | None,
    run_reach: dict[str, set[str]],
    intent_reach: dict[str, set[str]],
) -> list[AuditEntry]:
    """The entries a reader of ``projects`` may read in full (as the audit trail shows
    them): configuration entries, and entries about intents and runs within them."""
    if projects is None:
        return entries
    kept = []
    for entry in entries:
        run_id = entry.payload.get("run_id")
        if entry.intent_id is not None:
            reach = intent_reach.get(entry.intent_id, set())
        elif isinstance(run_id, str):
            reach = run_reach.get(run_id, set())
        else:
            reach = set()
        if may_read(projects, reach):
            kept.append(entry)
    return kept


def metrics(ports: Ports, org_id: str, actor_id: str) -> AutonomyMetrics:
    """The organization's autonomy metrics, over the work ``actor_id`` may read (the
    founder: all of it): the chain's story, and the findings (drift, and filed through the
    broker) and process offers on projects it may read."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    run_reach, intent_reach = ports.runs.reaches(org_id)
    entries = _readable(ports.audit.entries(org_id), projects, run_reach, intent_reach)
    store, filed = ports.offers, ports.heartbeats
    findings = [
        (f.flagged_at, f.resolved_at)
        for f in (store.findings(org_id) if store is not None else ())
        if may_read(projects, f.projects)
    ] + [
        (f.filed_at, f.resolved_at)
        for f in (filed.findings(org_id) if filed is not None else ())
        if may_read(projects, f.projects)
    ]
    offers = [
        o
        for o in (store.offers(org_id) if store is not None else ())
        if may_read(projects, o.projects)
    ]
    now = ports.clock()
    return autonomy(
        read_chain(entries),
        now,
        findings=finding_resolution(findings, now),
        process_precision=process_precision(
            [(o.state is OfferState.CONFIRMED, len(o.episodes)) for o in offers]
        ),
    )


class FailedRunView(BaseModel):
    """A failed run in the list: what stopped it, its class, and what may be done."""

    run_id: str
    agent: str
    task: str
    failure: FailureClass
    stage: str
    rule: str
    reason: str
    failed_at: datetime
    retries_left: int
    retried_by: str | None = None
    """The run that retried it, if any."""
    stopped_by_broker: bool
    """True when every intent it proposed was stopped (rejected, denied, expired) rather
    than the run failing: the broker's record is the item (such runs are not queued)."""


def failed_runs(
    ports: Ports, org_id: str, actor_id: str, failure: FailureClass | None = None
) -> list[FailedRunView]:
    """The organization's failed runs that ``actor_id`` may read, newest first, of one
    class or all: runs that failed or were refused, and runs whose every intent the
    broker or a human stopped."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    run_reach, _ = ports.runs.reaches(org_id)
    story = read_chain(ports.audit.entries(org_id))
    handles = {p.id: p.handle for p in ports.directory.principals(org_id)}
    found: list[FailedRunView] = []
    listed = [
        *((f, False) for f in {**story.failures, **story.run_refusals}.values()),
        *((f, True) for f in story.stopped_runs()),
    ]
    for failed, stopped in listed:
        run = ports.runs.get(failed.run_id)
        if run is None or run.org_id != org_id:
            continue
        if not may_read(projects, tuple(run_reach.get(run.id, set()) | set(run.projects))):
            continue
        if failure is not None and failed.failure is not failure:
            continue
        found.append(
            FailedRunView(
                run_id=run.id,
                agent=handles.get(run.agent_id, run.agent_id),
                task=run.task,
                failure=failed.failure,
                stage=failed.stage,
                rule=failed.rule,
                reason=failed.reason,
                failed_at=failed.failed_at,
                # A run the broker stopped did not fail: it is not retried as it is.
                retries_left=0
                if stopped or run.id in story.retried
                else retries_left(failed.failure, story.tries(run.id)),
                retried_by=story.retried.get(run.id),
                stopped_by_broker=stopped,
            )
        )
    return sorted(found, key=lambda f: (f.failed_at, f.run_id), reverse=True)


ENDED_BADLY = frozenset({"failed", "terminated", "timed_out", "canceled"})
"""Workflow statuses of a run that ended without finishing its work."""


class RunRetried(BaseModel):
    """A failed run started again: same agent, same task, on behalf of the retrier."""

    run_id: str
    """The run that failed."""
    retry: RunStarted


MAX_ANSWER = MAX_REASON


class RunAnswered(BaseModel):
    """A human's answer to a run's question: a new run of the same agent goes on with it."""

    run_id: str
    """The run that asked."""
    answer: RunStarted


def answered_task(task: str, question: str, answer: str, handle: str) -> str:
    """The task of the run that goes on: the first task, the question and the answer."""
    return f"{task}\n\nYou asked: {question}\nThe answer from {handle}: {answer}"


async def answer_run(ports: Ports, run_id: str, actor_id: str, answer: str) -> RunAnswered:
    """Answer the question a run's agent asked, on behalf of ``actor_id`` (who must be
    able to read the run): a new run of the agent starts with the task, the question and
    the answer. Once: a second answer is a Conflict (the first stands), on the record."""
    answer = answer.strip()
    if not answer or len(answer) > MAX_ANSWER:
        raise ValueError(f"an answer is text of 1 to {MAX_ANSWER} characters")
    run = run_for(ports, run_id, actor_id)
    story = read_chain(ports.audit.entries(run.org_id))
    asked = story.questions.get(run_id)
    if asked is None:
        raise Conflict(f"run {run_id} asked no question")
    if run_id in story.answered:
        raise Conflict(f"run {run_id}'s question is answered already")
    actor = ports.directory.principal(run.org_id, actor_id)
    started = await start_run(
        ports,
        run.org_id,
        actor_id,
        run.agent_id,
        answered_task(run.task, asked.question, answer, actor.handle),
        client_key=f"answer:{run_id}",
    )
    answering = ports.runs.get(started.run_id)
    if answering is None or answering.started_by != actor_id:
        # The same answer given at the same time by someone else: theirs stands.
        raise Conflict(f"run {run_id}'s question is answered already")
    with ports.governance.unit(run.org_id, ports.clock()) as unit:
        if unit.recorded(f"answer:{run_id}") is not None:
            raise Conflict(f"run {run_id}'s question is answered already")
        unit.append(answer_draft(run_id, started.run_id, actor_id))
    return RunAnswered(run_id=run_id, answer=started)


async def retry_run(ports: Ports, run_id: str, actor_id: str) -> RunRetried:
    """Start a failed run again, with its agent and task, on behalf of ``actor_id`` (who
    must be able to read it). Once per failed run: a second retry returns the first one
    (the new run's client key names the failed run), and the retry is on the record."""
    run = run_for(ports, run_id, actor_id)
    if run.client_key is not None and run.client_key.startswith(("deliberation:", "graph:")):
        # Its task is the deliberation's or the graph's, not one a plain run could redo.
        raise Conflict(f"run {run_id} belongs to a deliberation or a work graph: start that again")
    story = read_chain(ports.audit.entries(run.org_id))
    failed = story.failures.get(run_id) or story.run_refusals.get(run_id)
    if failed is not None and run_id not in story.retried:
        tries = story.tries(run_id)
        if not retries_left(failed.failure, tries):
            raise Conflict(
                f"run {run_id} failed ({failed.failure}) and has been retried {tries} "
                f"time(s): {RETRIES[failed.failure]} allowed; {NEXT_STEP[failed.failure]}"
            )
    if run_id not in {*story.failures, *story.run_refusals, *story.retried}:
        # A run terminated (it runs no code of its own), or one that failed before runs
        # recorded their failures, is on no chain entry: its workflow says it.
        status, state = await ports.gateway.state(run.workflow_id)
        ended = status in ENDED_BADLY or (state is not None and state.status is RunStatus.FAILED)
        if not ended:
            raise Conflict(f"run {run_id} did not fail: there is nothing to retry")
    started = await start_run(
        ports, run.org_id, actor_id, run.agent_id, run.task, client_key=f"retry:{run_id}"
    )
    with ports.governance.unit(run.org_id, ports.clock()) as unit:
        unit.append(retry_draft(run_id, started.run_id, actor_id))
    return RunRetried(run_id=run_id, retry=started)
