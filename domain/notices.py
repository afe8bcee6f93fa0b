"""Notices: telling a person that something waits for them, outside the console.

A new hold or finding reaches the people who may decide it (by email, and by Slack or
Teams where their account there is linked), with a link to its page; once a day each
person with something waiting gets a digest of it. What a notice says is what that
person's own needs-you queue says, in the owner's words: a notice never carries an item
the person may not read, and never anything from behind a wall.

A notice is written once (its id names the person, the channel and the item or the
day, so a pass that runs twice, or two passes at once, write it once), then delivered
outside any transaction like the mail relay's emails: delivered, given up (a refusal no
retry changes, or too many attempts), or tried again at the next pass. Each notice
written and each attempt goes on the organization's audit chain: to whom, which item,
which channel, never the words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from enum import StrEnum
from typing import Protocol

from domain.audit.chain import AuditDraft
from domain.governance.broker import current_projects
from domain.needs_you.items import ItemKind, QueueItem
from domain.organization.contracts import Frozen, Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from domain.relay import MAX_ATTEMPTS, Outcome
from domain.words import ago, money

NOTICE = "notice"
"""The stage of a notice's chain entries."""
TELLS: frozenset[ItemKind] = frozenset(
    {ItemKind.HELD_INTENT, ItemKind.STANDING_HOLD, ItemKind.FINDING, ItemKind.DRIFT_FINDING}
)
"""The kinds of item a notice is sent for as soon as they appear: the ones that stop
work or say the foundation may be wrong. The rest wait for the day's digest."""
AT_ONCE = 5
"""New items told one by one in a pass; beyond that, one notice lists them (a firm that
turns notices on with a full queue gets one message, not a hundred)."""
DIGEST_LINES = 10
"""Items a digest lists (most urgent first); the rest are counted."""
PASS_LIMIT = 50
"""Notices one delivery pass claims."""
DETAIL_CHARS = 200


class Channel(StrEnum):
    """Where a notice goes."""

    EMAIL = "email"
    SLACK = "slack"
    TEAMS = "teams"


class NoticeKind(StrEnum):
    """What a notice tells."""

    NEW = "new"
    """Something new waits (one item, or a few listed)."""
    DIGEST = "digest"
    """What waits today."""


class Notice(Frozen):
    """One message to one person on one channel."""

    id: str
    """Names the person, the channel and the item (or the day): written once."""
    org_id: str
    person_id: str
    channel: Channel
    address: str
    """The email address; the Slack user id; the Teams user's object id."""
    name: str
    """The person's display name (a Teams mention shows it)."""
    kind: NoticeKind
    items: tuple[str, ...]
    """The queue keys it tells of (``held_intent:<id>``)."""
    subject: str
    body: str
    link: str
    """The console page it points to."""
    attempts: int = 0


class Reply(Frozen):
    """What a channel answered one attempt."""

    code: int | None
    """The channel's code (SMTP's or HTTP's); None: it could not be reached."""
    detail: str = ""
    delivered: bool = False
    final: bool = False
    """A refusal no retry changes (no such mailbox, an unknown Slack user)."""


class NoticeAttempt(Frozen):
    """One attempt at delivering a notice, and what came of it."""

    notice_id: str
    org_id: str
    channel: Channel
    attempt: int
    outcome: Outcome
    code: int | None = None
    detail: str = ""


def outcome_of(reply: Reply, attempt: int, max_attempts: int = MAX_ATTEMPTS) -> Outcome:
    """Delivered; given up (bounced) when the refusal is final or attempts are spent;
    tried again at the next pass otherwise."""
    if reply.delivered:
        return Outcome.DELIVERED
    if reply.final or attempt >= max_attempts:
        return Outcome.BOUNCED
    return Outcome.RETRIED


def http_reply(status: int, detail: str) -> Reply:
    """An HTTP answer as a :class:`Reply`: 2xx delivered; 408, 425, 429 and 5xx tried
    again; any other 4xx final (the request itself is wrong: a retry changes nothing)."""
    if 200 <= status < 300:
        return Reply(code=status, detail=detail, delivered=True)
    transient = status in (408, 425, 429) or status >= 500
    return Reply(code=status, detail=detail, final=not transient)


def smtp_reply(code: int | None, detail: str) -> Reply:
    """An SMTP answer as a :class:`Reply`: 2xx delivered, 5xx final, the rest again."""
    if code is not None and 200 <= code < 300:
        return Reply(code=code, detail=detail, delivered=True)
    return Reply(code=code, detail=detail, final=code is not None and 500 <= code < 600)


def decides(
    person: Principal,
    staffing: Sequence[Staffing],
    item: QueueItem,
    founder_id: str,
    now: datetime,
) -> bool:
    """Whether ``item`` is told to ``person`` the moment it appears: an active human
    staffed as approver, now, on every project it reaches; the founder for an item that
    reaches no project (someone must hear of it)."""
    if person.kind is not PrincipalKind.HUMAN or person.status is not PrincipalStatus.ACTIVE:
        return False
    if not item.reach:
        return person.id == founder_id
    approves = current_projects(tuple(staffing), now, StaffRole.APPROVER, person.id)
    return set(item.reach) <= approves


class Console(Frozen):
    """Where the console is, for the links a notice carries."""

    url: str
    """E.g. ``https://verletica.example/console`` (no trailing slash)."""

    def link(self, item: QueueItem | None) -> str:
        """The page of ``item`` (a held intent's own page; the queue, opened at the item,
        for the rest); the queue itself for None."""
        base = self.url.rstrip("/")
        if item is None:
            return f"{base}/queue"
        if item.kind is ItemKind.HELD_INTENT:
            return f"{base}/intents/{item.subject_id}"
        return f"{base}/queue?item={item.key}"


def _causes(item: QueueItem) -> list[str]:
    """What the person should read first: the item's danger and causes, in the order the
    queue shows them (already done, then the most worrying cause first)."""
    first = [e.detail for e in item.evidence if e.label == "already done"]
    return first + [e.detail for e in item.evidence if e.severity is not None]


def _summary(item: QueueItem) -> str:
    for e in item.evidence:
        if e.label == "summary":
            return e.detail
    return ""


def _projects(item: QueueItem, names: Mapping[str, str]) -> str:
    return ", ".join(names.get(p, p) for p in item.reach)


def item_text(item: QueueItem, names: Mapping[str, str], now: datetime) -> list[str]:
    """One item as lines of a notice: its title, what it concerns, why it waits."""
    lines = [item.title]
    facts = [f"arrived {ago(item.waiting_since, now)}"]
    if item.money_cents:
        facts.append(money(item.money_cents))
    if item.reach:
        facts.append(_projects(item, names))
    if item.due is not None:
        facts.append(f"expires {ago(item.due, now)}")
    lines.append("  " + " · ".join(facts))
    lines.extend(f"  - {cause}" for cause in _causes(item) or filter(None, [_summary(item)]))
    return lines


def _id(kind: NoticeKind, org_id: str, person_id: str, channel: Channel, what: str) -> str:
    return f"{kind.value}:{org_id}:{person_id}:{channel.value}:{what}"


def new_notices(
    person: Principal,
    addresses: Mapping[Channel, str],
    items: Sequence[QueueItem],
    names: Mapping[str, str],
    console: Console,
    now: datetime,
) -> list[Notice]:
    """What ``person`` is told of ``items`` (new to them, most urgent first): one notice
    an item, or one listing them all when there are more than :data:`AT_ONCE`."""
    if not items:
        return []
    if len(items) <= AT_ONCE:
        drafts: list[tuple[str, tuple[str, ...], str, list[str], str]] = [
            (
                item.key,
                (item.key,),
                f"Waiting for you: {item.title}",
                item_text(item, names, now),
                console.link(item),
            )
            for item in items
        ]
    else:
        shown = items[:DIGEST_LINES]
        lines = [line for item in shown for line in item_text(item, names, now)]
        if len(items) > len(shown):
            lines.append(f"… and {len(items) - len(shown)} more.")
        drafts = [
            (
                f"{items[0].key}+{len(items)}",
                tuple(item.key for item in items),
                f"{len(items)} new things wait for you",
                lines,
                console.link(None),
            )
        ]
    return [
        Notice(
            id=_id(NoticeKind.NEW, person.org_id, person.id, channel, what),
            org_id=person.org_id,
            person_id=person.id,
            channel=channel,
            address=address,
            name=person.display_name,
            kind=NoticeKind.NEW,
            items=keys,
            subject=subject,
            body=_body(person, lines, link),
            link=link,
        )
        for channel, address in sorted(addresses.items())
        for what, keys, subject, lines, link in drafts
    ]


def digest_due(now: datetime, hour: int, last: date | None) -> date | None:
    """The day whose digest is due at ``now`` (UTC): today once ``hour`` has struck and
    today's was not written; None otherwise."""
    today = now.date()
    if now.hour < hour or (last is not None and last >= today):
        return None
    return today


def digest(
    person: Principal,
    addresses: Mapping[Channel, str],
    items: Sequence[QueueItem],
    withheld: int,
    names: Mapping[str, str],
    console: Console,
    day: date,
    now: datetime,
) -> list[Notice]:
    """The day's digest of what waits for ``person`` (their queue, most urgent first);
    none when nothing does."""
    if not items:
        return []
    shown = items[:DIGEST_LINES]
    lines = [line for item in shown for line in item_text(item, names, now)]
    if len(items) > len(shown):
        lines.append(f"… and {len(items) - len(shown)} more in the console.")
    if withheld:
        lines.append(f"({withheld} more concern projects outside yours.)")
    link = console.link(None)
    things = "1 thing waits" if len(items) == 1 else f"{len(items)} things wait"
    return [
        Notice(
            id=_id(NoticeKind.DIGEST, person.org_id, person.id, channel, day.isoformat()),
            org_id=person.org_id,
            person_id=person.id,
            channel=channel,
            address=address,
            name=person.display_name,
            kind=NoticeKind.DIGEST,
            items=tuple(item.key for item in items),
            subject=f"Today: {things} for you",
            body=_body(person, lines, link),
            link=link,
        )
        for channel, address in sorted(addresses.items())
    ]


def _body(person: Principal, lines: Iterable[str], link: str) -> str:
    return "\n".join(
        [
            f"{person.display_name},",
            "",
            *lines,
            "",
            f"Open it in the console: {link}",
            "",
            "You receive this because you decide these in Verletica.",
        ]
    )


def written_draft(notice: Notice) -> AuditDraft:
    """A notice written, on the chain: to whom, on which channel, of which items; never
    its words or its address."""
    return AuditDraft(
        event_key=f"notice:{notice.id}",
        actor="notices",
        decision="written",
        stage=NOTICE,
        rule=f"notice_{notice.kind.value}",
        payload={
            "notice": notice.id,
            "person": notice.person_id,
            "channel": notice.channel.value,
            "items": list(notice.items),
        },
    )


def attempt_draft(attempt: NoticeAttempt) -> AuditDraft:
    """One delivery attempt on the chain (one per attempt: its key)."""
    return AuditDraft(
        event_key=f"notice:{attempt.notice_id}:{attempt.attempt}",
        actor=f"notices:{attempt.channel.value}",
        decision=attempt.outcome.value,
        stage=NOTICE,
        rule=f"notice_{attempt.outcome.value}",
        payload={
            "notice": attempt.notice_id,
            "attempt": attempt.attempt,
            "code": attempt.code,
            "detail": attempt.detail[:DETAIL_CHARS],
        },
    )


class NoticesInput(Frozen):
    """A pass: write what is new for everyone, then deliver up to ``limit`` notices."""

    limit: int = PASS_LIMIT


class NoticesReport(Frozen):
    """What one pass did."""

    written: tuple[str, ...] = ()
    attempts: tuple[NoticeAttempt, ...] = ()


class NoticeOutbox(Protocol):
    """The notices as a pass reads and writes them."""

    def orgs(self) -> list[str]:
        """Every organization."""
        ...

    def told(self, org_id: str, person_id: str) -> set[str]:
        """The queue keys ``person_id`` was told of (and that still wait)."""
        ...

    def last_digest(self, org_id: str, person_id: str) -> date | None:
        """The day of the person's last digest; None: never."""
        ...

    def write(
        self,
        org_id: str,
        person_id: str,
        notices: Sequence[Notice],
        told: Iterable[str],
        waiting: Iterable[str],
        now: datetime,
    ) -> list[Notice]:
        """Keep ``notices`` (those not written before; on the chain, in one transaction
        under the organization's lock), remember ``told`` as told to the person, and
        forget what they were told of that no longer waits (not in ``waiting``), so
        that an item that comes back is told again. Returns the notices written now."""
        ...

    def claim(self, limit: int, now: datetime) -> list[Notice]:
        """Up to ``limit`` notices not yet delivered or given up that no live lease
        holds (oldest first), each now claimed for this pass (:data:`LEASE`)."""
        ...

    def record(self, attempt: NoticeAttempt, now: datetime) -> None:
        """Keep ``attempt``'s outcome on the notice and on the chain (once per attempt)."""
        ...


class Notifier(Protocol):
    """Something that delivers a notice on one channel."""

    def send(self, notice: Notice) -> Reply: ...
