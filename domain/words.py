"""Words an owner reads: money as money, tools as what they do.

One layer, shared by the broker's reasons, the needs-you queue, the console, the command
line and the demo, so that "$7,500.00" and "a payment" read the same everywhere and the
engine's units (cents, tool ids) stay one click away, in the detail.
"""

from __future__ import annotations

TOOL_WORDS = {
    "payments.pay": "a payment",
    "email.send": "an email",
    "webhook.post": "a webhook call",
    "findings.file": "filing a finding",
    "holds.place": "a standing hold",
    "keys.close": "closing what an ended run left open",
}
"""What each published tool does, as a noun phrase."""


def money(cents: int, currency: str = "USD") -> str:
    """An amount as its owner reads it: ``$2,500.00``, ``-$3.00``, or ``2,500.00 EUR`` in
    another currency."""
    sign = "-" if cents < 0 else ""
    amount = f"{abs(cents) / 100:,.2f}"
    return f"{sign}${amount}" if currency == "USD" else f"{sign}{amount} {currency}"


def tool_words(tool: str) -> str:
    """What ``tool`` does (``a payment``); the tool's id for one without words."""
    return TOOL_WORDS.get(tool, tool)
