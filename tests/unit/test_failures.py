"""Every failure has a class a human can act on, and a retry bound by class."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.failures import RETRIES, FailureClass, classify, retries_left
from domain.intents import Stage


@pytest.mark.parametrize(
    ("stage", "rule", "error_type", "expected"),
    [
        ("resolve", "charter_unpublished", "", FailureClass.AUTHORITY),
        ("resolve", "registry_pin_mismatch", "", FailureClass.AUTHORITY),
        (Stage.PARSER, "malformed_json", "", FailureClass.VALIDATION),
        (Stage.IDENTITY, "tool_not_in_charter", "", FailureClass.AUTHORITY),
        (Stage.STAFFING, "not_staffed", "", FailureClass.AUTHORITY),
        (Stage.SCOPE, "barrier_crossed", "", FailureClass.BARRIER),
        (Stage.COMMITMENTS, "spend_cap", "", FailureClass.COMMITMENT),
        (Stage.COMMITMENTS, "standing_hold", "", FailureClass.COMMITMENT),
        (Stage.REVIEW, "denied", "", FailureClass.COMMITMENT),
        (Stage.COLLISIONS, "collision", "", FailureClass.COLLISION),
        (Stage.REVIEW, "hold_expired", "", FailureClass.COMMITMENT),
        (Stage.COMMITMENTS, "spend_cap+already_done", "", FailureClass.COLLISION),
        (Stage.REVIEW, "dispatch_failed", "", FailureClass.INFRASTRUCTURE),
        ("run", "run_failed", "ModelUnavailable", FailureClass.MODEL),
        ("run", "run_failed", "PolicyViolation", FailureClass.AUTHORITY),
        ("run", "run_failed", "InvalidInput", FailureClass.VALIDATION),
        ("run", "run_failed", "DispatchRefused", FailureClass.INFRASTRUCTURE),
        ("run", "run_cancelled", "", FailureClass.INFRASTRUCTURE),
        ("somewhere", "unknown", "", FailureClass.INFRASTRUCTURE),
    ],
)
def test_each_failure_has_its_class(
    stage: str, rule: str, error_type: str, expected: FailureClass
) -> None:
    assert classify(stage, rule, error_type) is expected


def test_what_a_retry_cannot_cure_is_not_retried() -> None:
    for never in (FailureClass.AUTHORITY, FailureClass.BARRIER, FailureClass.COMMITMENT):
        assert RETRIES[never] == 0 and retries_left(never, 0) == 0
    assert retries_left(FailureClass.MODEL, 0) == RETRIES[FailureClass.MODEL] > 0


@given(failure=st.sampled_from(FailureClass), tries=st.integers(min_value=0, max_value=50))
def test_retries_left_count_down_to_zero_and_never_below(failure: FailureClass, tries: int) -> None:
    left = retries_left(failure, tries)
    assert 0 <= left <= RETRIES[failure]
    assert left == max(RETRIES[failure] - tries, 0)
