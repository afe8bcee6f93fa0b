"""The owner's words: money as money, an action as a line (domain/words.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from domain.governance.intents import Outcome
from domain.needs_you.items import ItemKind
from domain.organization.contracts import Delivery, NoticePeriod, Obligation, SpendCap
from domain.runs.failures import FailureClass
from domain.tools import REGISTRY
from domain.words import (
    ENGINEERING,
    EVIDENCE_WORDS,
    FAILURE_WORDS,
    ITEM_WORDS,
    STATUS_WORDS,
    Severity,
    absolute,
    action,
    ago,
    causes_in_order,
    constraint_words,
    day,
    document_words,
    done_words,
    evidence_words,
    failure_reason,
    item_words,
    listed,
    moment,
    money,
    projects_named,
    severity,
    status_words,
    this_action,
    tool_words,
)


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


NOW = datetime(2026, 12, 6, 17, 0, tzinfo=UTC)


def test_a_time_reads_as_how_long_ago() -> None:
    def said(seconds: float) -> str:
        return ago(NOW - timedelta(seconds=seconds), NOW)

    assert said(-30) == "just now"  # a clock a little ahead
    assert said(-5 * 60) == "in 5 minutes"
    assert said(-3 * 3600) == "in 3 hours"
    assert said(-30 * 3600) == "tomorrow"
    assert said(-3 * 86400) == "in 3 days"
    assert said(-30 * 86400) == "on 5 Jan 2027"
    assert said(10) == "just now"
    assert said(60) == "1 minute ago"
    assert said(59 * 60) == "59 minutes ago"
    assert said(3600) == "1 hour ago"
    assert said(5 * 3600) == "5 hours ago"
    assert said(17 * 3600 + 1) == "17 hours ago"  # under a day: hours, even past midnight
    assert said(30 * 3600) == "yesterday"
    assert said(3 * 86400) == "3 days ago"
    assert said(10 * 86400) == "26 Nov 2026"
    late = datetime(2026, 12, 6, 23, 59, tzinfo=UTC)
    assert ago(datetime(2026, 12, 6, 0, 1, tzinfo=UTC), late) == "23 hours ago"  # same day
    assert absolute(NOW) == "2026-12-06 17:00 UTC"


@given(st.integers(min_value=-40, max_value=400 * 86400))
def test_a_later_time_never_reads_as_longer_ago(seconds: int) -> None:
    """Order is kept: what happened earlier never reads as more recent than what
    happened later (compared in the units each phrase uses)."""
    first = ago(NOW - timedelta(seconds=seconds), NOW)
    later = ago(NOW - timedelta(seconds=max(seconds - 1800, -40)), NOW)
    order = ["just now", "minute", "hour", "yesterday", "days ago", "20"]
    position = [next(i for i, w in enumerate(order) if w in s) for s in (first, later)]
    assert position[1] <= position[0], (first, later)


RULES = st.sampled_from(
    ["already_done", "new_destination", "spend_cap", "collision", "money_over_threshold", "x"]
)


@given(st.lists(st.tuples(RULES, st.text(min_size=1, max_size=20)), min_size=2, max_size=6))
def test_a_holds_causes_are_all_shown_most_worrying_first(causes: list[tuple[str, str]]) -> None:
    rule = "+".join(r for r, _ in causes)
    lines = causes_in_order(rule, "; ".join(t for _, t in causes), causes)
    assert sorted(t for _, t in lines) == sorted(t for _, t in causes)  # none lost
    ranks = [list(Severity).index(s) for s, _ in lines]
    assert ranks == sorted(ranks)
    assert [s for s, _ in lines] == sorted(
        (severity(r) for r, _ in causes), key=list(Severity).index
    )


def test_a_reason_recorded_before_causes_were_kept_is_one_line_at_its_worst_rule() -> None:
    assert causes_in_order("money_over_threshold", "over $1,000") == [
        (Severity.ROUTINE, "over $1,000")
    ]
    assert causes_in_order("money_over_threshold+already_done", "a; b") == [
        (Severity.DANGER, "a; b")
    ]


def test_every_item_kind_and_intent_outcome_has_words_and_no_engine_id_shows() -> None:
    assert set(ITEM_WORDS) == {k.value for k in ItemKind}
    for kind in ItemKind:
        assert "_" not in item_words(kind.value)
    for outcome in ("hold", "allow", "approved", "denied", "reject", "expired"):
        assert Outcome(outcome) and outcome in STATUS_WORDS
    assert status_words("hold") == "waits for a person"
    assert item_words("held_intent") == "waits for your decision"


def test_evidence_is_headed_in_words_and_engineering_detail_kept_apart() -> None:
    assert evidence_words("release") == "What would release it"
    assert evidence_words("new label") == "New label"
    assert not ENGINEERING & set(EVIDENCE_WORDS)  # a heading is either for the owner or not


def test_projects_read_by_name_in_a_sentence() -> None:
    names = {"east": "Project Atlas (buy-side)", "west": "Birch, Inc."}
    assert projects_named(["east"], names) == "Project Atlas (buy-side)"
    # by name, "and" before the last: a comma in a name stays readable
    assert projects_named(["west", "east"], names) == "Birch, Inc. and Project Atlas (buy-side)"
    assert projects_named(["east", "north"], names) == "Project Atlas (buy-side) and north"
    assert projects_named([], names) == "no project"
    twins = {"east": "Atlas", "north": "Atlas", "west": "Birch"}
    assert projects_named(["east", "west"], twins) == "Atlas (east) and Birch"
    assert listed(["a", "b", "c"]) == "a, b and c"


def test_an_action_is_pointed_at_in_words() -> None:
    assert this_action("payments.pay") == "this payment"
    assert this_action("email.send") == "this email"
    assert this_action("no.such_tool") == "this action"
    for tool in REGISTRY:
        assert "." not in this_action(tool)


def test_days_and_moments_read_as_an_owner_writes_them() -> None:
    at = datetime(2026, 12, 15, 17, 0, tzinfo=UTC)
    assert day(at) == "15 Dec 2026"
    assert moment(at) == "15 Dec 2026, 17:00 UTC"
    assert moment(datetime(2026, 12, 15, tzinfo=UTC)) == "15 Dec 2026, 00:00 UTC"
    ahead = datetime(2026, 12, 15, 23, 30, tzinfo=UTC).astimezone(timezone(timedelta(hours=2)))
    assert moment(ahead) == "15 Dec 2026, 23:30 UTC"  # said in UTC, whatever zone it came in


def test_a_commitment_reads_as_what_it_binds() -> None:
    due = datetime(2026, 12, 15, 17, 0, tzinfo=UTC)
    assert constraint_words(SpendCap(limit_cents=500_000)) == "a spend cap of $5,000.00"
    assert (
        constraint_words(Delivery(deliverable="the data-room index", due=due))
        == "deliver the data-room index by 15 Dec 2026, 17:00 UTC"
    )
    said = constraint_words(Delivery(deliverable="the index", due=due, recipient="cfo@a.example"))
    assert said.endswith(", to cfo@a.example") and "T17" not in said
    assert constraint_words(NoticePeriod(days=30, text="either party")) == (
        "30 days' notice: either party"
    )
    assert constraint_words(Obligation(text="keep it confidential")) == "keep it confidential"


def test_a_document_reference_reads_as_words_and_a_title_as_it_is() -> None:
    assert document_words("atlas-engagement-letter") == "Atlas engagement letter"
    assert document_words("nda_2026") == "Nda 2026"
    assert document_words("Call with the CFO, 3 Dec") == "Call with the CFO, 3 Dec"
    assert document_words("kickoff") == "kickoff"  # one word: nothing to undo
    assert document_words("2026-nda") == "2026 nda"


def test_a_failure_reads_as_why_and_a_parsers_words_stay_in_the_detail() -> None:
    assert set(FAILURE_WORDS) == {f.value for f in FailureClass}
    parsed = failure_reason(
        "validation", "not JSON: Expecting value at 0", "malformed_json", "parser"
    )
    assert parsed == "the agent's reply could not be read"
    # a reply that was read, proposing what cannot be done, is not said to be unreadable
    bad = failure_reason("validation", "amount_cents: not an int", "invalid_payload", "identity")
    assert bad == "the agent proposed something that cannot be done as asked"
    assert failure_reason("infrastructure", "the run was cancelled", "run_cancelled") == (
        "someone cancelled it"
    )
    assert failure_reason("model", "no fixture for task x") == "the AI model did not answer"
    # the broker's reasons are already an owner's words
    assert (
        failure_reason("commitment", "a payment of $9.00 is over") == "a payment of $9.00 is over"
    )
    assert failure_reason("barrier", "") == FAILURE_WORDS["barrier"]
