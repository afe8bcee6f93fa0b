"""What the console's forms read from what a person types: amounts (a comma groups
thousands, never stands for a decimal point) and days (the end of the day, in UTC)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.console.forms import cents_from, day_from
from domain.words import money


def test_amounts_as_people_type_them() -> None:
    assert cents_from("5,000") == 500_000
    assert cents_from("$5,000.50") == 500_050
    assert cents_from("5000.5") == 500_050
    assert cents_from(" 120 ") == 12_000
    assert cents_from("1,234,567.89") == 123_456_789
    for wrong in ("5,00", "five grand", "5.000", "1,2345", "-5", "5.", "", "$", "5,000.123"):
        with pytest.raises(ValueError, match="write an amount"):
            cents_from(wrong)


@given(st.integers(min_value=0, max_value=10**13))
def test_an_amount_read_back_is_the_amount_shown(cents: int) -> None:
    """What the console shows (``$1,234.56``) reads back to the same cents."""
    assert cents_from(money(cents)) == cents


def test_a_day_is_its_end_in_utc() -> None:
    assert day_from("2099-12-31") == datetime(2099, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert day_from("  ") is None
    with pytest.raises(ValueError, match="pick a day"):
        day_from("31/12/2099")
