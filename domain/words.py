"""Words an owner reads: money as money, tools as what they do.

One layer, shared by the broker's reasons, the needs-you queue, the console, the command
line and the demo, so that "$7,500.00" and "a payment" read the same everywhere and the
engine's units (cents, tool ids) stay one click away, in the detail.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

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


def tool_words(tool: str) -> str:
    """What ``tool`` does (``a payment``); the tool's id for one without words."""
    return TOOL_WORDS.get(tool, tool)


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
    2026``). A time ahead of ``now`` (clocks a little apart) reads as ``just now``."""
    seconds = (now - then).total_seconds()
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


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'} ago"


def absolute(at: datetime) -> str:
    """An instant in full, for a tooltip beside :func:`ago`: ``2026-12-06 17:15 UTC``."""
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
