"""Payments that each stay under the approval threshold but together pass it, to one payee
within the split window, are held for an approver (a "payment plan" of instalments)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from domain.governance.broker import decide
from domain.governance.intents import Outcome
from domain.governance.spend import SPLIT_WINDOW, Spending, paid_to, payee_of
from domain.tools import EMAIL_SEND, PAYMENTS_PAY
from tests.unit.test_governance_broker_properties import (
    APPROVAL_THRESHOLD,
    NOW,
    PROP,
    payment,
    snapshot,
    staffed,
)


def paid(amount: int, payee: str = "acme", ago: timedelta = timedelta(hours=1)) -> Spending:
    return Spending(f"p-{amount}-{ago}", "run-0", frozenset({"east"}), amount, NOW - ago, payee)


def test_a_payee_is_named_the_same_whatever_its_case_and_spacing() -> None:
    same = (
        "  Acme   Data\tRooms ",
        "ACME DATA ROOMS.",
        "Acme\u200b Data Rooms",
        "Ａｃｍｅ Data Rooms",
    )
    assert {payee_of(PAYMENTS_PAY, {"payee": p}) for p in same} == {"acme data rooms"}
    assert payee_of(PAYMENTS_PAY, {"payee": 7}) == ""
    assert payee_of(EMAIL_SEND, {"payee": "acme"}) == ""


def test_what_a_payee_was_paid_counts_only_its_payments_within_the_window() -> None:
    spending = [
        paid(30_000),
        paid(20_000, ago=SPLIT_WINDOW),  # exactly a window ago: still counted
        paid(40_000, ago=SPLIT_WINDOW + timedelta(seconds=1)),  # older: not
        paid(50_000, payee="other"),
    ]
    total, ids = paid_to(spending, "acme", NOW)
    assert total == 50_000 and ids == (spending[1].id, spending[0].id)
    assert paid_to(spending, "", NOW) == (0, ())


def test_instalments_that_together_pass_the_threshold_are_held_with_the_earlier_ones() -> None:
    """A "payment plan" of $990 instalments against a $1,000 threshold: the second waits."""
    snap = replace(
        snapshot(staffing=staffed(("east",))), paid_to_payee=99_000, payee_payments=("p-1",)
    )
    second = decide(payment(99_000), snap)
    assert (second.outcome, second.rule) == (Outcome.HOLD, "split_payments")
    assert second.evidence == ("p-1",)
    assert second.reason == (
        "$990.00 to acme, with what acme was paid in the last 7 days, passes the "
        "$1,000.00 approval threshold"
    )
    assert second.release and "approves this payment" in second.release[0]
    within = decide(payment(APPROVAL_THRESHOLD - 99_000), snap)
    assert within.outcome is Outcome.ALLOW
    alone = decide(payment(APPROVAL_THRESHOLD + 1), snap)
    assert alone.rule == "money_over_threshold"  # one payment over it says so, not split


@PROP
@given(st.lists(st.integers(1, APPROVAL_THRESHOLD), max_size=8))
def test_unheld_payments_to_one_payee_never_pass_the_threshold_together(
    amounts: list[int],
) -> None:
    """Deciding a payee's payments one after another (each allowed one counting): what
    the broker lets through by itself within the window stays within the threshold."""
    spending: list[Spending] = []
    for i, amount in enumerate(amounts):
        total, ids = paid_to(spending, "acme", NOW)
        snap = replace(
            snapshot(staffing=staffed(("east",))), paid_to_payee=total, payee_payments=ids
        )
        if decide(payment(amount), snap).outcome is Outcome.ALLOW:
            spending.append(Spending(f"s{i}", "r", frozenset({"east"}), amount, NOW, "acme"))
    assert sum(s.spend_cents for s in spending) <= APPROVAL_THRESHOLD


def test_a_payment_to_no_one_is_no_payment() -> None:
    got = decide(payment(5_000, payee="  \t"), snapshot(staffing=staffed(("east",))))
    assert (got.outcome, got.rule) == (Outcome.REJECT, "invalid_payload")
    assert "payee names no one" in got.reason
