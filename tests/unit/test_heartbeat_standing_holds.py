"""The broker holds an intent that moves money on a project under an open standing hold
(placed through the broker by Sentinel when a spend cap expired); the heartbeat proposes
one for an expired spend cap, once per subject."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from domain.governance.broker import decide
from domain.governance.intents import Outcome, Stage
from domain.heartbeat.checks import (
    HOLDS_PLACE,
    CommitmentFacts,
    OrgSnapshot,
    expired_commitments,
    proposals,
)
from domain.organization.contracts import Commitment, Obligation, Provenance, SpendCap, StandingHold
from domain.organization.kinds import ReviewState
from tests.unit.test_governance_broker_properties import NOW, ORG, email, payment, snapshot, staffed

PROJECTS = ("east", "west", "north")


def standing(
    projects: tuple[str, ...] = ("east",), released: bool = False, hold_id: str = "h-1"
) -> StandingHold:
    return StandingHold(
        id=hold_id,
        org_id=ORG,
        subject="commitment_expired:c-cap",
        projects=projects,
        cites="c-cap",
        reason="commitment 'Atlas cap' expired",
        placed_by="p-sentinel",
        placed_at=NOW - timedelta(hours=2),
        released_by="p-founder" if released else None,
        released_at=NOW - timedelta(hours=1) if released else None,
        release_reason="renewed" if released else "",
    )


def decided_payment(
    holds: tuple[StandingHold, ...], amount: int = 5_000, projects: tuple[str, ...] = ("east",)
) -> tuple[Outcome, str, tuple[str, ...]]:
    snap = dataclasses.replace(snapshot(staffing=staffed({"east", "north"})), standing_holds=holds)
    d = decide(payment(amount, projects=projects), snap)
    return d.outcome, d.rule, d.release


def test_a_payment_under_an_open_standing_hold_waits_for_a_human() -> None:
    snap = dataclasses.replace(snapshot(staffing=staffed({"east"})), standing_holds=(standing(),))
    d = decide(payment(5_000), snap)
    assert (d.outcome, d.stage, d.rule) == (Outcome.HOLD, Stage.COMMITMENTS, "standing_hold")
    assert "since 2 Jun 2025, 07:30 UTC" in d.reason and "Atlas cap" in d.reason
    assert any("approves for east" in r for r in d.release)
    assert any("releases that hold on spending" in r for r in d.release)


def test_a_released_hold_another_project_or_no_money_holds_nothing() -> None:
    assert decided_payment((standing(released=True),))[0] is Outcome.ALLOW
    assert decided_payment((standing(),), projects=("north",))[0] is Outcome.ALLOW
    snap = dataclasses.replace(snapshot(staffing=staffed({"east"})), standing_holds=(standing(),))
    assert decide(email(), snap).outcome is Outcome.ALLOW


def test_an_organization_wide_hold_holds_payments_on_every_project() -> None:
    assert decided_payment((standing(projects=()),), projects=("north",))[1] == "standing_hold"


@given(
    hold_projects=st.lists(st.sampled_from(PROJECTS), max_size=3, unique=True),
    pay_projects=st.lists(st.sampled_from(("east", "north")), min_size=1, max_size=2, unique=True),
    released=st.booleans(),
    amount=st.integers(min_value=1, max_value=99_999),
)
def test_a_payment_passes_only_when_no_open_hold_covers_its_reach(
    hold_projects: list[str], pay_projects: list[str], released: bool, amount: int
) -> None:
    """Under the approval threshold and with no cap, the standing hold alone decides."""
    outcome, rule, _ = decided_payment(
        (standing(tuple(hold_projects), released),), amount, tuple(pay_projects)
    )
    covered = not released and (not hold_projects or bool(set(hold_projects) & set(pay_projects)))
    assert (outcome is Outcome.HOLD and rule == "standing_hold") == covered
    assert (outcome is Outcome.ALLOW) == (not covered)


def _commitment(constraint: SpendCap | Obligation, expired: bool = True) -> Commitment:
    return Commitment(
        id="c-cap",
        org_id=ORG,
        title="Atlas cap",
        constraint=constraint,
        provenance=Provenance(source="engagement letter", recorded_by="p-founder"),
        state=ReviewState.CONFIRMED,
        projects=("east",),
        valid_from=NOW - timedelta(days=30),
        valid_until=NOW - timedelta(days=1) if expired else NOW + timedelta(days=1),
    )


def _org(c: Commitment, **changes: object) -> OrgSnapshot:
    return OrgSnapshot(
        org_id=ORG,
        commitments=(CommitmentFacts(commitment=c, recorded_at=NOW - timedelta(days=30)),),
        sentinel_id="p-sentinel",
        sentinel_projects=("east",),
        **changes,  # type: ignore[arg-type]
    )


def test_sentinel_proposes_a_standing_hold_for_an_expired_spend_cap_once() -> None:
    snap = _org(_commitment(SpendCap(limit_cents=500_000)))
    (finding,) = expired_commitments(snap, NOW)
    proposed = proposals(finding, snap)
    assert [a.tool for a in proposed] == ["findings.file", HOLDS_PLACE]
    hold = proposed[1]
    assert hold.projects == ("east",) and hold.cost_cents == 0
    assert hold.payload["subject"] == finding.subject and hold.payload["cites"] == "c-cap"
    # Placed already (open or released: a human decided), or proposed lately: not again.
    for changes in (
        {"standing_holds": (standing(),)},
        {"standing_holds": (standing(released=True),)},
        {"recently_proposed_holds": (finding.subject,)},
    ):
        again = _org(_commitment(SpendCap(limit_cents=500_000)), **changes)
        assert HOLDS_PLACE not in [a.tool for a in proposals(finding, again)]


def test_no_standing_hold_for_an_expired_obligation_or_a_live_cap() -> None:
    snap = _org(_commitment(Obligation(text="monthly report")))
    (finding,) = expired_commitments(snap, NOW)
    assert HOLDS_PLACE not in [a.tool for a in proposals(finding, snap)]
    assert expired_commitments(_org(_commitment(SpendCap(limit_cents=1), expired=False)), NOW) == []
