"""What the console's buttons do: each queue action calls the use case its API route
calls (the broker and the chain decide and record, as for any request)."""

from __future__ import annotations

from pydantic import BaseModel

from domain.errors import Forbidden
from domain.needs_you.items import ActionKind, ItemKind
from usecases import commitments, heartbeat, needs_you, offers, runs
from usecases.context import Ports

MAX_TEXT = 2000


class ActRequest(BaseModel):
    """One action on one queue item, as a form sends it."""

    item: ItemKind
    action: ActionKind
    subject: str
    reason: str = ""
    answer: str = ""
    name: str = ""


def _text(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} is required")
    if len(value) > MAX_TEXT:
        raise ValueError(f"{what} is at most {MAX_TEXT} characters")
    return value


async def act(ports: Ports, actor: str, ask: ActRequest) -> str:
    """Take the action; what happened, in a sentence (a refusal raises, as the API's)."""
    subject = ask.subject
    match ask.item, ask.action:
        case ItemKind.HELD_INTENT, ActionKind.APPROVE | ActionKind.DENY:
            approve = ask.action is ActionKind.APPROVE
            # Sent either way (the broker records every decision, a refused one too); the
            # person is told at once when it will be refused for want of authority.
            lacking = runs.approval_outlook(ports, subject, actor)
            await runs.decide_hold(ports, subject, actor, actor, approve, ask.reason.strip())
            verb = "approval" if approve else "denial"
            if lacking is not None:
                raise Forbidden(
                    f"Your {verb} was recorded and refused by the broker: {lacking}. "
                    "Only an approver on every project it reaches may decide it."
                )
            return f"{verb} sent: the broker re-checks it and the run goes on"
        case ItemKind.COMMITMENT, ActionKind.CONFIRM:
            commitments.confirm(ports, subject, actor)
            return "commitment confirmed: it binds from now on"
        case ItemKind.COMMITMENT, ActionKind.REJECT:
            commitments.reject(ports, subject, actor, _text(ask.reason, "a reason"))
            return "commitment rejected: it never binds"
        case ItemKind.FINDING | ItemKind.DRIFT_FINDING, ActionKind.RESOLVE:
            heartbeat.resolve_any_finding(ports, subject, actor, _text(ask.reason, "a reason"))
            return "finding resolved"
        case ItemKind.STANDING_HOLD, ActionKind.RELEASE:
            heartbeat.release_hold(ports, subject, actor, _text(ask.reason, "a reason"))
            return "standing hold released"
        case ItemKind.FAILED_RUN, ActionKind.RETRY:
            retried = await needs_you.retry_run(ports, subject, actor)
            return f"run started again as {retried.retry.run_id[:8]}"
        case ItemKind.AGENT_REPLY, ActionKind.ANSWER:
            answered = await needs_you.answer_run(
                ports, subject, actor, _text(ask.answer, "an answer")
            )
            return f"answered: run {answered.answer.run_id[:8]} goes on with it"
        case ItemKind.PROCESS_OFFER, ActionKind.CONFIRM:
            offers.confirm_offer(ports, subject, actor, _text(ask.name, "a playbook name"))
            return "offer confirmed as a playbook"
    raise ValueError(f"{ask.action.value} does not apply to a {ask.item.value}")
