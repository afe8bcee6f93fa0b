"""Commitments from documents: what the extractor agent is asked, and the strict parser
of its reply.

The model reads a document (as the extractor agent may see it, through the memory gate)
and lists the obligations it finds: spend caps, deliveries and notice periods. Its reply
must be exactly one JSON object ``{"obligations": [...]}``; each obligation quotes the
stretch of the document it comes from, by offsets, and the quote must be exactly the
document's text there. Anything else is a recorded rejection; nothing is repaired: no
code fences are stripped, no field is defaulted, no type is coerced, no span is moved to
where the quote happens to be. What passes is evidence, never policy: each obligation
becomes a commitment in review state ``extracted`` that binds nothing until a human
confirms it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from domain.organization.contracts import (
    Commitment,
    Constraint,
    Delivery,
    Frozen,
    NoticePeriod,
    SpendCap,
    as_utc,
)
from domain.strict_json import Refused, is_int, load

MAX_OBLIGATIONS = 20
MAX_TITLE = 200
MAX_CENTS = 10**15

_COMMON = {"kind", "title", "span", "quote"}
_FIELDS: Mapping[str, set[str]] = {
    "spend_cap": _COMMON | {"limit_cents", "currency"},
    "delivery": _COMMON | {"deliverable", "due", "recipient"},
    "notice_period": _COMMON | {"days", "text"},
}
_CURRENCY = re.compile(r"[A-Z]{3}")
_ADDRESS = re.compile(r"[^@\s\[\]]+@[^@\s\[\]]+\.[^@\s\[\]]+")
"""An email address; a masked one (``[email]``) is none."""


class ExtractedObligation(Frozen):
    """One obligation the parser accepted: a title, what it constrains, and where in the
    document it is said (``document[start:end] == quote``)."""

    title: str
    constraint: Constraint
    start: int
    end: int
    quote: str


class ExtractionRejection(Frozen):
    """Why a reply was refused; recorded in the audit chain."""

    rule: str
    reason: str


class ExtractionInput(Frozen):
    """What an extraction workflow is started with."""

    org_id: str
    extraction_id: str
    """Names the workflow and derives its commitments' ids (a retry writes none twice)."""
    document_ref: str
    extractor_id: str
    """The agent that reads the document, through the memory gate, as itself."""
    requested_by: str
    """The human who asked; the extractor reads on their behalf, and the commitments are
    recorded in their name."""
    projects: tuple[str, ...]
    """What the extracted commitments would bind, once confirmed."""


class ExtractionReply(Frozen):
    """The extractor's reply, parsed: obligations or the rejection, and where it came from."""

    obligations: tuple[ExtractedObligation, ...] = ()
    rejection: ExtractionRejection | None = None
    provider: str
    model: str
    reply_digest: str
    """SHA-256 of the reply text (the text itself is not kept)."""


class ExtractionResult(Frozen):
    """What an extraction recorded: commitments in state ``extracted``, or the rejection."""

    commitments: tuple[Commitment, ...] = ()
    rejection: ExtractionRejection | None = None


def _text(raw: Mapping[str, Any], key: str, where: str, limit: int) -> str:
    value = raw[key]
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise Refused("invalid_field", f"{where}.{key}: must be non-empty text of at most {limit}")
    return value


def _span(raw: Mapping[str, Any], document: str, where: str) -> tuple[int, int, str]:
    span, quote = raw["span"], raw["quote"]
    if not (isinstance(span, list) and len(span) == 2 and all(is_int(v) for v in span)):
        raise Refused("invalid_span", f"{where}.span: must be [start, end], two integers")
    start, end = span
    if not 0 <= start < end <= len(document):
        raise Refused("invalid_span", f"{where}.span: [{start}, {end}] is not inside the document")
    if not isinstance(quote, str) or document[start:end] != quote:
        raise Refused(
            "quote_mismatch", f"{where}.quote: is not the document's text at [{start}, {end}]"
        )
    return start, end, quote


def _instant(value: object) -> datetime | None:
    """An ISO 8601 date and time with an offset, in UTC; None for anything else (a bare
    date, no offset, a number of seconds: nothing is guessed)."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return None
    try:
        return as_utc(parsed)
    except ValueError:
        return None


def _constraint(raw: Mapping[str, Any], kind: str, quote: str, where: str) -> Constraint:
    if kind == "spend_cap":
        limit, currency = raw["limit_cents"], raw["currency"]
        if not is_int(limit) or not 0 <= limit <= MAX_CENTS:
            raise Refused(
                "invalid_field", f"{where}.limit_cents: must be an integer in [0, {MAX_CENTS}]"
            )
        if not isinstance(currency, str) or _CURRENCY.fullmatch(currency) is None:
            raise Refused("invalid_field", f"{where}.currency: must be an ISO 4217 code")
        return SpendCap(limit_cents=limit, currency=currency)
    if kind == "delivery":
        due, recipient = raw["due"], raw["recipient"]
        instant = _instant(due)
        if instant is None:
            raise Refused(
                "invalid_field", f"{where}.due: must be an ISO 8601 instant with an offset"
            )
        if recipient is not None:
            # A recipient the quoted text does not name would be the model's invention.
            if not isinstance(recipient, str) or len(recipient) > 320:
                raise Refused("invalid_field", f"{where}.recipient: must be text or null")
            if _ADDRESS.fullmatch(recipient) is None:
                raise Refused("invalid_field", f"{where}.recipient: must be an email address")
            if recipient not in quote:
                raise Refused(
                    "unquoted_recipient", f"{where}.recipient: the quote does not name it"
                )
        return Delivery(
            deliverable=_text(raw, "deliverable", where, 500), due=instant, recipient=recipient
        )
    days = raw["days"]
    if not is_int(days) or not 1 <= days <= 3650:
        raise Refused("invalid_field", f"{where}.days: must be an integer in [1, 3650]")
    return NoticePeriod(days=days, text=_text(raw, "text", where, 4000))


def _obligation(raw: object, index: int, document: str) -> ExtractedObligation:
    where = f"obligations[{index}]"
    if not isinstance(raw, dict):
        raise Refused("malformed_obligation", f"{where}: must be an object")
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise Refused("unknown_kind", f"{where}: kind must be one of {sorted(_FIELDS)}")
    fields = _FIELDS[kind]
    missing = fields - raw.keys()
    if missing:
        raise Refused("missing_field", f"{where}: missing {sorted(missing)}")
    extra = raw.keys() - fields
    if extra:
        raise Refused("unexpected_field", f"{where}: unexpected {sorted(extra)}")
    title = _text(raw, "title", where, MAX_TITLE)
    start, end, quote = _span(raw, document, where)
    try:
        constraint = _constraint(raw, kind, quote, where)
    except ValidationError as exc:  # a bound the checks above do not state
        raise Refused("invalid_field", f"{where}: {exc.error_count()} invalid field(s)") from exc
    return ExtractedObligation(
        title=title, constraint=constraint, start=start, end=end, quote=quote
    )


def parse_extraction(
    text: str, document: str
) -> tuple[ExtractedObligation, ...] | ExtractionRejection:
    """Turn the extractor's reply about ``document`` into obligations, or say exactly why
    not. One bad obligation refuses the whole reply: a partial reading of a contract is
    not offered as if it were the reading."""
    try:
        data = load(text)
        if not isinstance(data, dict):
            raise Refused("malformed_json", "the reply must be one JSON object")
        if data.keys() != {"obligations"}:
            raise Refused("unexpected_field", "reply: must hold exactly 'obligations'")
        items = data["obligations"]
        if not isinstance(items, list) or len(items) > MAX_OBLIGATIONS:
            raise Refused(
                "malformed_obligations", f"obligations must be a list of at most {MAX_OBLIGATIONS}"
            )
        parsed = tuple(_obligation(raw, i, document) for i, raw in enumerate(items))
        seen: set[tuple[str, int, int]] = set()
        for i, item in enumerate(parsed):
            key = (item.constraint.kind, item.start, item.end)
            if key in seen:
                raise Refused("duplicate_obligation", f"obligations[{i}]: listed twice")
            seen.add(key)
        return parsed
    except Refused as refused:
        return ExtractionRejection(rule=refused.rule, reason=refused.reason)
    except RecursionError:
        return ExtractionRejection(rule="malformed_json", reason="nesting too deep")


def extraction_task(ref: str) -> str:
    """The task the extractor is given (with its handle, the replay fixtures' key)."""
    return f"Extract the obligations of document {ref}."


EXTRACTION_SYSTEM_PROMPT = """\
You read business documents and list the obligations they state: spend caps, deliveries
and notice periods. You propose; a human decides whether any of them binds.
Answer with exactly one JSON object and nothing else:
{"obligations": [ ... ]}
Each obligation is one of:
{"kind": "spend_cap", "title": str, "limit_cents": int, "currency": "USD",
 "span": [start, end], "quote": str}
{"kind": "delivery", "title": str, "deliverable": str,
 "due": "YYYY-MM-DDTHH:MM:SSZ", "recipient": str or null, "span": [start, end], "quote": str}
{"kind": "notice_period", "title": str, "days": int, "text": str,
 "span": [start, end], "quote": str}
"span" gives character offsets into the document text ([start, end), counting from 0);
"quote" must be exactly the text at those offsets. A recipient must appear in the quote.
List nothing the document does not say."""


def extraction_prompt(ref: str, document: str) -> str:
    """The prompt: the document as the extractor may read it."""
    return f"{extraction_task(ref)}\n\nDocument {ref}:\n<<<\n{document}\n>>>"
