"""The broker decides on who asked: a run acts for the human who started it, and its
agent may act only where that human has standing (staffed on every project the intent
reaches, on the same side of every wall; an approver there to move money)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.canonical import digest
from domain.governance.broker import decide
from domain.governance.intents import Intent, Outcome, Stage
from domain.governance.values import BrokerSnapshot
from domain.organization.contracts import Barrier, Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from tests.unit.test_governance_broker_properties import (
    AGENT,
    NOW,
    ORG,
    PROJECTS,
    PROP,
    email,
    payment,
    snapshot,
    staffed,
    staffing_row,
)

BEN = Principal(
    id="p-ben", org_id=ORG, kind=PrincipalKind.HUMAN, handle="ben", display_name="Ben Ng"
)
WALL = Barrier(id="b-1", org_id=ORG, name="Atlas/Birch", groups=(("east",), ("west",)))


def asked_by(intent: Intent, who: Principal = BEN) -> Intent:
    return intent.model_copy(update={"requested_by": who.id})


def standing(
    projects: dict[str, StaffRole], who: Principal = BEN, **row: object
) -> tuple[Staffing, ...]:
    return tuple(
        staffing_row(p, role=role, principal=who, **row)  # type: ignore[arg-type]
        for p, role in sorted(projects.items())
    )


def snap(
    requester_staffing: tuple[Staffing, ...],
    *,
    agent_on: tuple[str, ...] = ("east", "west", "north"),
    barriers: tuple[Barrier, ...] = (),
    requester: Principal | None = BEN,
) -> BrokerSnapshot:
    # The agent alone could do it: whatever the broker refuses, it refuses for who asked.
    return replace(
        snapshot(staffing=staffed(agent_on), barriers=barriers),
        requester=requester,
        requester_staffing=requester_staffing,
    )


def test_a_member_of_east_cannot_have_a_west_agent_act_across_the_wall() -> None:
    west_agent_only = snap(
        standing({"east": StaffRole.MEMBER}), agent_on=("west",), barriers=(WALL,)
    )
    unasked = decide(email(projects=("west",)), west_agent_only)
    assert unasked.outcome is Outcome.ALLOW  # the agent's own standing would do
    got = decide(asked_by(email(projects=("west",))), west_agent_only)
    assert (got.outcome, got.stage, got.rule) == (Outcome.REJECT, Stage.SCOPE, "barrier_crossed")
    assert "Ben Ng asked for this from east" in got.reason and "Atlas/Birch" in got.reason


def test_a_member_acts_through_agents_only_where_staffed() -> None:
    only_north = snap(standing({"north": StaffRole.MEMBER}))
    assert decide(asked_by(email(projects=("north",))), only_north).outcome is Outcome.ALLOW
    got = decide(asked_by(email(projects=("north", "east"))), only_north)
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_not_staffed")
    assert got.reason == "Ben Ng asked for this and is not staffed on east"


def test_a_record_the_run_cites_counts_in_the_requesters_reach() -> None:
    intent = asked_by(email(projects=("north",), references=("birch-cim",)))
    got = decide(
        intent,
        replace(snap(standing({"north": StaffRole.MEMBER})), records={"birch-cim": ("west",)}),
    )
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_not_staffed")


def test_money_asked_for_by_a_member_waits_for_an_approver() -> None:
    member = snap(standing({"east": StaffRole.MEMBER}))
    got = decide(asked_by(payment(5_000)), member)
    assert (got.outcome, got.stage, got.rule) == (
        Outcome.HOLD,
        Stage.SCOPE,
        "requester_not_approver",
    )
    assert "Ben Ng asked for this and does not approve spending on east" in got.reason
    assert got.release and "approves for east approves this payment" in got.release[0]
    approver = snap(standing({"east": StaffRole.APPROVER}))
    assert decide(asked_by(payment(5_000)), approver).outcome is Outcome.ALLOW
    # An email moves no money: a member may have it sent.
    assert decide(asked_by(email()), member).outcome is Outcome.ALLOW


def test_a_requester_who_is_gone_unknown_or_not_a_human_grants_nothing() -> None:
    rows = standing({"east": StaffRole.APPROVER})
    suspended = BEN.model_copy(update={"status": PrincipalStatus.SUSPENDED})
    cases = {
        "requester_inactive": snap(rows, requester=suspended),
        "requester_unknown": snap(rows, requester=None),
        "requester_not_human": snap(rows, requester=AGENT),
    }
    for rule, given_snap in cases.items():
        who = AGENT if rule == "requester_not_human" else BEN
        got = decide(asked_by(email(), who), given_snap)
        assert (got.outcome, got.rule) == (Outcome.REJECT, rule), rule
    lapsed = standing({"east": StaffRole.APPROVER}, valid_until=NOW - timedelta(seconds=1))
    assert decide(asked_by(email()), snap(lapsed)).rule == "requester_not_staffed"


def test_work_nobody_asked_for_stands_on_the_agent_alone() -> None:
    got = decide(email(projects=("west",)), snap((), agent_on=("west",), barriers=(WALL,)))
    assert got.outcome is Outcome.ALLOW


def test_the_requester_is_part_of_what_an_approval_binds() -> None:
    intent = payment(5_000)
    # An intent nobody asked for digests as intents did before requesters existed.
    body = intent.model_dump(mode="json")
    before = {
        k: v for k, v in body.items() if k not in ("pin", "requested_by", "read_reach", "read_refs")
    }
    assert intent.digest == digest(before)
    asked = asked_by(intent)
    assert asked.digest == digest({**before, "requested_by": BEN.id}) != intent.digest


SIDES = st.sampled_from(sorted(PROJECTS))
ROLES = st.sampled_from(list(StaffRole))


@PROP
@given(
    mine=st.dictionaries(SIDES, ROLES),
    reach=st.frozensets(SIDES, min_size=1),
    amount=st.sampled_from([0, 1, 50_000]),
    walled=st.booleans(),
)
def test_no_delegation_gives_more_authority_than_the_human_has(
    mine: dict[str, StaffRole], reach: frozenset[str], amount: int, walled: bool
) -> None:
    """Whatever the human's staffing, an intent their run proposes goes out unheld only
    within their standing, and moves money unheld only where they approve."""
    barriers = (Barrier(id="b", org_id=ORG, name="w", groups=(("east",), ("west",))),)
    # The agent is staffed on the reach: alone, it could act there (but across a wall).
    given_snap = snap(standing(mine), agent_on=tuple(reach), barriers=barriers if walled else ())
    intent = asked_by(
        payment(amount, projects=sorted(reach)) if amount else email(projects=sorted(reach))
    )
    got = decide(intent, given_snap)
    assert got.outcome is not Outcome.REJECT or got.rule.startswith(("requester_", "barrier_"))
    if got.outcome in (Outcome.ALLOW, Outcome.HOLD):
        assert reach <= set(mine)
    if got.outcome is Outcome.ALLOW and amount:
        assert all(mine[p] is StaffRole.APPROVER for p in reach)
    if walled and "east" in reach and "west" in reach:
        assert got.outcome is Outcome.REJECT


@pytest.mark.parametrize("role", list(StaffRole))
def test_a_human_who_stands_on_one_side_has_no_standing_on_the_other(role: StaffRole) -> None:
    """As the founder who chose East when the wall went up: no standing West."""
    got = decide(
        asked_by(email(projects=("west",))),
        snap(standing({"east": role}), agent_on=("west",), barriers=(WALL,)),
    )
    assert got.rule == "barrier_crossed"


def test_a_human_who_stayed_approver_on_both_sides_may_have_either_side_worked() -> None:
    """As the founder who stayed approver on every side as the wall went up (reading the
    memory of none): an agent of either side may act for them, on its own side."""
    both = standing({"east": StaffRole.APPROVER, "west": StaffRole.APPROVER})
    for side in ("east", "west"):
        got = decide(
            asked_by(payment(5_000, projects=(side,))),
            snap(both, agent_on=(side,), barriers=(WALL,)),
        )
        assert got.outcome is Outcome.ALLOW, got.reason
