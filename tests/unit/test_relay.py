"""What an SMTP answer makes of an outbox email, and what its chain entry keeps."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.relay.smtp import SmtpMailer
from domain.relay import (
    MAX_ATTEMPTS,
    Attempt,
    DeliveryState,
    OutboundEmail,
    Outcome,
    attempt_draft,
    outcome_of,
    state_after,
)


@given(
    code=st.one_of(st.none(), st.integers(min_value=100, max_value=599)), attempt=st.integers(1, 10)
)
def test_two_hundreds_deliver_five_hundreds_bounce_the_rest_retry_until_the_bound(
    code: int | None, attempt: int
) -> None:
    outcome = outcome_of(code, attempt)
    if code is not None and 200 <= code < 300:
        assert outcome is Outcome.DELIVERED
    elif code is not None and code >= 500:
        assert outcome is Outcome.BOUNCED
    else:
        assert outcome is (Outcome.BOUNCED if attempt >= MAX_ATTEMPTS else Outcome.RETRIED)
    assert (state_after(outcome) is DeliveryState.PENDING) == (outcome is Outcome.RETRIED)


def test_an_entry_keeps_the_code_and_a_bounded_answer_per_attempt() -> None:
    draft = attempt_draft(
        Attempt(
            intent_id="i1", org_id="o1", attempt=2, outcome=Outcome.RETRIED, code=451,
            detail="x" * 500,
        )
    )  # fmt: skip
    assert (draft.event_key, draft.rule, draft.intent_id) == ("relay:i1:2", "email_retried", "i1")
    assert draft.payload == {"attempt": 2, "code": 451, "detail": "x" * 200}


@pytest.mark.parametrize(
    ("to", "subject"),
    [("x@y.example\r\nBcc: evil@z.example", "Kickoff"), ("x@y.example", "Kickoff\nX-Evil: 1")],
    ids=["address", "subject"],
)
def test_a_header_with_a_line_break_bounces_before_any_server_is_asked(
    to: str, subject: str
) -> None:
    """Port 1 on loopback answers nothing: had the mailer tried, the code would be None."""
    mailer = SmtpMailer("127.0.0.1", 1, "verletica@localhost", timeout=1.0)
    email = OutboundEmail(intent_id="i1", org_id="o1", to=to, subject=subject, body="b")
    code, words = mailer.send(email)
    assert (code, outcome_of(code, 1)) == (554, Outcome.BOUNCED) and "could not be built" in words


def test_an_unreachable_server_is_retried() -> None:
    mailer = SmtpMailer("127.0.0.1", 1, "verletica@localhost", timeout=1.0)
    code, _ = mailer.send(
        OutboundEmail(intent_id="i1", org_id="o1", to="a@b.example", subject="s", body="b")
    )
    assert code is None and outcome_of(code, 1) is Outcome.RETRIED
