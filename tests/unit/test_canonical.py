"""The fast canonical encoder gives the reference RFC 8785 bytes, or the same refusal."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.canonical import canonical_json

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
