"""The strict parser of the extractor's reply: obligations quoted exactly from the
document, checked field by field, never repaired."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.models.replay import FIXTURES
from api.local.demo_script import ATLAS_LETTER, LETTER_REF
from domain.commitments.extraction import (
    MAX_OBLIGATIONS,
    ExtractionRejection,
    extraction_task,
    parse_extraction,
)
from domain.organization.contracts import Delivery, NoticePeriod, SpendCap
from tests.documents import DOCUMENTS

DOC = (
    "Supply agreement, Project Orbit. "
    "The supplier will deliver the quarterly usage report to ops@orbit.example "
    "by 31 January 2027. "
    "Fees under this agreement shall not exceed USD 12,000 in total. "
    "Either party may end the agreement on 60 days' written notice."
)
DELIVERY = (
    "The supplier will deliver the quarterly usage report to ops@orbit.example by 31 January 2027."
)
CAP = "Fees under this agreement shall not exceed USD 12,000 in total."
NOTICE = "Either party may end the agreement on 60 days' written notice."
PROP = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def at(quote: str) -> list[int]:
    start = DOC.index(quote)
    return [start, start + len(quote)]


def cap(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "kind": "spend_cap",
        "title": "Orbit fee cap",
        "limit_cents": 1_200_000,
        "currency": "USD",
        "span": at(CAP),
        "quote": CAP,
    }
    item.update(overrides)
    return {k: v for k, v in item.items() if v is not _GONE}


def delivery(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "kind": "delivery",
        "title": "Orbit usage report",
        "deliverable": "the quarterly usage report",
        "due": "2027-01-31T17:00:00+01:00",
        "recipient": "ops@orbit.example",
        "span": at(DELIVERY),
        "quote": DELIVERY,
    }
    item.update(overrides)
    return {k: v for k, v in item.items() if v is not _GONE}


def notice(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "kind": "notice_period",
        "title": "Orbit termination notice",
        "days": 60,
        "text": "ending the agreement",
        "span": at(NOTICE),
        "quote": NOTICE,
    }
    item.update(overrides)
    return {k: v for k, v in item.items() if v is not _GONE}


_GONE = object()


def reply(*items: dict[str, Any]) -> str:
    return json.dumps({"obligations": list(items)})


def rejected(text: str, document: str = DOC) -> ExtractionRejection:
    parsed = parse_extraction(text, document)
    assert isinstance(parsed, ExtractionRejection), parsed
    return parsed


def test_a_valid_reply_lists_each_obligation_with_its_span() -> None:
    parsed = parse_extraction(reply(delivery(), cap(), notice()), DOC)

    assert isinstance(parsed, tuple)
    first, second, third = parsed
    assert first.constraint == Delivery(
        deliverable="the quarterly usage report",
        due=datetime(2027, 1, 31, 16, 0, tzinfo=UTC),  # normalised to UTC
        recipient="ops@orbit.example",
    )
    assert second.constraint == SpendCap(limit_cents=1_200_000, currency="USD")
    assert third.constraint == NoticePeriod(days=60, text="ending the agreement")
    for item, quote in zip(parsed, (DELIVERY, CAP, NOTICE), strict=True):
        assert DOC[item.start : item.end] == item.quote == quote


def test_no_obligations_is_a_valid_answer() -> None:
    assert parse_extraction(reply(), DOC) == ()


def test_a_delivery_may_name_no_recipient() -> None:
    parsed = parse_extraction(reply(delivery(recipient=None)), DOC)
    assert isinstance(parsed, tuple)
    (item,) = parsed
    assert isinstance(item.constraint, Delivery) and item.constraint.recipient is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("```json\n" + reply(cap()) + "\n```", "malformed_json"),
        ("[]", "malformed_json"),
        ('{"obligations": [], "obligations": []}', "malformed_json"),
        ('{"obligations": [NaN]}', "malformed_json"),
        (json.dumps({"obligations": [], "note": "x"}), "unexpected_field"),
        (json.dumps({"items": []}), "unexpected_field"),
        (json.dumps({"obligations": {}}), "malformed_obligations"),
        (reply(*[cap()] * (MAX_OBLIGATIONS + 1)), "malformed_obligations"),
        (reply("cap"), "malformed_obligation"),  # type: ignore[arg-type]
        (reply(cap(kind="penalty")), "unknown_kind"),
        (reply(cap(currency=_GONE)), "missing_field"),
        (reply(cap(recipient=None)), "unexpected_field"),
        (reply(cap(title="  ")), "invalid_field"),
        (reply(cap(title="t" * 201)), "invalid_field"),
        (reply(cap(limit_cents="12000")), "invalid_field"),
        (reply(cap(limit_cents=True)), "invalid_field"),
        (reply(cap(limit_cents=-1)), "invalid_field"),
        (reply(cap(limit_cents=1.5)), "invalid_field"),
        (reply(cap(currency="usd")), "invalid_field"),
        (reply(cap(currency="ÄÖÜ")), "invalid_field"),
        (reply(delivery(due="31 January 2027")), "invalid_field"),
        (reply(delivery(due="2027-01-31T17:00:00")), "invalid_field"),  # no offset
        (reply(delivery(due="9999-12-31T23:59:59-01:00")), "invalid_field"),
        (reply(delivery(due=1800000000)), "invalid_field"),
        (reply(delivery(due="1800000000")), "invalid_field"),  # no number is read as a time
        (reply(delivery(due="2027-01-31")), "invalid_field"),  # a day is not an instant
        (reply(delivery(recipient="[email]")), "invalid_field"),
        (reply(delivery(recipient="cfo@elsewhere.example")), "unquoted_recipient"),
        (reply(delivery(deliverable="")), "invalid_field"),
        (reply(notice(days=0)), "invalid_field"),
        (reply(notice(days="60")), "invalid_field"),
        (reply(notice(text=7)), "invalid_field"),
        (reply(cap(span=[0])), "invalid_span"),
        (reply(cap(span=[0.0, 5.0])), "invalid_span"),
        (reply(cap(span=[5, 5])), "invalid_span"),
        (reply(cap(span=[-1, 5])), "invalid_span"),
        (reply(cap(span=[0, len(DOC) + 1])), "invalid_span"),
        (reply(cap(span=[at(CAP)[0] + 1, at(CAP)[1] + 1])), "quote_mismatch"),
        (reply(cap(quote=CAP.upper())), "quote_mismatch"),
        (reply(cap(quote=None)), "quote_mismatch"),
        (reply(cap(), cap(title="again")), "duplicate_obligation"),
        (json.dumps({"obligations": [cap(title="a\u0000b")]}), "forbidden_character"),
        ('{"obligations": ["\\ud800"]}', "malformed_json"),
        ("[" * 100_000 + "]" * 100_000, "malformed_json"),
    ],
)
def test_every_malformed_reply_is_refused_with_its_rule(text: str, rule: str) -> None:
    assert rejected(text).rule == rule


def test_one_bad_obligation_refuses_the_whole_reply() -> None:
    assert rejected(reply(cap(), notice(days=-3))).rule == "invalid_field"


def test_a_quote_is_checked_where_the_span_says_not_where_it_happens_to_be() -> None:
    """The quote appears in the document, but elsewhere: nothing is moved to fit."""
    refusal = rejected(reply(cap(span=at(NOTICE))))
    assert refusal.rule == "quote_mismatch"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@PROP
@given(text=st.text())
def test_any_text_is_refused_or_parsed_never_raises(text: str) -> None:
    parsed = parse_extraction(text, DOC)
    assert isinstance(parsed, ExtractionRejection | tuple)


@PROP
@given(value=json_values)
def test_any_json_value_is_refused_or_parsed_never_raises(value: object) -> None:
    parsed = parse_extraction(json.dumps(value), DOC)
    assert isinstance(parsed, ExtractionRejection | tuple)


@PROP
@given(
    field=st.sampled_from(["kind", "title", "limit_cents", "currency", "span", "quote"]),
    value=json_values,
)
def test_any_value_in_any_field_is_refused_or_kept_exactly(field: str, value: object) -> None:
    """Replace one field of a valid obligation by anything: the reply is refused, or
    what it says is kept exactly as given (never coerced)."""
    parsed = parse_extraction(reply(cap(**{field: value})), DOC)
    if isinstance(parsed, tuple):
        (item,) = parsed
        assert DOC[item.start : item.end] == item.quote
        assert isinstance(item.constraint, SpendCap)
        sent = cap(**{field: value})
        assert item.title == sent["title"]
        assert item.constraint.limit_cents == sent["limit_cents"]
        assert item.constraint.currency == sent["currency"]


@PROP
@given(start=st.integers(-5, len(DOC) + 5), end=st.integers(-5, len(DOC) + 5))
def test_a_span_is_accepted_only_when_the_quote_is_exactly_the_document_there(
    start: int, end: int
) -> None:
    parsed = parse_extraction(reply(cap(span=[start, end])), DOC)
    accepted = isinstance(parsed, tuple)
    assert accepted == ((start, end) == tuple(at(CAP)))


@PROP
@given(document=st.text(min_size=1, max_size=200), data=st.data())
def test_any_exact_quote_of_any_document_is_accepted(document: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(document) - 1))
    end = data.draw(st.integers(start + 1, len(document)))
    item = notice(span=[start, end], quote=document[start:end])
    parsed = parse_extraction(reply(item), document)
    if "\x00" in document[start:end]:
        assert isinstance(parsed, ExtractionRejection)
        return
    assert isinstance(parsed, tuple), parsed
    assert parsed[0].quote == document[start:end]


def _extraction_fixtures() -> list[dict[str, str]]:
    items = json.loads((FIXTURES / "commitments.json").read_text(encoding="utf-8"))
    assert isinstance(items, list) and items
    return items


@pytest.mark.parametrize("item", _extraction_fixtures(), ids=lambda i: i["task"][-40:])
def test_every_committed_extraction_fixture_answers_for_its_document(item: dict[str, str]) -> None:
    documents = {**DOCUMENTS, LETTER_REF: ATLAS_LETTER}
    (ref,) = [r for r in documents if item["task"] == extraction_task(r)]
    assert item["origin"] == "authored" and item["model"] == "authored"
    parsed = parse_extraction(item["reply"], documents[ref])
    if ref == "orbit-misquoted":
        assert isinstance(parsed, ExtractionRejection) and parsed.rule == "quote_mismatch"
    else:
        assert isinstance(parsed, tuple) and len(parsed) == 3, parsed
        kinds = {p.constraint.kind for p in parsed}
        assert kinds == {"spend_cap", "delivery", "notice_period"}
