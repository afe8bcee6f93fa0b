"""A run's outcome in the runs list: what waits for a human first, then a bad end, then
what was refused, then whether it still runs; the record alone settles every run but
those that proposed nothing or only what was carried out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.runs.outcome import RunEnd, RunOutcome, matches, outcome_of, settled

STATUSES = st.lists(
    st.sampled_from(["allow", "reject", "hold", "approved", "denied", "expired"]), max_size=5
)
WORKFLOW = st.sampled_from(
    [None, "running", "completed", "failed", "canceled", "terminated", "timed_out"]
)
BAD_END = st.sampled_from([None, "run_failed", "run_cancelled"])


def test_each_course_reads_as_its_owner_would_say_it() -> None:
    assert outcome_of(RunEnd(statuses=("allow", "hold")), "running") is RunOutcome.WAITING
    assert outcome_of(RunEnd(statuses=("allow",)), "completed") is RunOutcome.DONE
    assert outcome_of(RunEnd(statuses=("approved",)), "completed") is RunOutcome.DONE
    assert outcome_of(RunEnd(statuses=("allow",)), "running") is RunOutcome.RUNNING
    assert outcome_of(RunEnd(), "completed") is RunOutcome.COMPLETED
    assert outcome_of(RunEnd(), "running") is RunOutcome.RUNNING
    assert outcome_of(RunEnd(), None) is RunOutcome.UNKNOWN
    assert outcome_of(RunEnd(statuses=("allow", "reject")), "completed") is RunOutcome.REFUSED
    assert outcome_of(RunEnd(statuses=("denied",)), "completed") is RunOutcome.DENIED
    assert outcome_of(RunEnd(statuses=("expired",)), "completed") is RunOutcome.EXPIRED
    assert outcome_of(RunEnd(ended_badly="run_failed"), "completed") is RunOutcome.FAILED
    assert outcome_of(RunEnd(ended_badly="run_cancelled"), "canceled") is RunOutcome.CANCELLED
    assert outcome_of(RunEnd(), "failed") is RunOutcome.FAILED
    assert outcome_of(RunEnd(), "terminated") is RunOutcome.CANCELLED
    assert RunOutcome.WAITING.words == "Waits for you"


@given(STATUSES, BAD_END, WORKFLOW)
def test_a_hold_always_shows_first_and_done_never_hides_a_refusal(
    statuses: list[str], bad: str | None, workflow: str | None
) -> None:
    outcome = outcome_of(RunEnd(statuses=tuple(statuses), ended_badly=bad), workflow)
    assert (outcome is RunOutcome.WAITING) == ("hold" in statuses)
    if outcome in (RunOutcome.DONE, RunOutcome.COMPLETED, RunOutcome.RUNNING):
        assert not {"reject", "denied", "expired", "hold"} & set(statuses)
        assert bad is None
    if outcome is RunOutcome.DONE:
        assert {"allow", "approved"} & set(statuses)


@given(STATUSES, BAD_END, WORKFLOW)
def test_temporal_changes_only_what_the_record_leaves_open(
    statuses: list[str], bad: str | None, workflow: str | None
) -> None:
    """A run the record places (waiting, refused, failed…) reads the same whatever
    Temporal says, so the list asks Temporal only about the others."""
    end = RunEnd(statuses=tuple(statuses), ended_badly=bad)
    settled = outcome_of(end, "completed")
    if settled not in (RunOutcome.DONE, RunOutcome.COMPLETED) and workflow not in (
        "canceled",
        "terminated",
        "failed",
        "timed_out",
    ):
        assert outcome_of(end, workflow) is settled


def test_a_filter_with_nothing_ticked_shows_everything() -> None:
    assert matches(RunOutcome.DONE, [])
    assert matches(RunOutcome.DONE, [RunOutcome.DONE, RunOutcome.WAITING])
    assert not matches(RunOutcome.FAILED, [RunOutcome.DONE])


@given(STATUSES, BAD_END, WORKFLOW)
def test_the_list_and_the_page_agree_whatever_temporal_says(
    statuses: list[str], bad: str | None, workflow: str | None
) -> None:
    """Both read what the record settles first: Temporal decides only the rest."""
    end = RunEnd(statuses=tuple(statuses), ended_badly=bad)
    found = settled(end)
    if found is not None:
        assert found is outcome_of(end, "completed")
        assert found not in (RunOutcome.DONE, RunOutcome.COMPLETED, RunOutcome.RUNNING)
    else:
        assert not {"hold", "reject", "denied", "expired"} & set(statuses) and bad is None
