"""Reach is what the run knows, not what the model declares: the projects of the memory
released to a run count in the reach of every intent it proposes, for walls, staffing,
who asked and spend caps alike."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from domain.canonical import digest
from domain.governance.broker import decide, known_reach
from domain.governance.intents import Intent, Outcome
from domain.organization.contracts import Barrier
from domain.organization.kinds import StaffRole
from tests.unit.test_governance_broker_properties import (
    ORG,
    PROJECTS,
    PROP,
    email,
    payment,
    snapshot,
    spend_cap,
    staffed,
)
from tests.unit.test_governance_delegation import BEN, asked_by, standing

WALL = Barrier(id="b-1", org_id=ORG, name="Atlas/Birch", groups=(("east",), ("west",)))


def having_read(intent: Intent, *projects: str) -> Intent:
    return intent.model_copy(update={"read_reach": tuple(projects)})


def test_what_the_run_read_is_in_the_reach_though_the_model_leaves_it_out() -> None:
    snap = snapshot(staffing=staffed(("east", "north")))
    got = decide(having_read(email(projects=("east",)), "north"), snap)
    assert got.outcome is Outcome.ALLOW and got.reach == ("east", "north")


def test_a_run_that_read_one_side_cannot_act_on_the_other() -> None:
    snap = snapshot(staffing=staffed(("east",)), barriers=(WALL,))
    got = decide(having_read(email(projects=("east",)), "west"), snap)
    assert (got.outcome, got.rule) == (Outcome.REJECT, "barrier_crossed")


def test_the_human_who_asked_must_stand_where_the_run_read() -> None:
    snap = replace(
        snapshot(staffing=staffed(("east", "north"))),
        requester=BEN,
        requester_staffing=standing({"east": StaffRole.APPROVER}),
    )
    declared_only = asked_by(email(projects=("east",)))
    assert decide(declared_only, snap).outcome is Outcome.ALLOW
    got = decide(having_read(declared_only, "north"), snap)
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_not_staffed")


def test_a_spend_cap_on_what_the_run_read_binds_its_payment() -> None:
    cap = spend_cap(10_000, projects=("north",))
    snap = snapshot(
        staffing=staffed(("east", "north")), commitments=(cap,), committed_spend={cap.id: 9_000}
    )
    assert decide(payment(5_000, projects=("east",)), snap).outcome is Outcome.ALLOW
    got = decide(having_read(payment(5_000, projects=("east",)), "north"), snap)
    assert (got.outcome, got.rule) == (Outcome.HOLD, "spend_cap")


def test_a_run_that_read_nothing_digests_as_before() -> None:
    intent = email()
    body = intent.model_dump(mode="json")
    before = {
        k: v for k, v in body.items() if k not in ("pin", "requested_by", "read_reach", "read_refs")
    }
    assert intent.digest == digest(before)
    read = having_read(intent, "east")
    assert read.digest == digest({**before, "read_reach": ["east"]}) != intent.digest


SIDES = st.sampled_from(sorted(PROJECTS))


@PROP
@given(
    declared=st.frozensets(SIDES, min_size=1),
    read=st.frozensets(SIDES),
    agent_on=st.frozensets(SIDES),
    walled=st.booleans(),
)
def test_no_decision_leaves_out_a_project_whose_content_reached_the_run(
    declared: frozenset[str], read: frozenset[str], agent_on: frozenset[str], walled: bool
) -> None:
    """Whatever is declared, read and staffed: an intent that is let through or held has
    every project its run read in its reach, and was staffed and unwalled there."""
    snap = snapshot(staffing=staffed(agent_on), barriers=(WALL,) if walled else ())
    intent = having_read(email(projects=sorted(declared)), *sorted(read))
    got = decide(intent, snap)
    assert known_reach(intent, {}) == declared | read
    if got.outcome is not Outcome.REJECT:
        assert set(got.reach) >= declared | read
        assert declared | read <= agent_on
        assert not (walled and {"east", "west"} <= declared | read)
