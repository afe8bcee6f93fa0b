"""Slack and Microsoft Teams: a message to Verletica starts one agent run.

The front door's four checks, in order, on the raw request: the channel's signature,
the sender's identity (their Slack or Teams user linked to an active human), the
replay nonce (Slack: timestamp and signature; Teams: the activity id), the budget.
Only then is the message read as ``<agent> <task>`` and a run started, keyed by the
delivery (Slack's event or trigger id, Teams' activity id) so that a delivery sent
twice never starts two runs.

An account is linked by its owner, the other way round: signed in to the console, they
get a code (good ten minutes, once) and send ``link <code>`` from the account. The
code proves the person; the signed message proves the account; nobody types an id for
someone else, and a code seen later in a channel is spent already. An account that
proves nobody is told how to link, and its refusal is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs

from pydantic import BaseModel

from domain.errors import Conflict
from domain.ingress import Refusal, Unauthenticated
from domain.organization.contracts import Principal
from domain.organization.kinds import IdentityKind, PrincipalKind, PrincipalStatus
from usecases import ingress, runs
from usecases.context import Ports

SLACK_WINDOW = timedelta(minutes=5)
TEAMS_WINDOW = timedelta(minutes=5)
TEAMS_UNDATED_WINDOW = timedelta(days=1)
"""How long a Teams activity id is remembered when its activity carries no time."""
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>|<at>.*?</at>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]{0,200}>")


class Message(BaseModel):
    """A message from a channel, once its signature has been checked."""

    channel: IdentityKind
    user: str
    """The sender's account, qualified by where it lives (Slack ``T…:U…``, its workspace
    and member ids; Teams ``{tenant id}:{object id}``): what a linked identity names."""
    text: str
    delivery: str
    """What names this delivery: the same on a redelivery (a run's client key)."""
    nonce: str
    nonce_expires: datetime


class ChannelAnswer(BaseModel):
    """What the front door answers a channel: a run started (or found again), or why the
    message starts nothing. ``text`` is what the channel shows its user."""

    text: str
    run_id: str | None = None
    created: bool = False
    challenge: str | None = None
    """Slack's URL verification: the challenge, echoed."""


def _form_or_json(body: bytes) -> dict[str, object]:
    text = body.decode("utf-8")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError("the body is not JSON") from exc
        if not isinstance(data, dict):
            raise ValueError("the body is not a JSON object")
        return data
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}


def _string(data: Mapping[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"the message has no {key}")
    return value


def slack_message(body: bytes, headers: Mapping[str, str]) -> Message | str:
    """A slash command (form) or an Events API callback (JSON), read after its signature
    was checked; a URL verification's challenge as a plain string."""
    data = _form_or_json(body)
    sent_at = datetime.fromtimestamp(int(headers["x-slack-request-timestamp"]), UTC)

    def message(user: str, text: object, delivery: str) -> Message:
        return Message(
            channel=IdentityKind.SLACK,
            user=user,
            text=str(text or ""),
            delivery=delivery,
            nonce=f"{headers['x-slack-request-timestamp']}:{headers['x-slack-signature']}",
            nonce_expires=sent_at + SLACK_WINDOW,
        )

    if data.get("type") == "url_verification":
        return _string(data, "challenge")
    team = _string(data, "team_id")  # a member id is unique only within its workspace
    if data.get("type") == "event_callback":
        event = data.get("event")
        if not isinstance(event, dict):
            raise ValueError("the event callback has no event")
        user = f"{team}:{_string(event, 'user')}"
        return message(user, event.get("text"), _string(data, "event_id"))
    user = f"{team}:{_string(data, 'user_id')}"
    return message(user, data.get("text"), _string(data, "trigger_id"))


def teams_message(body: bytes, now: datetime) -> Message:
    """A Teams outgoing-webhook activity, read after its HMAC was checked."""
    data = _form_or_json(body)
    sender = data.get("from")
    if not isinstance(sender, dict):
        raise ValueError("the activity has no sender")
    user = sender.get("aadObjectId")
    if not isinstance(user, str) or not user:
        raise ValueError("the activity's sender has no Entra object id (aadObjectId)")
    user = f"{_tenant(data)}:{user}"
    activity = _string(data, "id")
    expires = now + TEAMS_UNDATED_WINDOW
    sent = data.get("timestamp")
    if isinstance(sent, str):
        try:
            sent_at = datetime.fromisoformat(sent.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError("the activity's timestamp is not a time") from exc
        if sent_at.tzinfo is None or abs(now - sent_at) > TEAMS_WINDOW:
            raise Unauthenticated(Refusal.STALE, "the activity is more than 5 minutes old")
        expires = sent_at + TEAMS_WINDOW
    return Message(
        channel=IdentityKind.TEAMS,
        user=user,
        text=str(data.get("text") or ""),
        delivery=activity,
        nonce=activity,
        nonce_expires=expires,
    )


def _tenant(data: Mapping[str, object]) -> str:
    """The Microsoft Entra tenant an activity comes from (``channelData.tenant.id``, or
    the conversation's ``tenantId``): an object id is unique only within its tenant."""
    channel_data = data.get("channelData")
    conversation = data.get("conversation")
    tenant = channel_data.get("tenant") if isinstance(channel_data, dict) else None
    for found in (
        tenant.get("id") if isinstance(tenant, dict) else None,
        conversation.get("tenantId") if isinstance(conversation, dict) else None,
    ):
        if isinstance(found, str) and found:
            return found
    raise ValueError("the activity names no tenant")


UNLINKED = (
    "Your {channel} account is not linked to you at your firm yet. Sign in to Verletica's "
    "console, open Link a chat account, and send the code it shows you here: {how}. Then "
    "send your message again."
)
HOW = {
    IdentityKind.SLACK: "/verletica link <code>",
    IdentityKind.TEAMS: "@Verletica link <code>",
}
LINKED = "Linked: what you send from this {channel} account acts as {name} from now on."
BAD_CODE = (
    "That code links nothing: it is stale (ten minutes), spent or mistyped. Get a new one "
    "in the console (Link a chat account)."
)


def link_words(text: str) -> str | None:
    """The code of a ``link <code>`` message (mentions and markup aside), or None."""
    words = _TAG.sub(" ", _MENTION.sub(" ", text)).split()
    return words[1] if len(words) == 2 and words[0].lower() == "link" else None


def _agent_and_task(ports: Ports, sender: Principal, text: str) -> tuple[Principal, str] | str:
    """The agent named by the message's first word and the task after it, or what to
    tell the sender."""
    words = _TAG.sub(" ", _MENTION.sub(" ", text)).split(maxsplit=1)
    agents = [
        p
        for p in ports.directory.principals(sender.org_id)
        if p.kind is PrincipalKind.AGENT and p.status is PrincipalStatus.ACTIVE
    ]
    usage = "Write '<agent> <task>', e.g. 'orion Send the kickoff agenda'. Agents: " + ", ".join(
        sorted(a.handle for a in agents)
    )
    if len(words) < 2:
        return usage
    name, task = words[0].lstrip("@").lower(), words[1].strip()
    for agent in agents:
        if name in (agent.handle.lower(), agent.id):
            return agent, task
    return f"No agent '{name}'. {usage}"


def _linked(
    ports: Ports, channel: IdentityKind, message: Message, code: str, path: str
) -> ChannelAnswer:
    """A ``link <code>`` message: the account it came from linked to the code's person,
    or why not (a refusal recorded, in words the sender can act on)."""
    try:
        person = ingress.link_chat(ports, channel, message.user, code)
    except Unauthenticated as refused:
        ingress.record_refusal(ports, channel.value, path, refused)
        return ChannelAnswer(text=BAD_CODE)
    except Conflict as conflict:
        return ChannelAnswer(text=f"{conflict}: nothing changed.")
    name = person.display_name or person.handle
    return ChannelAnswer(text=LINKED.format(channel=channel.value.capitalize(), name=name))


async def receive(
    ports: Ports,
    channel: IdentityKind,
    headers: Mapping[str, str],
    body: bytes,
    path: str,
) -> ChannelAnswer:
    """Check a channel request and start its run (see the module)."""
    now = ports.clock()

    with ingress.refusals_recorded(ports, channel.value, path):
        signature = ports.channels.get(channel)
        if signature is None:
            raise Unauthenticated(Refusal.NOT_CONFIGURED, f"no {channel} secret is configured")
        signature.verify(headers, body, now)  # 1. signature
        try:
            message = (
                slack_message(body, headers)
                if channel is IdentityKind.SLACK
                else teams_message(body, now)
            )
        except (ValueError, UnicodeDecodeError) as exc:
            raise Unauthenticated(Refusal.MALFORMED, str(exc)) from exc
        if isinstance(message, str):
            return ChannelAnswer(text="", challenge=message)
        code = link_words(message.text)
        if code is not None:  # 2. identity, proven the other way round: see the module
            return _linked(ports, channel, message, code, path)
        try:
            sender = ingress.proven(ports, channel, message.user)  # 2. identity
        except Unauthenticated as refused:
            if refused.reason is not Refusal.UNKNOWN_SUBJECT:
                raise
            # Refused, on the record, and told how its owner links it (no link, no code:
            # the owner gets one by signing in, and sends it from here).
            ingress.record_refusal(ports, channel.value, path, refused)
            text = UNLINKED.format(channel=channel.value.capitalize(), how=HOW[channel])
            return ChannelAnswer(text=text)
        ingress.admit(  # 3. replay, 4. budget
            ports, sender, channel.value, message.nonce, message.nonce_expires
        )
    chosen = _agent_and_task(ports, sender, message.text)
    if isinstance(chosen, str):
        return ChannelAnswer(text=chosen)
    agent, task = chosen
    started = await runs.start_run(
        ports,
        sender.org_id,
        sender.id,
        runs.StartRun(agent.id, task, client_key=f"{channel.value}:{message.delivery}"),
    )
    verb = "Started" if started.created else "Already started"
    return ChannelAnswer(
        text=f"{verb} run {started.run_id} for {agent.handle}: {started.ui_url}",
        run_id=started.run_id,
        created=started.created,
    )
