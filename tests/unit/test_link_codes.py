"""Chat link codes (issue 26.10): made only with the console's key, read back whole,
refused when altered, stale or made with another key."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from domain.ingress import LinkCode, link_code, read_link_code

KEY = bytes(range(32))
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
CODE = LinkCode(
    org_id="org-1",
    principal_id="5d2c1a7e-0000-4000-8000-000000000001",
    channel="slack",
    expires=int((NOW + timedelta(minutes=10)).timestamp()),
    nonce="a1b2c3d4e5f6",
)


def test_a_code_reads_back_until_it_expires() -> None:
    text = link_code(KEY, CODE)
    assert read_link_code(KEY, text, NOW) == CODE
    assert read_link_code(KEY, f"  {text}\n", NOW) == CODE
    assert read_link_code(KEY, text, NOW + timedelta(minutes=10, seconds=1)) is None
    assert read_link_code(bytes(32), text, NOW) is None  # another key


@given(position=st.integers(min_value=0), replacement=st.characters(codec="ascii"))
def test_any_altered_character_reads_as_nothing(position: int, replacement: str) -> None:
    text = link_code(KEY, CODE)
    at = position % len(text)
    if text[at] == replacement:
        return
    altered = text[:at] + replacement + text[at + 1 :]
    found = read_link_code(KEY, altered, NOW)
    assert found is None or found == CODE  # only whitespace at an end may change nothing
