"""The owner's words: money as money, an action as a line (domain/words.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.words import action, done_words, money, tool_words


def test_money_reads_as_money() -> None:
    assert money(750_000) == "$7,500.00"
    assert money(5) == "$0.05"
    assert money(-300) == "-$3.00"
    assert money(123_456, "EUR") == "1,234.56 EUR"


@given(st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1))
def test_money_keeps_every_cent(cents: int) -> None:
    """Every amount an intent may carry (its canonical form bounds it) shows its cents."""
    shown = money(cents).replace("$", "").replace(",", "")
    assert shown == f"{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def test_an_action_reads_as_a_line() -> None:
    paid = {"payee": " Northwind  Supplies ", "invoice": "NW-7", "amount_cents": 250_000}
    assert action("payments.pay", paid) == "A payment of $2,500.00 to Northwind Supplies"
    assert action("email.send", {"to": "cfo@atlas.example"}) == "An email to cfo@atlas.example"
    assert action("findings.file", {}) == "Filing a finding"
    assert action("unknown.tool", {}) == "Unknown.tool"
    # the broker counts the larger of the amount and the declared cost: so does the line
    assert action("payments.pay", {**paid, "amount_cents": 500}, 250_000).startswith(
        "A payment of $2,500.00"
    )
    long = "a" * 100 + "@x.example"
    assert action("email.send", {"to": long}).endswith("…")
    assert (done_words("payments.pay"), done_words("holds.place")) == ("paid", "done")
    assert tool_words("webhook.post") == "a webhook call"
