"""What the run read and who asked, decided through the store's unit of work on SQLite and
PostgreSQL: the snapshot loads the spend caps over every project the run read (not only
the declared ones), and the requester with their staffing."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.store.store import Store
from domain.governance.intents import Intent, Outcome
from domain.needs_you.items import QueueItem
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from tests.support import establish_test_payees, payment_intent, utc_now
from usecases import commitments, counterfactual, governance, needs_you, organization
from usecases.context import Ports

CAP = 100_000


def _firm(services: Ports) -> tuple[str, str, str, str]:
    """Ledger on east and north; a confirmed cap on north; Ben, a member on east."""
    done = organization.onboard(services, "Reach", f"f{uuid.uuid4().hex[:8]}@reach.example")
    org, founder = done.org.id, done.founder.id
    ledger = next(a.id for a in done.agents if a.handle == "ledger")
    for slug in ("east", "north"):
        organization.add_project(services, org, founder, slug, slug.title())
        organization.staff(
            services, org, founder, organization.AssignStaff(ledger, slug, StaffRole.MEMBER)
        )
    cap = commitments.add_commitment(
        services,
        org,
        founder,
        commitments.AddCommitment("cap", SpendCap(limit_cents=CAP), "l", projects=("north",)),
    )
    commitments.confirm(services, cap.id, founder)
    ben = organization.add_human(services, org, founder, "ben@reach.example", "Ben").id
    organization.staff(
        services, org, founder, organization.AssignStaff(ben, "east", StaffRole.MEMBER)
    )
    establish_test_payees(services, org, founder, ("east", "north"))
    return org, founder, ledger, ben


def _pay(org: str, agent: str, amount: int, project: str, **update: object) -> Intent:
    intent = payment_intent(org, agent, amount)
    return intent.model_copy(update={"projects": (project,), **update})


def test_a_cap_over_what_the_run_read_counts_what_it_already_committed(
    services: Ports, store: Store
) -> None:
    org, _, ledger, _ = _firm(services)
    first = governance.decide(store.governance, _pay(org, ledger, 60_000, "north"), utc_now())
    assert first.outcome is Outcome.ALLOW
    read_north = _pay(org, ledger, 60_000, "east", read_reach=("north",))
    got = governance.decide(store.governance, read_north, utc_now())
    assert (got.outcome, got.rule, got.reach) == (Outcome.HOLD, "spend_cap", ("east", "north"))
    # declared and read alike on east only, the north cap does not bind it
    alone = governance.decide(store.governance, _pay(org, ledger, 60_000, "east"), utc_now())
    assert alone.outcome is Outcome.ALLOW
    assert store.audit.verify(org).ok


def test_the_requester_is_loaded_with_their_staffing(services: Ports, store: Store) -> None:
    org, founder, ledger, ben = _firm(services)
    cases = {
        founder: (Outcome.ALLOW, "all_stages_passed"),
        ben: (Outcome.HOLD, "requester_not_approver"),
        "p-nobody": (Outcome.REJECT, "requester_unknown"),
    }
    for who, wanted in cases.items():
        asked = _pay(org, ledger, 5_000, "east", requested_by=who)
        got = governance.decide(store.governance, asked, utc_now())
        assert (got.outcome, got.rule) == wanted, (who, got.reason)
    on_north = _pay(org, ledger, 5_000, "north", requested_by=ben)
    got = governance.decide(store.governance, on_north, utc_now())
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_not_staffed")
    # the recorded intent names who asked: the audit entry carries it
    entry = next(e for e in store.audit.entries(org) if e.intent_id == on_north.id)
    assert entry.payload["intent"]["requested_by"] == ben
    assert store.audit.verify(org).ok


def test_the_queue_says_who_asked_for_a_held_intent(services: Ports, store: Store) -> None:
    org, founder, ledger, ben = _firm(services)
    asked = _pay(org, ledger, 5_000, "east", requested_by=ben)
    assert governance.decide(store.governance, asked, utc_now()).outcome is Outcome.HOLD
    unasked = _pay(org, ledger, 250_000, "east")  # over the threshold; the system's
    assert governance.decide(store.governance, unasked, utc_now()).outcome is Outcome.HOLD
    items = {
        i.subject_id: i
        for i in needs_you.needs_you(services, org, founder).items
        if isinstance(i, QueueItem)
    }
    said = {i: {e.label: e.detail for e in items[i].evidence} for i in (asked.id, unasked.id)}
    assert said[asked.id]["asked by"] == "Ben"
    assert said[asked.id]["rule"] == "scope_barriers: requester_not_approver"
    assert "Ben asked for this and does not approve spending on East" in said[asked.id]["reason"]
    assert said[unasked.id]["asked by"] == "system"
    # ... and so does the counterfactual, beside what was done
    assert counterfactual.counterfactual(services, asked.id, founder).requested_by == ben
    assert counterfactual.counterfactual(services, unasked.id, founder).requested_by is None


ROLES = st.sampled_from([StaffRole.MEMBER, StaffRole.APPROVER])
PLACES = st.sampled_from(["east", "north", "west"])


def test_no_delegation_through_the_store_reaches_past_the_human_or_what_was_read(
    services: Ports, store: Store
) -> None:
    """For random staffing of the human who asks, random declared projects and random
    reads (east and west behind a wall; the agent on east and north): what the broker
    lets through or holds reaches everything the run read, stays within the human's
    staffing and on one side of the wall, and moves money unheld only where the human
    approves."""
    org, founder, ledger, _ = _firm(services)
    organization.add_project(services, org, founder, "west", "West")
    organization.add_barrier(services, org, founder, "wall", [["east"], ["west"]], "east")

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        mine=st.dictionaries(PLACES, ROLES),
        declared=st.frozensets(PLACES, min_size=1),
        read=st.frozensets(PLACES),
        amount=st.sampled_from([0, 5_000]),
    )
    def check(
        mine: dict[str, StaffRole], declared: frozenset[str], read: frozenset[str], amount: int
    ) -> None:
        n = uuid.uuid4().hex[:8]
        human = organization.add_human(services, org, founder, f"h{n}@reach.example", n).id
        for project, role in mine.items():  # a human may stand on both sides of the wall
            organization.staff(
                services, org, founder, organization.AssignStaff(human, project, role)
            )
        standing = mine
        intent = _pay(org, ledger, amount or 1, sorted(declared)[0])
        intent = intent.model_copy(
            update={
                "projects": tuple(sorted(declared)),
                "read_reach": tuple(sorted(read)),
                "requested_by": human,
            }
        )
        if not amount:  # an email moves no money
            intent = intent.model_copy(
                update={
                    "tool": "email.send",
                    "cost_cents": 0,
                    "payload": {"to": f"c{n}@client.example", "subject": "s", "body": "b"},
                }
            )
        got = governance.decide(store.governance, intent, utc_now())
        reach = set(got.reach)
        assert reach >= declared | read, got
        if got.outcome in (Outcome.ALLOW, Outcome.HOLD):
            assert reach <= set(standing) and not {"east", "west"} <= reach, got
        if got.outcome is Outcome.ALLOW and amount:
            assert all(standing[p] is StaffRole.APPROVER for p in reach), got

    check()
    assert store.audit.verify(org).ok
