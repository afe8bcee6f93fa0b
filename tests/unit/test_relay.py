"""What an SMTP answer makes of an outbox email, and what its chain entry keeps."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.relay import (
    MAX_ATTEMPTS,
    Attempt,
    DeliveryState,
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
