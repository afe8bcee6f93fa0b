"""The fleet registry's rules: which version a new run gets, and each lifecycle step's
refusals (hypothesis for the choice; a table for the steps)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import Conflict
from domain.fleet.registry import (
    Rollout,
    bucket,
    draft,
    initial_rollout,
    publish,
    retire,
    roll_back,
    roll_out,
    serving,
    version_for,
)
from domain.organization.contracts import AgentDefinition, Charter, Skill
from domain.organization.kinds import CharterStatus

RUN_IDS = st.text(min_size=1, max_size=40)


def _charter(version: int, status: CharterStatus = CharterStatus.PUBLISHED) -> Charter:
    return Charter(
        principal_id="a",
        version=version,
        status=status,
        role="planner",
        purpose="plans",
        tools=("email.send",),
        budget_ceiling_cents=100,
        definition_pin=1,
    )


DEFINITION = AgentDefinition(principal_id="a", version=1, instructions="Plan.", budget_cents=50)


@given(run_id=RUN_IDS, share=st.integers(0, 100))
def test_a_run_gets_the_stable_version_or_the_candidate_by_its_share(
    run_id: str, share: int
) -> None:
    rollout = Rollout(principal_id="a", stable=1, candidate=2, share=share)
    chosen = version_for(rollout, run_id)
    assert chosen == (2 if bucket(run_id) < share else 1)
    assert version_for(rollout, run_id) == chosen  # the same on every worker, every time


@given(run_id=RUN_IDS, share=st.integers(1, 99))
def test_a_rolled_back_version_gets_no_new_run(run_id: str, share: int) -> None:
    rollout = roll_out(Rollout(principal_id="a", stable=1), _charter(2), share)
    back, version = roll_back(rollout)
    assert version == 2 and back.rolled_back == (2,)
    assert version_for(back, run_id) == 1


@given(run_id=RUN_IDS)
def test_after_a_completed_rollout_is_rolled_back_the_previous_version_serves(
    run_id: str,
) -> None:
    full = roll_out(Rollout(principal_id="a", stable=1), _charter(2), 100)
    assert version_for(full, run_id) == 2 and full.previous == 1
    back, version = roll_back(full)
    assert version == 2 and version_for(back, run_id) == 1


def test_shares_split_runs_about_as_asked() -> None:
    rollout = Rollout(principal_id="a", stable=1, candidate=2, share=25)
    on_candidate = sum(version_for(rollout, f"run-{i}") == 2 for i in range(4000))
    assert 850 <= on_candidate <= 1150


def test_the_lifecycle_refuses_what_it_must() -> None:
    stable = Rollout(principal_id="a", stable=1)
    with pytest.raises(Conflict, match="not a draft"):
        publish(_charter(2))
    assert publish(_charter(2, CharterStatus.DRAFT)).status is CharterStatus.PUBLISHED
    with pytest.raises(Conflict, match="publish it first"):
        roll_out(stable, _charter(2, CharterStatus.DRAFT), 10)
    with pytest.raises(Conflict, match="already the stable"):
        roll_out(stable, _charter(1), 10)
    for share in (0, 101):
        with pytest.raises(ValueError, match="between 1 and 100"):
            roll_out(stable, _charter(2), share)
    with pytest.raises(Conflict, match="nothing to roll back"):
        roll_back(stable)
    with pytest.raises(Conflict, match="serves new runs"):
        retire(stable, _charter(1))
    with pytest.raises(Conflict, match="retired already"):
        retire(stable, _charter(2, CharterStatus.RETIRED))
    candidate = roll_out(stable, _charter(2), 40)
    retired, after = retire(candidate, _charter(2))
    assert retired.status is CharterStatus.RETIRED and after.candidate is None
    assert serving(candidate, 2) == "candidate 40%" and serving(candidate, 1) == "stable"


def test_an_agent_that_never_had_a_rollout_runs_its_newest_published_version() -> None:
    charters = {1: _charter(1), 2: _charter(2), 3: _charter(3, CharterStatus.DRAFT)}
    assert initial_rollout("a", charters) == Rollout(principal_id="a", stable=2)
    assert initial_rollout("a", {3: _charter(3, CharterStatus.DRAFT)}) is None


def test_a_draft_keeps_what_is_not_given_and_pins_a_new_definition_only_when_it_changes() -> None:
    charter, definition = draft(
        _charter(1), DEFINITION, charter_version=2, definition_version=2, role="analyst"
    )
    assert definition is None and charter.definition_pin == 1 and charter.role == "analyst"
    assert charter.status is CharterStatus.DRAFT and charter.tools == ("email.send",)
    skills = (Skill(name="tone", instructions="Plainly."),)
    charter, definition = draft(
        _charter(1),
        DEFINITION,
        charter_version=2,
        definition_version=2,
        budget_cents=10,
        skills=skills,
    )
    assert definition is not None and definition.budget_cents == 10
    assert definition.instructions == "Plan." and charter.definition_pin == 2
    assert charter.skills == skills


def test_skill_names_do_not_repeat() -> None:
    skill = Skill(name="tone", instructions="x")
    with pytest.raises(ValueError, match="repeat"):
        Charter.model_validate(
            _charter(1).model_dump() | {"skills": [skill.model_dump(), skill.model_dump()]}
        )
