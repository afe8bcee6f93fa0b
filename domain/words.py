"""Words an owner reads: money as money, tools as what they do.

One layer, shared by the broker's reasons, the needs-you queue, the console, the command
line and the demo, so that "$7,500.00" and "a payment" read the same everywhere and the
engine's units (cents, tool ids) stay one click away, in the detail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum

from domain.organization.contracts import (
    Constraint,
    Delivery,
    NoticePeriod,
    Obligation,
    Principal,
    SpendCap,
)
from domain.organization.kinds import PrincipalStatus
from domain.tools import REGISTRY

TOOL_WORDS = {
    "payments.pay": "a payment",
    "email.send": "an email",
    "webhook.post": "a webhook call",
    "findings.file": "filing a finding",
    "holds.place": "a standing hold",
    "keys.close": "closing what an ended run left open",
}
"""What each published tool does, as a noun phrase."""


DONE_WORDS = {"payments.pay": "paid", "email.send": "sent", "webhook.post": "delivered"}
"""What doing each tool's write is called, once it is done."""


DOING_WORDS = {"payments.pay": "paying", "email.send": "sending", "webhook.post": "delivering"}
"""What doing each tool's write is called, as it is done."""

ABOUT_WORDS = {"payments.pay": "of invoice", "email.send": "to", "webhook.post": "to"}
"""How an action names the one thing it acts on (its resource): a payment *of invoice*
NW-7, an email *to* cfo@atlas.example."""


def doing_words(tool: str) -> str:
    """What doing ``tool``'s write is called (``paying``); ``doing`` otherwise."""
    return DOING_WORDS.get(tool, "doing")


def about(tool: str) -> str:
    """How ``tool``'s action names its resource (``of invoice``); ``on`` otherwise."""
    return ABOUT_WORDS.get(tool, "on")


def done_words(tool: str) -> str:
    """What doing ``tool``'s write is called once done (``paid``); ``done`` otherwise."""
    return DONE_WORDS.get(tool, "done")


def money(cents: int, currency: str = "USD") -> str:
    """An amount as its owner reads it: ``$2,500.00``, ``-$3.00``, or ``2,500.00 EUR`` in
    another currency."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)  # whole numbers: a float would lose cents
    amount = f"{whole:,}.{part:02d}"
    return f"{sign}${amount}" if currency == "USD" else f"{sign}{amount} {currency}"


def already_done(tool: str, payload: Mapping[str, object]) -> str:
    """What was already done, as an owner reads it: ``Invoice NW-7 was already paid``,
    ``This email to cfo@atlas.example was already sent``."""
    spec = REGISTRY.get(tool)
    given = payload.get(spec.resource_param) if spec and spec.resource_param else None
    resource = " ".join(str(given).split()) if given is not None else None
    if tool == "payments.pay":
        return f"Invoice {resource} was already paid" if resource else "This was already paid"
    if tool == "email.send":
        return f"This email{f' to {resource}' if resource else ''} was already sent"
    return f"This ({tool}{f' on {resource}' if resource else ''}) was already done"


def tool_words(tool: str) -> str:
    """What ``tool`` does (``a payment``); the tool's id for one without words."""
    return TOOL_WORDS.get(tool, tool)


def this_action(tool: str) -> str:
    """The action at hand, as its owner points at it: ``this payment``, ``this email``
    (``this action`` for a tool without words)."""
    said = TOOL_WORDS.get(tool, "")
    for article in ("a ", "an "):
        if said.startswith(article):
            return "this " + said[len(article) :]
    return "this action"


def listed(names: Iterable[str]) -> str:
    """Names as a sentence lists them: ``Atlas``, ``Atlas and Birch``, ``Atlas, Birch and
    Cedar`` (a comma alone would be ambiguous: a firm's name may hold one)."""
    said = list(names)
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + " and " + said[-1]


def projects_named(slugs: Iterable[str], names: Mapping[str, str]) -> str:
    """Projects by name, in order of name (``Project Atlas (buy-side) and Birch``); a
    project ``names`` does not know by its slug, one whose name another project shares
    with its slug too (``Atlas (east)``); ``no project`` when there is none."""
    wanted = set(slugs)
    if not wanted:
        return "no project"
    said = {s: names.get(s) or s for s in wanted}
    shared = {n for n, count in Counter(names.values()).items() if count > 1}
    return listed(sorted(f"{n} ({s})" if n in shared else n for s, n in said.items()))


def action(tool: str, payload: Mapping[str, object], cost_cents: int = 0) -> str:
    """An action as a line an owner reads: ``A payment of $2,500.00 to Northwind``, ``An
    email to cfo@atlas.example``."""
    spec = REGISTRY.get(tool)
    said = tool_words(tool)
    said = said[:1].upper() + said[1:]
    given = payload.get(spec.money_param) if spec and spec.money_param else None
    # what the broker counts: the larger of the amount and the declared cost
    amount = max(given, cost_cents) if isinstance(given, int) and given >= 0 else cost_cents
    if amount:
        said += f" of {money(amount, str(payload.get('currency') or 'USD'))}"
    to = None
    for param in (spec.payee_param, spec.recipient_param) if spec else ():
        value = payload.get(param) if param else None
        if isinstance(value, str) and value.strip():
            to = " ".join(value.split())
            to = to if len(to) <= 80 else to[:79] + "…"
            break
    return f"{said} to {to}" if to else said


def ago(then: datetime, now: datetime) -> str:
    """How long ago ``then`` was, as a person says it: ``just now``, ``5 minutes ago``,
    ``3 hours ago``, ``yesterday``, ``3 days ago``; past a week, the date (``2 Dec
    2026``). A time ahead of ``now`` reads the same way forward (``in 3 hours``, ``in 2
    days``, ``on 31 Dec 2099``); within a few seconds (clocks a little apart), ``just
    now``."""
    seconds = (now - then).total_seconds()
    if seconds < -45:
        return _ahead(-seconds, then, now)
    minutes = round(seconds / 60)
    hours = round(seconds / 3600)
    if seconds < 45:
        return "just now"
    if minutes < 60:
        return _count(minutes, "minute")
    days = (now.date() - then.date()).days
    if hours < 24 or days == 0:
        return _count(min(hours, 23), "hour")
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return f"{then.day} {then:%b %Y}"


def _ahead(seconds: float, then: datetime, now: datetime) -> str:
    minutes, hours = round(seconds / 60), round(seconds / 3600)
    days = (then.date() - now.date()).days
    if minutes < 60:
        return f"in {minutes} minute{'' if minutes == 1 else 's'}"
    if hours < 24 or days == 0:
        return f"in {min(hours, 23)} hour{'' if hours == 1 else 's'}"
    if days == 1:
        return "tomorrow"
    if days < 7:
        return f"in {days} days"
    return f"on {then.day} {then:%b %Y}"


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'} ago"


def absolute(at: datetime) -> str:
    """An instant in full, for a tooltip beside :func:`ago`: ``2026-12-06 17:15 UTC``."""
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def day(at: datetime) -> str:
    """A day as an owner writes it: ``15 Dec 2026`` (in UTC)."""
    at = at.astimezone(UTC)
    return f"{at.day} {at:%b %Y}"


def moment(at: datetime) -> str:
    """A moment in a sentence that stays true later (a recorded reason, a deadline):
    ``15 Dec 2026, 17:00 UTC`` (at midnight too: "by 15 Dec" would read as its end)."""
    return f"{day(at)}, {at.astimezone(UTC):%H:%M} UTC"


def constraint_words(constraint: Constraint) -> str:
    """What a commitment binds, as its owner says it: ``a spend cap of $5,000.00``,
    ``deliver the data-room index by 15 Dec 2026, 17:00 UTC``, ``30 days' notice: …``."""
    match constraint:
        case SpendCap(limit_cents=cents, currency=currency):
            return f"a spend cap of {money(cents, currency)}"
        case Delivery(deliverable=what, due=due, recipient=to):
            return f"deliver {what} by {moment(due)}" + (f", to {to}" if to else "")
        case NoticePeriod(days=days, text=text):
            return f"{days} day{'' if days == 1 else 's'}' notice: {text}"
        case Obligation(text=text):
            return text
    return str(constraint.kind).replace("_", " ")  # a kind added later: said by its name


_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)+")


def document_words(ref: str) -> str:
    """A document as its owner names it: a reference written as a slug
    (``atlas-engagement-letter``) as words (``Atlas engagement letter``); anything else
    (a sentence, a title) as it is."""
    if not _SLUG.fullmatch(ref):
        return ref
    said = re.sub(r"[-_]+", " ", ref)
    return said[:1].upper() + said[1:]


class Severity(StrEnum):
    """How much a cause of a hold should worry its owner: the console colours it so."""

    DANGER = "danger"
    """It may be a mistake or a fraud: doing it twice, new bank details, words from outside."""
    WARN = "warn"
    """It breaks a limit the firm set: a cap, a deadline, a wall, another action at once."""
    ROUTINE = "routine"
    """The firm's rule for anything of this size or kind: a person signs it."""


_SEVERITY = {
    "already_done": Severity.DANGER,
    "new_destination": Severity.DANGER,
    "relays_outside_text": Severity.DANGER,
    "unknown_sender": Severity.DANGER,
    "spend_cap": Severity.WARN,
    "spend_cap_currency": Severity.WARN,
    "split_payments": Severity.WARN,
    "delivery_overdue": Severity.WARN,
    "collision": Severity.WARN,
    "standing_hold": Severity.WARN,
    "many_recipients": Severity.WARN,
}


def severity(rule: str) -> Severity:
    """How worrying a hold's cause is, by its rule (unknown rules: routine)."""
    return _SEVERITY.get(rule, Severity.ROUTINE)


def causes_in_order(
    rule: str, reason: str, causes: Sequence[tuple[str, str]] = ()
) -> list[tuple[Severity, str]]:
    """A hold's causes as its owner reads them: one line each, the most worrying first
    (in the broker's order among equals). A hold recorded with one cause, or before
    causes were kept, is its one reason, at its rule's severity (the worst of a
    combined rule's)."""
    if not causes:
        worst = min((severity(r) for r in rule.split("+")), key=_RANK.__getitem__)
        return [(worst, reason)]
    ranked = sorted(enumerate(causes), key=lambda c: (_RANK[severity(c[1][0])], c[0]))
    return [(severity(r), text) for _, (r, text) in ranked]


_RANK = {Severity.DANGER: 0, Severity.WARN: 1, Severity.ROUTINE: 2}


FAILURE_WORDS = {
    "authority": "the agent, or the person who asked, may not do this",
    "barrier": "it would cross a wall between projects",
    "commitment": "a commitment, or a person, stopped it",
    "collision": "something else was doing the same thing",
    "validation": "the agent proposed something that cannot be done as asked",
    "model": "the AI model did not answer",
    "infrastructure": "a system it needs failed",
}
"""Why a run stopped, by its failure class, as its owner reads it."""

OWN_WORDS = frozenset({"authority", "barrier", "commitment", "collision"})
"""Failure classes whose reason is the broker's, already in an owner's words; the rest
(a parser's, a model's, a system's message) stay in the detail."""


def failure_words(failure: str) -> str:
    """Why a run of class ``failure`` stopped (``the agent's reply could not be read``)."""
    return FAILURE_WORDS.get(failure, failure.replace("_", " "))


RULE_WORDS = {
    "run_cancelled": "someone cancelled it",
    "hold_expired": "no one decided in time, so it was closed",
}
"""Why a run stopped, for rules whose class alone would mislead."""


def failure_reason(failure: str, reason: str, rule: str = "", stage: str = "") -> str:
    """What to tell an owner about a failure of class ``failure`` recorded with
    ``reason`` (by ``rule`` at ``stage``): the broker's reason as it is; a reply the
    parser refused as unreadable; else the class's words (the recorded message, a
    parser's or a system's, is for the detail)."""
    if rule in RULE_WORDS:
        return RULE_WORDS[rule]
    if failure in OWN_WORDS and reason:
        return reason
    if failure == "validation" and stage == "parser":
        return "the agent's reply could not be read"
    return failure_words(failure)


DETAIL_WORDS = {
    "email": ("email address", "email addresses"),
    "phone": ("phone number", "phone numbers"),
    "iban": ("bank account", "bank accounts"),
    "card": ("card number", "card numbers"),
    "national_id": ("national id number", "national id numbers"),
    "person": ("person's name", "people's names"),
    "address": ("postal address", "postal addresses"),
    "ip": ("IP address", "IP addresses"),
}
"""Each kind of identifying detail the memory screen finds, as an owner says it."""


def detail_words(counts: Mapping[str, int]) -> str:
    """Identifying detail by kind as a phrase: ``2 email addresses and 1 card number``
    (``nothing`` when there is none)."""
    said = []
    for kind, n in sorted(counts.items()):
        one, many = DETAIL_WORDS.get(kind, (kind, kind))
        said.append(f"{n} {one if n == 1 else many}")
    if not said:
        return "nothing"
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


ITEM_WORDS = {
    "held_intent": "waits for your decision",
    "standing_hold": "a standing hold",
    "commitment": "a commitment to confirm",
    "failed_run": "a run that stopped",
    "finding": "a finding",
    "drift_finding": "a process that drifted",
    "process_offer": "a process to adopt",
    "agent_reply": "an agent's question",
}
"""What each kind of needs-you item is, as its owner reads it."""


def item_words(kind: str) -> str:
    """What a needs-you item of ``kind`` is (``waits for your decision``)."""
    return ITEM_WORDS.get(kind, kind.replace("_", " "))


STATUS_WORDS = {
    "hold": "waits for a person",
    "allow": "allowed",
    "approved": "approved by a person",
    "denied": "denied by a person",
    "reject": "refused by the broker",
    "expired": "closed without a decision",
}
"""Where an intent stands, by the broker's outcome, as its owner reads it."""


def standing_words(who: Principal) -> str:
    """Where a person or an agent stands, as the workspace says it: ``active``,
    ``suspended since 3 Dec 2026: on leave``, ``left on 3 Dec 2026: moved away``."""
    if who.status is PrincipalStatus.ACTIVE:
        return "active"
    since = f" {'since' if who.status is PrincipalStatus.SUSPENDED else 'on'} " + (
        day(who.status_since) if who.status_since is not None else "an earlier day"
    )
    said = f"suspended{since}" if who.status is PrincipalStatus.SUSPENDED else f"left{since}"
    return f"{said}: {who.status_reason}" if who.status_reason else said


def status_words(status: str) -> str:
    """Where an intent stands (``waits for a person``); the outcome itself otherwise."""
    return STATUS_WORDS.get(status, status.replace("_", " "))


EVIDENCE_WORDS = {
    "reason": "Why",
    "release": "What would release it",
    "justification": "The agent says",
    "asked by": "Asked by",
    "asked": "Asked",
    "constraint": "What it binds",
    "excerpt": "In the document",
    "source": "From",
    "projects": "Projects",
    "recorded by": "Recorded by",
    "next step": "What to do",
    "playbook": "Playbook",
    "question": "The question",
    "retries left": "Retries left",
    "step": "Where it stopped",
    "started by": "Started by",
    "subject": "About",
    "summary": "What was found",
    "task": "The task",
}
"""What each piece of an item's evidence is, as a heading its owner reads."""
ENGINEERING = frozenset(
    {
        "rule",
        "rests on",
        "refused review",
        "episode",
        "check",
        "cites",
        "class",
        "recorded",
        "document",
    }
)
"""Evidence for the curious (rule ids, record ids, failure classes): one click away."""


def evidence_words(label: str) -> str:
    """The heading of a piece of evidence (``What would release it``)."""
    return EVIDENCE_WORDS.get(label, label[:1].upper() + label[1:])


DECISION_WORDS = {
    "allow": "allowed",
    "reject": "rejected",
    "hold": "held",
    "approved": "approved",
    "denied": "denied",
    "expired": "expired",
    "review_refused": "decision refused",
    "dispatched": "written",
    "dispatch_refused": "write refused",
}
"""Each decision on the audit chain, as its owner reads it."""


def decision_words(decision: str) -> str:
    """A chain entry's decision as a word (``held``); the decision itself, spaced, else."""
    return DECISION_WORDS.get(decision, decision.replace("_", " "))
