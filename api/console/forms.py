"""What the console's forms share: the patterns their inputs carry (the browser checks
them before sending), and a refusal told in a sentence the person can act on, never a
validation library's dump."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from typing import Any

from pydantic import ValidationError

from domain.organization.contracts import MAX_REASON, SLUG_PATTERN

SLUG_INPUT = r"[a-z0-9][a-z0-9\-]{0,62}"
"""A project key, as an ``<input pattern>``:
:data:`domain.organization.contracts.SLUG_PATTERN` written so that it is also valid
with the ``v`` flag browsers now compile patterns with (a bare
``-`` at the end of a class is a syntax error there, and the browser then checks
nothing). The browser anchors it to the whole value."""

SLUG_LIST_INPUT = rf"\s*{SLUG_INPUT}(\s*,\s*{SLUG_INPUT})*\s*"
"""Project keys separated by commas (a barrier's side)."""

SLUG_RULE = "lower-case letters, digits and hyphens, at most 63, starting with a letter or digit"

LABELS = {
    "slug": "Key",
    "name": "Name",
    "project": "Project",
    "principal_id": "Who",
    "role": "Role",
    "groups": "Sides",
    "founder_email": "Your email",
    "founder_name": "Your name",
    "reason": "Reason",
    "answer": "Answer",
    "start": "Page",
}
"""Field names as the forms label them."""

MAX_SAID = 300
"""A refusal is a sentence or two, whatever it is about."""


def _said(error: Any) -> str:
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    match kind:
        case "string_pattern_mismatch":
            return f"use {SLUG_RULE}" if ctx.get("pattern") == SLUG_PATTERN else "is not valid"
        case "string_too_short" | "missing" | "too_short":
            return "is needed"
        case "string_too_long" | "too_long":
            return f"is too long (at most {ctx.get('max_length', MAX_REASON)})"
        case "enum" | "literal_error":
            return "is not one of the choices offered"
        case "extra_forbidden":
            return "is not a field of this form"
        case "value_error":
            message = str(error.get("msg", ""))
            if message.startswith("value is not a valid email address"):
                return "is not an email address" + (
                    f" ({ctx['reason']})" if isinstance(ctx.get("reason"), str) else ""
                )
            return message.removeprefix("Value error, ")
    return "is not valid"


def readable(refused: Exception) -> str:
    """``refused`` as the person who sent the form should read it: for each field, its
    label and what is wrong (never the value sent, the model's name or a library URL)."""
    if not isinstance(refused, ValidationError):
        return str(refused)[:MAX_SAID]
    parts = []
    for error in refused.errors(include_url=False, include_input=False):
        loc = [str(p) for p in error.get("loc", ()) if not isinstance(p, int)]
        label = LABELS.get(loc[0], loc[0].replace("_", " ")) if loc else ""
        said = _said(error)
        parts.append(f"{label}: {said}" if label else said[:1].upper() + said[1:])
    text = "; ".join(dict.fromkeys(parts)) or "the form is not valid"
    return f"Not done: {text}."[:MAX_SAID]


AMOUNT = re.compile(r"\$?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?")
"""An amount as a person types it: digits, thousands grouped by threes with commas or
not grouped at all, cents after a point (``5,000``, ``5000.50``; never ``5,00``)."""


def cents_from(text: str, field: str = "amount") -> int:
    """An amount as a person types it (``5,000``, ``$5,000.50``, ``120``) in cents; a
    refusal in words for anything else (``5,00`` too: a comma is never a decimal point
    here)."""
    found = AMOUNT.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{field}: write an amount such as 5,000 or 5,000.50")
    whole, part = found.group(1).replace(",", ""), found.group(2) or "0"
    return int(whole) * 100 + int(part.ljust(2, "0"))


def day_from(text: str, field: str = "date") -> datetime | None:
    """A day as a date input sends it (``2026-12-31``), as the end of that day in UTC;
    None when left empty."""
    if not text.strip():
        return None
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{field}: pick a day (year-month-day)") from None
    return datetime.combine(day, time(23, 59, 59), tzinfo=UTC)
