"""The fast canonical encoder gives the reference RFC 8785 bytes, or the same refusal, on
values as they come and on payloads parsed the way verification parses them."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.canonical import CheckedObject, canonical_json, loads_checked

# Every code point, surrogates included, and keys far outside ASCII (where code-point
# order and UTF-16 order disagree: U+FB01 sorts after U+1F600 in UTF-16).
TEXT = st.text(alphabet=st.characters(codec=None, min_codepoint=0), max_size=12)
KEYS = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["a", "b", "é", "\ufb01", "\U0001f600", "\x00", '"', "\\"]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(KEYS, inner, max_size=4),
    ),
    max_leaves=20,
)


def reference(value: Any) -> bytes | type[Exception]:
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        return type(exc)


@settings(max_examples=600)
@given(VALUES)
def test_the_fast_encoder_gives_the_reference_bytes(value: Any) -> None:
    expected = reference(value)
    if isinstance(expected, bytes):
        assert canonical_json(value) == expected
    else:
        with pytest.raises(expected):
            canonical_json(value)


class Colour(StrEnum):
    RED = "red"


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [True, None, "x\u2028y\x7f\x1f"]},
        {"\ufb01": 1, "\U0001f600": 2},
        {"n": 2**53 - 1, "m": -(2**53) + 1},
        {"colour": Colour.RED},
        {"f": 1.0, "g": 1e21, "h": -0.0},
    ],
)
def test_known_awkward_values(value: Any) -> None:
    assert canonical_json(value) == rfc8785.dumps(value)


@pytest.mark.parametrize("value", [{"n": 2**53}, {"s": "\ud800"}, {1: "x"}, float("nan")])
def test_what_the_reference_refuses_is_refused(value: Any) -> None:
    with pytest.raises(rfc8785.CanonicalizationError):
        canonical_json(value)


JSON_OBJECTS = st.dictionaries(KEYS, VALUES, max_size=5)


@settings(max_examples=600)
@given(JSON_OBJECTS, st.booleans())
def test_a_checked_parse_canonicalises_as_the_reference_does(
    value: dict[str, Any], ascii_text: bool
) -> None:
    """Parsed as verification parses a stored payload (ASCII with escapes, as the column
    type writes it, or raw UTF-8), the fast path gives the reference bytes or the same
    refusal: a float, a large integer or a key outside ASCII anywhere is noticed."""
    try:
        text = json.dumps(value, ensure_ascii=ascii_text, allow_nan=True)
    except UnicodeEncodeError:
        return
    parsed = json.loads(text)
    checked = loads_checked(text)
    assert checked == parsed or text.count("NaN")  # NaN != NaN
    expected = reference(parsed)
    if isinstance(expected, bytes):
        assert canonical_json(checked) == expected
        assert canonical_json({"payload": checked, "seq": 1}) == reference(
            {"payload": parsed, "seq": 1}
        )
    else:
        with pytest.raises(expected):
            canonical_json(checked)


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ('{"a": 1, "b": ["x", {"c": null}]}', True),
        ('{"a": 1.0}', False),
        ('{"a": [{"b": 9007199254740992}]}', False),
        ('{"a": {"\\u00e9": 1}}', False),
        ('{"a": {"é": 1}}', False),
        ('{"a": "\\u00e9"}', True),
        ('{"a": NaN}', False),
        ("[1, 2]", False),
    ],
)
def test_what_a_checked_parse_calls_plain(text: str, plain: bool) -> None:
    assert (type(loads_checked(text)) is CheckedObject) is plain
