"""Notices: write what is new for each person, then deliver what waits to be delivered.

What a person is told is read from their own needs-you queue (:func:`needs_you`), so a
notice holds only what that person may read; it is told the moment it appears to those
who may decide it (:func:`~domain.notices.decides`), and once a day every person with
something waiting gets a digest. Delivery is the mail relay's discipline: claimed under
a lease, each attempt recorded, nothing delivered twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from domain.needs_you.items import QueueItem
from domain.notices import (
    TELLS,
    Channel,
    Console,
    Notice,
    NoticeAttempt,
    NoticeOutbox,
    Notifier,
    Reply,
    decides,
    digest,
    digest_due,
    new_notices,
    outcome_of,
)
from domain.organization.contracts import Frozen, Identity, Principal
from domain.organization.kinds import IdentityKind, PrincipalKind, PrincipalStatus
from domain.relay import MAX_ATTEMPTS
from usecases.context import Ports
from usecases.needs_you import needs_you

_LINKED = {IdentityKind.SLACK: Channel.SLACK, IdentityKind.TEAMS: Channel.TEAMS}


class NoticeSettings(Frozen):
    """Where notices go and when the digest is written."""

    console: Console
    channels: frozenset[Channel]
    """The channels this deployment can deliver on (email needs an SMTP server; Slack a
    bot token; Teams a webhook)."""
    digest_hour: int | None = 8
    """The hour (UTC) from which the day's digest is written; None: no digest."""


def addresses(
    person: Principal, identities: list[Identity], channels: frozenset[Channel]
) -> dict[Channel, str]:
    """Where ``person`` hears from Verletica: their email address, and their Slack and
    Teams accounts where linked (on the channels the deployment delivers on)."""
    found: dict[Channel, str] = {}
    if Channel.EMAIL in channels and person.email:
        found[Channel.EMAIL] = person.email
    for identity in identities:
        channel = _LINKED.get(identity.kind)
        if identity.principal_id == person.id and channel in channels and channel not in found:
            # Slack's ``team:user`` and Teams' ``tenant:object``: the user is the last part
            found[channel] = identity.external_id.rpartition(":")[2]
    return found


def write(
    ports: Ports, outbox: NoticeOutbox, settings: NoticeSettings, org_id: str
) -> list[Notice]:
    """Write what is new for each person of ``org_id``: new holds and findings for those
    who may decide them, and the day's digest when it is due. Returns what was written."""
    org = ports.directory.org(org_id)
    now = ports.clock()
    staffing = ports.directory.staffing(org_id)
    identities = ports.directory.identities(org_id)
    names = {p.slug: p.name for p in ports.directory.projects(org_id)}
    written: list[Notice] = []
    for person in ports.directory.principals(org_id):
        if person.kind is not PrincipalKind.HUMAN or person.status is not PrincipalStatus.ACTIVE:
            continue
        to = addresses(person, identities, settings.channels)
        if not to:
            continue
        queue = needs_you(ports, org_id, person.id)
        visible = [item for item in queue.items if isinstance(item, QueueItem)]
        waiting = {item.key for item in visible}
        told = outbox.told(org_id, person.id)
        fresh = [
            item
            for item in visible
            if item.kind in TELLS
            and item.key not in told
            and decides(person, staffing, item, org.founder_id, now)
        ]
        notices = new_notices(person, to, fresh, names, settings.console, now)
        day = (
            None
            if settings.digest_hour is None
            else digest_due(now, settings.digest_hour, outbox.last_digest(org_id, person.id))
        )
        if day is not None:
            notices += digest(
                person, to, visible, queue.withheld, names, settings.console, day, now
            )
        if notices or told - waiting:
            written += outbox.write(
                org_id, person.id, notices, {item.key for item in fresh}, waiting, now
            )
    return written


def deliver(
    outbox: NoticeOutbox,
    notifiers: Mapping[Channel, Notifier],
    clock: Callable[[], datetime],
    limit: int,
    max_attempts: int = MAX_ATTEMPTS,
) -> list[NoticeAttempt]:
    """One delivery pass: each claimed notice handed to its channel, the outcome kept."""
    done: list[NoticeAttempt] = []
    for notice in outbox.claim(limit, clock()):
        notifier = notifiers.get(notice.channel)
        reply = (
            notifier.send(notice)
            if notifier is not None
            # written while the channel was configured, and it no longer is
            else Reply(code=None, detail=f"{notice.channel.value} is not configured", final=True)
        )
        number = notice.attempts + 1
        attempt = NoticeAttempt(
            notice_id=notice.id,
            org_id=notice.org_id,
            channel=notice.channel,
            attempt=number,
            outcome=outcome_of(reply, number, max_attempts),
            code=reply.code,
            detail=reply.detail,
        )
        outbox.record(attempt, clock())
        done.append(attempt)
    return done
