"""The broker holds an intent that would break a confirmed delivery obligation: a
delivery to its recipient, on its projects, at or after its due moment."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.governance.broker import decide
from domain.governance.intents import Decision, Outcome, Stage
from domain.organization.contracts import Commitment, Delivery, Provenance
from domain.organization.kinds import DestinationKind, ReviewState
from tests.unit.test_governance_broker_properties import (
    NOW,
    ORG,
    PROP,
    destination,
    email,
    established,
    payment,
    snapshot,
    spend_cap,
    staffed,
)

RECIPIENT = "cfo@atlas-client.example"
CLIENTS = established(
    *(
        destination(project, DestinationKind.EMAIL_DOMAIN, domain)
        for project in ("east", "north")
        for domain in ("atlas-client.example", "else.example", "example.com", "x.example")
    ),
    *(destination(project, DestinationKind.PAYEE, "acme") for project in ("east", "north")),
)
"""The recipients these tests send to are established: only a delivery holds them."""


def delivery(
    *,
    due: datetime = NOW - timedelta(hours=1),
    recipient: str | None = RECIPIENT,
    state: ReviewState = ReviewState.CONFIRMED,
    projects: tuple[str, ...] = ("east",),
    valid_until: datetime | None = None,
) -> Commitment:
    return Commitment(
        id="c-delivery",
        org_id=ORG,
        title="Atlas data-room index",
        constraint=Delivery(deliverable="the data-room index", due=due, recipient=recipient),
        provenance=Provenance(source="atlas-engagement-letter", recorded_by="p-founder"),
        state=state,
        projects=projects,
        valid_from=NOW - timedelta(days=10),
        valid_until=valid_until,
    )


def decided(
    commitment: Commitment, to: str = RECIPIENT, projects: tuple[str, ...] = ("east",)
) -> Decision:
    snap = snapshot(
        staffing=staffed({"east", "north"}), commitments=(commitment,), counterparties=CLIENTS
    )
    return decide(email(projects=projects, to=to), snap)


def test_a_late_delivery_to_the_recipient_is_held_for_a_human() -> None:
    decision = decided(delivery())

    assert decision.outcome is Outcome.HOLD
    assert decision.stage is Stage.COMMITMENTS
    assert decision.rule == "delivery_overdue"
    assert "Atlas data-room index" in decision.reason and "was due" in decision.reason
    assert any("approves for east" in r for r in decision.release)


def test_the_recipient_is_compared_without_case_or_surrounding_space() -> None:
    assert decided(delivery(), to=" CFO@Atlas-Client.example ").rule == "delivery_overdue"


@pytest.mark.parametrize(
    ("commitment", "to", "projects"),
    [
        (delivery(due=NOW + timedelta(minutes=1)), RECIPIENT, ("east",)),  # not yet due
        (delivery(state=ReviewState.EXTRACTED), RECIPIENT, ("east",)),  # evidence only
        (delivery(state=ReviewState.REJECTED), RECIPIENT, ("east",)),
        (delivery(valid_until=NOW), RECIPIENT, ("east",)),  # no longer valid
        (delivery(), "someone@else.example", ("east",)),  # not its recipient
        (delivery(), RECIPIENT, ("north",)),  # not its project
        (
            delivery().model_copy(update={"fulfilled_by": "p", "fulfilled_at": NOW}),
            RECIPIENT,
            ("east",),
        ),  # marked delivered
    ],
    ids=["early", "extracted", "rejected", "expired", "other-recipient", "other-project", "kept"],
)
def test_nothing_else_is_held(commitment: Commitment, to: str, projects: tuple[str, ...]) -> None:
    assert decided(commitment, to=to, projects=projects).outcome is Outcome.ALLOW


def test_an_obligation_naming_no_recipient_holds_any_late_delivery_on_its_projects() -> None:
    assert decided(delivery(recipient=None), to="anyone@x.example").rule == "delivery_overdue"
    assert decided(delivery(recipient=None), projects=("north",)).outcome is Outcome.ALLOW


def test_an_obligation_of_the_whole_organization_covers_every_project() -> None:
    assert decided(delivery(projects=()), projects=("north",)).rule == "delivery_overdue"


def test_a_payment_delivers_nothing_and_is_not_held_by_a_delivery() -> None:
    snap = snapshot(staffing=staffed({"east"}), commitments=(delivery(recipient=None),))
    assert decide(payment(500), snap).outcome is Outcome.ALLOW


def test_a_spend_cap_and_a_delivery_side_by_side_each_do_their_own_work() -> None:
    commitments = (spend_cap(1_000, projects=("east",)), delivery())
    snap = snapshot(staffing=staffed({"east"}), commitments=commitments)
    assert decide(payment(5_000), snap).rule == "spend_cap"
    assert decide(email(to=RECIPIENT), snap).rule == "delivery_overdue"


@PROP
@given(offset=st.integers(-10_000, 10_000))
def test_held_exactly_from_the_due_moment_on(offset: int) -> None:
    due = NOW + timedelta(seconds=offset)
    held = decided(delivery(due=due)).outcome is Outcome.HOLD
    assert held == (NOW >= due)
