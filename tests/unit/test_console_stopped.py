"""Why a run stopped, as its page says it (api/console/pages.py: stopped_words)."""

from __future__ import annotations

from api.console.pages import stopped_words
from domain.runs.failures import ErrorType
from domain.runs.run import CANCELLED_ERROR, RunState


def stopped(error: str, error_type: str = "") -> str:
    return stopped_words(RunState(run_id="r", error=error, error_type=error_type))


def test_a_run_says_why_it_stopped_by_its_errors_type() -> None:
    model = stopped("no replay fixture for agent 'orion'", ErrorType.MODEL_UNAVAILABLE)
    assert model == "the AI model did not answer"
    # a refusal at the start is already in words, once its rule id is gone
    refused = stopped("charter_unpublished: no published charter", ErrorType.POLICY_VIOLATION)
    assert refused == "no published charter"
    assert stopped("RuntimeError: boom", "RuntimeError") == "a system it needs failed"
    assert stopped(CANCELLED_ERROR) == "someone cancelled it"


def test_a_run_that_ended_before_the_type_was_kept_is_not_misnamed() -> None:
    assert stopped("the model is unreachable") == "something stopped it before it finished"


def test_a_state_from_a_newer_worker_is_read_by_an_older_one() -> None:
    later = RunState.model_validate({"run_id": "r", "a_field_added_later": 1})
    assert later.run_id == "r"
