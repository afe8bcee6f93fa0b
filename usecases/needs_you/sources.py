"""Where the queue's items come from: what every source reads (:class:`QueueContext`),
the shape of a source (:class:`ItemSource`), and the sources of what the broker and the
runs leave for a human: held intents, standing holds, commitments to confirm, failed runs
and agents' questions. (Offers and findings are in :mod:`~usecases.needs_you.findings`.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from domain.governance.intents import repeats_a_write
from domain.governance.standing import requester_words
from domain.needs_you.chain import ChainStory, FailedRun, HeldIntent
from domain.needs_you.items import ActionKind, Evidence, ItemAction, ItemKind, QueueItem
from domain.organization.contracts import SpendCap
from domain.organization.kinds import ReviewState
from domain.organization.visibility import causes_for, evidence_for
from domain.runs.failures import NEXT_STEP, retries_left
from domain.runs.run import DEFAULT_HOLD_SECONDS, RunRecord
from domain.tools import REGISTRY
from domain.words import (
    action,
    already_done,
    causes_in_order,
    constraint_words,
    document_words,
    failure_reason,
    projects_named,
)
from usecases.context import Ports
from usecases.runs import asker_of


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
    """Principal id → name (a person's or an agent's display name; its handle when it
    has none), for titles: people and agents by name."""
    readable: frozenset[str] | None
    """The projects the asker may read (None: all): what an item's evidence may name."""

    held_runs: dict[str, RunRecord] = field(default_factory=dict)
    """The records of the runs whose intents are held, read at once."""

    def hold_seconds(self, run_id: str) -> int:
        """How long a run's holds wait for a human, as the run recorded it (runs recorded
        before it was kept, and the heartbeat's proposals: the default)."""
        run = self.held_runs.get(run_id)
        timeout = None if run is None else run.hold_timeout_seconds
        return timeout or DEFAULT_HOLD_SECONDS

    def handle(self, principal_id: str) -> str:
        """A principal's name, or its id when it has none here."""
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
    # what the broker counts: the larger of the amount and the declared cost
    if isinstance(amount, int) and amount >= 0:
        return max(amount, hold.cost_cents)
    return hold.cost_cents


def _title(hold: HeldIntent, amount: int, by: str) -> str:
    """A held intent as a line an owner reads: ``A payment of $2,500.00 to Northwind, by
    ledger``."""
    return f"{action(hold.tool, hold.payload, amount)}, by {by}"


ALREADY_DONE = "already done"
"""The label of a held write's first evidence when approving it would do it again."""


def _done_before(hold: HeldIntent) -> str:
    """What was already done, as an owner reads it: approving does it a second time."""
    again = {"payments.pay": "pays it", "email.send": "sends it"}.get(hold.tool, "does it")
    return f"{already_done(hold.tool, hold.payload)}: approving {again} a second time."


def _asker(context: QueueContext, hold: HeldIntent) -> str:
    """Who the held intent's run acts for: the intent says (or, for one recorded before
    intents named their requester, the run's record does); the system when no one asked."""
    asker = asker_of(
        context.ports, hold.requested_by, hold.run_id, context.held_runs.get(hold.run_id)
    )
    return "system" if asker is None else requester_words(asker, context.handles)


class HeldIntents:
    """Intents the broker held for a human: approve or deny, with what the broker said
    would release them."""

    name = "held_intents"

    def __init__(self, intent_id: str | None = None) -> None:
        self._only = intent_id
        """One intent's hold alone (None: every open hold)."""

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        for hold in context.story.open_holds():
            if self._only is not None and hold.intent_id != self._only:
                continue
            amount = _money(hold)
            # A hold the reader may read may rest on intents they may not (a collision).
            rests_on, reason = evidence_for(
                context.readable, hold.evidence, hold.reason, context.intent_reach
            )
            causes = causes_for(context.readable, hold.evidence, hold.causes, context.intent_reach)
            repeat = repeats_a_write(hold.rule)
            evidence = [
                *((Evidence(label=ALREADY_DONE, detail=_done_before(hold)),) if repeat else ()),
                # each cause a line, the most worrying first
                *(
                    Evidence(
                        label="reason", detail=line, ref=f"audit#{hold.audit_seq}", severity=tone
                    )
                    for tone, line in causes_in_order(hold.rule, reason, causes)
                ),
                Evidence(label="rule", detail=f"{hold.stage}: {hold.rule}"),
                *(Evidence(label="release", detail=r) for r in hold.release),
                *(
                    Evidence(label="rests on", detail="record", ref=i.removeprefix("record:"))
                    if i.startswith("record:")
                    else Evidence(label="rests on", detail="intent", ref=i)
                    for i in rests_on
                ),
                *(Evidence(label="refused review", detail=r) for r in hold.refused_reviews),
                Evidence(label="justification", detail=hold.justification),
                Evidence(label="asked by", detail=_asker(context, hold)),
            ]
            base = f"/v1/intents/{hold.intent_id}"
            reach = context.run_reach.get(hold.run_id, set()) | set(hold.reach)
            yield QueueItem(
                kind=ItemKind.HELD_INTENT,
                subject_id=hold.intent_id,
                hold_seq=hold.audit_seq,
                title=_title(hold, amount, context.handle(hold.principal_id)),
                waiting_since=hold.held_at,
                due=hold.held_at + timedelta(seconds=context.hold_seconds(hold.run_id)),
                money_cents=amount,
                reach=tuple(sorted(reach)),
                evidence=tuple(evidence),
                actions=(
                    ItemAction(
                        kind=ActionKind.APPROVE,
                        path=f"{base}/approve",
                        cli=f"verletica approve {hold.intent_id}" + (" --again" if repeat else ""),
                        needs=("again",) if repeat else (),
                    ),
                    *(
                        (
                            ItemAction(
                                kind=ActionKind.ESTABLISH,
                                path=f"{base}/approve",
                                cli=f"verletica approve {hold.intent_id} --establish"
                                + (" --again" if repeat else ""),
                                needs=("establish", "again") if repeat else ("establish",),
                            ),
                        )
                        if context.founder and "new_destination" in hold.rule.split("+")
                        else ()
                    ),
                    ItemAction(
                        kind=ActionKind.DENY,
                        path=f"{base}/deny",
                        cli=f"verletica deny {hold.intent_id}",
                    ),
                ),
            )


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
                title=f"Confirm the commitment: {c.title}",
                waiting_since=context.story.commitments_recorded.get(c.id, c.valid_from),
                money_cents=c.constraint.limit_cents
                if isinstance(c.constraint, SpendCap)
                else None,
                reach=c.projects,
                evidence=(
                    Evidence(label="constraint", detail=constraint_words(c.constraint)),
                    Evidence(label="source", detail=document_words(c.provenance.source)),
                    Evidence(label="document", detail=c.provenance.document or c.provenance.source),
                    Evidence(label="excerpt", detail=c.provenance.excerpt),
                    Evidence(label="recorded by", detail=context.handle(c.provenance.recorded_by)),
                    Evidence(label="projects", detail=", ".join(c.projects) or "the whole firm"),
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
            title=f"{context.handle(run.agent_id)}'s run stopped: {run.task[:80]}",
            waiting_since=failed.failed_at,
            reach=tuple(sorted(context.run_reach.get(run.id, set()) | set(run.projects))),
            evidence=(
                Evidence(
                    label="reason",
                    detail=failure_reason(failure, failed.reason, failed.rule, failed.stage),
                    ref=f"audit#{failed.audit_seq}",
                ),
                Evidence(label="class", detail=str(failure)),
                Evidence(label="recorded", detail=failed.reason),
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


class StandingHolds:
    """Standing holds placed through the broker (Sentinel's, on spending whose cap
    expired): every payment there waits for a human until one releases the hold."""

    name = "standing_holds"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.heartbeats
        names: dict[str, str] | None = None  # read once, and only when a hold is open
        for hold in store.standing_holds(context.org_id) if store is not None else ():
            if hold.released_at is not None:
                continue
            if names is None:
                names = {p.slug: p.name for p in context.ports.directory.projects(context.org_id)}
            where = projects_named(hold.projects, names) if hold.projects else "the whole firm"
            yield QueueItem(
                kind=ItemKind.STANDING_HOLD,
                subject_id=hold.id,
                title=f"Spending on {where} is on hold, placed by {context.handle(hold.placed_by)}",
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
