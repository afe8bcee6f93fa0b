"""What the console's buttons do: each queue action calls the use case its API route
calls (the broker and the chain decide and record, as for any request)."""

from __future__ import annotations

from pydantic import Field

from api.http.routers.needs_you import AnswerBody
from api.http.routers.offers import ConfirmOfferBody
from api.http.schemas import Body, DecisionBody, ReasonBody, RejectBody
from domain.errors import Forbidden
from domain.needs_you.items import ActionKind, ItemKind
from usecases import commitments, heartbeat, needs_you, offers, runs
from usecases.context import Ports

ACT_FIELDS = ("item", "action", "subject", "reason", "answer", "name", "hold", "again")
"""The fields of an action's form that :class:`ActRequest` reads."""


class ActRequest(Body):
    """One action on one queue item, as a form sends it (its text fields are checked by
    the API's own request bodies before anything is done)."""

    item: ItemKind
    action: ActionKind
    subject: str = Field(min_length=1, max_length=100)
    reason: str = ""
    answer: str = ""
    name: str = ""
    hold: int | None = Field(default=None, ge=1)
    """For a held intent: the audit entry of the hold the page showed."""
    again: bool = False
    """For a held write already done: the person ticked that they mean it done again."""


async def act(ports: Ports, actor: str, ask: ActRequest) -> str:
    """Take the action; what happened, in a sentence (a refusal raises, as the API's)."""
    subject = ask.subject
    match ask.item, ask.action:
        case ItemKind.HELD_INTENT, ActionKind.APPROVE | ActionKind.ESTABLISH | ActionKind.DENY:
            approve = ask.action is not ActionKind.DENY
            establish = ask.action is ActionKind.ESTABLISH
            # Sent either way (the broker records every decision, a refused one too); the
            # person is told at once when it will be refused for want of authority.
            body = DecisionBody(reason=ask.reason.strip())
            lacking = runs.approval_outlook(ports, subject, actor)
            await runs.decide_hold(
                ports,
                subject,
                actor,
                actor,
                approve=approve,
                reason=body.reason,
                hold_seq=ask.hold,
                establish=establish,
                again=ask.again,
            )
            verb = "approval" if approve else "denial"
            if lacking is not None:
                raise Forbidden(
                    f"Your {verb} was recorded and refused by the broker: {lacking}. "
                    "Only an approver on every project it reaches may decide it."
                )
            if establish:
                return (
                    "approval sent, and where it goes is now established for its projects: "
                    "the broker re-checks it and the run goes on"
                )
            return f"{verb} sent: the broker re-checks it and the run goes on"
        case ItemKind.COMMITMENT, ActionKind.CONFIRM:
            commitments.confirm(ports, subject, actor)
            return "commitment confirmed: it binds from now on"
        case ItemKind.COMMITMENT, ActionKind.REJECT:
            commitments.reject(ports, subject, actor, RejectBody(reason=ask.reason).reason)
            return "commitment rejected: it never binds"
        case ItemKind.FINDING | ItemKind.DRIFT_FINDING, ActionKind.RESOLVE:
            reason = ReasonBody(reason=ask.reason.strip()).reason
            heartbeat.resolve_any_finding(ports, subject, actor, reason)
            return "finding resolved"
        case ItemKind.STANDING_HOLD, ActionKind.RELEASE:
            reason = ReasonBody(reason=ask.reason.strip()).reason
            heartbeat.release_hold(ports, subject, actor, reason)
            return "standing hold released"
        case ItemKind.FAILED_RUN, ActionKind.RETRY:
            retried = await needs_you.retry_run(ports, subject, actor)
            return f"run started again as {retried.retry.run_id[:8]}"
        case ItemKind.AGENT_REPLY, ActionKind.ANSWER:
            answer = AnswerBody(answer=ask.answer.strip()).answer
            answered = await needs_you.answer_run(ports, subject, actor, answer)
            return f"answered: run {answered.answer.run_id[:8]} goes on with it"
        case ItemKind.PROCESS_OFFER, ActionKind.CONFIRM:
            name = ConfirmOfferBody(name=ask.name.strip()).name
            offers.confirm_offer(ports, subject, actor, name)
            return "offer confirmed as a playbook"
        case ItemKind.PROCESS_OFFER, ActionKind.REJECT:
            reason = ReasonBody(reason=ask.reason.strip()).reason
            offers.decline_offer(ports, subject, actor, reason)
            return "offer declined: it will not be offered again"
    raise ValueError(f"{ask.action.value} does not apply to a {ask.item.value}")
