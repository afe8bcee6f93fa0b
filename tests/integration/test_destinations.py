"""Established destinations through the store, on SQLite and PostgreSQL: the founder
keeps them as configuration on the chain; the broker holds what goes anywhere else, and
names the outside record where new bank details first appeared."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import update

from adapters.store.store import Store
from adapters.store.tables import DestinationRow
from domain.errors import Forbidden, NotFound
from domain.governance.intents import Intent, Outcome, Stage
from domain.needs_you.items import QueueItem
from domain.organization.kinds import DestinationKind, StaffRole
from tests.fakes.governance import FIRM_PAYEE
from tests.support import Firm, payment_intent, utc_now
from usecases import counterfactual, destinations, governance, memory, needs_you, organization
from usecases.context import Ports

NEW_IBAN = "GB94 BARC 1020 1530 0934 59"


def _email(firm: Firm, to: str, **update: object) -> Intent:
    intent = payment_intent(firm.org, firm.agents["orion"], 0)
    return intent.model_copy(
        update={
            "tool": "email.send",
            "payload": {"to": to, "subject": "Exclusivity", "body": "Terms attached."},
            "cost_cents": 0,
            **update,
        }
    )


def _close(store: Store, firm: Firm, intent_id: str) -> None:
    """Close an intent (its key released), as its run ending would."""
    governance.close(store.governance, firm.org, intent_id, "run_ended", "test", utc_now())


def _decide(store: Store, intent: Intent):  # type: ignore[no-untyped-def]
    return governance.decide(store.governance, intent, utc_now())


def test_a_new_recipient_is_held_until_the_founder_establishes_it(
    services: Ports, store: Store, firm: Firm
) -> None:
    held = _decide(store, _email(firm, "deals@gmail.example"))
    assert (held.outcome, held.stage, held.rule) == (Outcome.HOLD, Stage.EGRESS, "new_destination")
    _close(store, firm, held.intent_id)
    kept = destinations.establish(
        services,
        firm.org,
        firm.founder,
        destinations.Establish("east", DestinationKind.EMAIL, " Deals@Gmail.example ", label="x"),
    )
    assert kept.value == "deals@gmail.example"
    allowed = _decide(store, _email(firm, "deals@gmail.example"))
    assert allowed.outcome is Outcome.ALLOW
    _close(store, firm, allowed.intent_id)
    again = destinations.establish(
        services,
        firm.org,
        firm.founder,
        destinations.Establish("east", DestinationKind.EMAIL, "deals@gmail.example"),
    )
    assert again.id == kept.id  # establishing it twice is one destination
    destinations.retire(services, firm.org, firm.founder, kept.id)
    assert _decide(store, _email(firm, "deals@gmail.example")).rule == "new_destination"
    listed = destinations.destinations(services, firm.org, firm.founder)
    assert kept.id not in {d.id for d in listed}
    every = destinations.destinations(services, firm.org, firm.founder, current=False)
    assert kept.id in {d.id for d in every}
    assert store.audit.verify(firm.org).ok


def test_only_the_founder_establishes_and_a_member_sees_only_their_side(
    services: Ports, store: Store, firm: Firm
) -> None:
    with pytest.raises(Forbidden):
        destinations.establish(
            services,
            firm.org,
            firm.associate,
            destinations.Establish("east", DestinationKind.EMAIL_DOMAIN, "evil.example"),
        )
    with pytest.raises(NotFound):
        destinations.establish(
            services,
            firm.org,
            firm.founder,
            destinations.Establish("nowhere", DestinationKind.EMAIL_DOMAIN, "x.example"),
        )
    with pytest.raises(ValueError):
        destinations.establish(
            services,
            firm.org,
            firm.founder,
            destinations.Establish("east", DestinationKind.EMAIL, "no-at-sign"),
        )
    seen = {d.project for d in destinations.destinations(services, firm.org, firm.associate)}
    assert seen == {"east"}  # Ben is on east only: west's clients are not his to see


def test_changed_bank_details_are_held_naming_the_invoice_they_came_from(
    services: Ports, store: Store, firm: Firm
) -> None:
    memory.remember(
        services,
        firm.org,
        firm.founder,
        memory.Remember(
            "inv-0412",
            ("east",),
            f"Invoice 0412 from {FIRM_PAYEE}. Our bank details have changed: {NEW_IBAN}.",
            kind="invoice",
            source="billing@northwind-payments.example",
        ),
    )
    intent = payment_intent(firm.org, firm.agents["ledger"], 5_000)
    redirected = intent.model_copy(
        update={
            "payload": {**intent.payload, "payee": FIRM_PAYEE, "account": NEW_IBAN},
            "read_refs": ("inv-0412",),
        }
    )
    held = _decide(store, redirected)
    assert (held.outcome, held.rule) == (Outcome.HOLD, "new_destination")
    assert f"the bank account ending 3459 for {FIRM_PAYEE}" in held.reason
    assert "first appears in the inbound invoice inv-0412, received " in held.reason
    assert "from billing@northwind-payments.example" in held.reason
    assert held.evidence == ("record:inv-0412",)
    # The founder establishes the new details for the payee (what approving with
    # "establish" does); the next payment to them goes out.
    made = destinations.establish_for(services, firm.org, firm.founder, redirected, held.reach)
    assert [(d.kind, d.account) for d in made] == [
        (DestinationKind.PAYEE, "GB94BARC10201530093459")
    ]
    again = payment_intent(firm.org, firm.agents["ledger"], 5_000)
    again = again.model_copy(
        update={"payload": {**again.payload, "payee": FIRM_PAYEE, "account": NEW_IBAN}}
    )
    assert _decide(store, again).outcome is Outcome.ALLOW
    assert store.audit.verify(firm.org).ok


def test_a_destination_row_edited_outside_the_chain_breaks_verification(
    services: Ports, store: Store, firm: Firm
) -> None:
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(
            update(DestinationRow)
            .where(DestinationRow.org_id == firm.org, DestinationRow.value == "client.example")
            .values(value="evil.example")
        )
    result = store.audit.verify(firm.org)
    assert not result.ok and "destination" in (result.problem or "")


def test_no_email_through_the_store_goes_where_its_reach_has_not_established(
    services: Ports, store: Store, firm: Firm
) -> None:
    """For random destinations established on east and west and random recipient lists,
    through the store (under the organization's lock, destinations read from the
    configuration as the chain records it): a message is let through exactly when every
    recipient is established on every project it reaches; otherwise it is held."""
    names = st.sampled_from(["atlas", "birch", "cedar", "dune"])

    @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        kept=st.sets(st.tuples(st.sampled_from(["east", "west"]), names), max_size=5),
        sent=st.lists(names, min_size=1, max_size=3),
        side=st.sampled_from(["east", "west"]),
    )
    def check(kept: set[tuple[str, str]], sent: list[str], side: str) -> None:
        n = uuid.uuid4().hex[:6]  # this example's own domains: earlier ones do not count
        destinations.establish_all(
            services,
            firm.org,
            firm.founder,
            [
                destinations.Establish(p, DestinationKind.EMAIL_DOMAIN, f"{d}-{n}.example")
                for p, d in sorted(kept)
            ],
        )
        agent = firm.agents["orion" if side == "east" else "vega"]
        intent = _email(firm, ", ".join(f"x@{d}-{n}.example" for d in sent))
        intent = intent.model_copy(update={"principal_id": agent, "projects": (side,)})
        got = _decide(store, intent)
        if got.outcome is not Outcome.REJECT:
            _close(store, firm, got.intent_id)
        everywhere = all((side, d) in kept for d in sent)
        assert (got.outcome is Outcome.ALLOW) == everywhere, (kept, sent, side, got)
        if not everywhere:
            assert (got.outcome, got.stage) == (Outcome.HOLD, Stage.EGRESS), got

    check()
    assert store.audit.verify(firm.org).ok


def test_a_mailing_in_one_run_waits_for_a_human_even_in_one_batch(
    services: Ports, store: Store, firm: Firm
) -> None:
    """Six messages of one run to six client addresses, decided in one batch (a group
    commit): the first five go out, the sixth waits, counted under the organization's
    lock with the batch's own rows."""
    run = f"run-{uuid.uuid4().hex[:8]}"
    batch = [
        _email(firm, f"p{i}@client.example").model_copy(update={"run_id": run}) for i in range(6)
    ]
    got = governance.decide_many(store.governance, batch, utc_now())
    assert [d.outcome for d in got] == [Outcome.ALLOW] * 5 + [Outcome.HOLD]
    assert got[5].rule == "many_recipients"
    # the counterfactual replays the mailing as it was decided
    replayed = counterfactual.counterfactual(services, got[5].intent_id, firm.founder)
    assert any("many_recipients" in (s.rule or "") for s in replayed.stages)
    assert store.audit.verify(firm.org).ok


def test_an_approver_who_is_not_the_founder_sees_the_provenance_in_the_queue(
    services: Ports, store: Store, firm: Firm
) -> None:
    """The hold's provenance is for whoever decides it: an East approver (not the
    founder) sees the invoice named in the reason and as the record it rests on; the
    counterfactual replays the same hold."""
    cleo = organization.add_human(services, firm.org, firm.founder, "cleo@hv.example", "Cleo").id
    organization.staff(
        services, firm.org, firm.founder, organization.AssignStaff(cleo, "east", StaffRole.APPROVER)
    )
    memory.remember(
        services,
        firm.org,
        firm.founder,
        memory.Remember(
            "inv-0413",
            ("east",),
            f"Invoice 0413. New bank details: {NEW_IBAN}.",
            kind="invoice",
            source="billing@northwind-payments.example",
        ),
    )
    intent = payment_intent(firm.org, firm.agents["ledger"], 5_000)
    intent = intent.model_copy(
        update={
            "payload": {**intent.payload, "payee": FIRM_PAYEE, "account": NEW_IBAN},
            "read_refs": ("inv-0413",),
        }
    )
    assert _decide(store, intent).outcome is Outcome.HOLD
    (item,) = (
        i
        for i in needs_you.needs_you(services, firm.org, cleo).items
        if isinstance(i, QueueItem) and i.subject_id == intent.id
    )
    said = [(e.label, e.detail, e.ref) for e in item.evidence]
    reason = next(d for label, d, _ in said if label == "reason")
    assert "first appears in the inbound invoice inv-0413" in reason
    assert ("rests on", "record", "inv-0413") in said
    replayed = counterfactual.counterfactual(services, intent.id, cleo)
    assert any("inv-0413" in (s.reason or "") for s in replayed.stages)


def test_a_record_the_run_read_counts_in_the_reach_though_nothing_else_says_so(
    services: Ports, store: Store, firm: Firm
) -> None:
    """A run handed a West record (a work graph's earlier step read it) proposes East
    work: the record's project is in the reach, so the wall stands."""
    intent = _email(firm, "cfo@client.example").model_copy(update={"read_refs": ("birch-cim",)})
    got = _decide(store, intent)
    assert (got.outcome, got.rule) == (Outcome.REJECT, "barrier_crossed")
    assert set(got.reach) == {"east", "west"}
