"""Properties of the broker: staffing, barriers, spend caps, totality and stage order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domain.governance.broker import (
    STAGES,
    StageFn,
    decide,
    evaluate,
    operation_key,
    spend_of,
    wildcard_key,
)
from domain.governance.destinations import Counterparties, normalized
from domain.governance.intents import Decision, Intent, Outcome, Stage
from domain.governance.values import BrokerSnapshot, InFlight, in_flight_by_key
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Principal,
    Provenance,
    SpendCap,
    Staffing,
)
from domain.organization.kinds import (
    CharterStatus,
    DestinationKind,
    PrincipalKind,
    PrincipalStatus,
    ReviewState,
    StaffRole,
)
from domain.tools import PAYMENTS_PAY, REGISTRY

NOW = datetime(2025, 6, 2, 9, 30, tzinfo=UTC)
ORG = "org-hv"
PROJECTS = frozenset({"east", "west", "north"})
APPROVAL_THRESHOLD = 100_000
assert PAYMENTS_PAY.approval_over_cents == APPROVAL_THRESHOLD

AGENT = Principal(
    id="p-ledger",
    org_id=ORG,
    kind=PrincipalKind.AGENT,
    handle="ledger",
    display_name="Ledger",
    agent_kind="finance",
)
DEFINITION = AgentDefinition(
    principal_id=AGENT.id, version=4, instructions="Pay what is due.", budget_cents=10**12
)
CHARTER = Charter(
    principal_id=AGENT.id,
    version=2,
    status=CharterStatus.PUBLISHED,
    role="finance",
    purpose="Pay vendors and tell clients.",
    tools=("payments.pay", "email.send"),
    budget_ceiling_cents=10**12,
    definition_pin=DEFINITION.version,
)

PROP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_ids = count(1)


# --- hand-written fakes and builders -----------------------------------------------------


class Claims:
    """In-flight operation keys with the unit of work's semantics: what it loads into
    the snapshot for an intent, and the key a verdict registers."""

    def __init__(self, held: Mapping[str, str] | None = None) -> None:
        self.held: dict[str, str] = dict(held or {})

    def in_flight(self, intent: Intent) -> dict[str, tuple[InFlight, ...]]:
        tool = REGISTRY[intent.tool]
        key, wildcard = operation_key(tool, intent.payload), wildcard_key(tool)
        return in_flight_by_key(
            InFlight(key=k, intent_id=i, status=Outcome.ALLOW)
            for k, i in self.held.items()
            if (k in (key, wildcard) if key is not None else k.startswith(wildcard[:-1]))
        )

    def decide(self, intent: Intent, snap: BrokerSnapshot) -> Decision:
        verdict = evaluate(intent, replace(snap, in_flight=self.in_flight(intent)))
        if verdict.claim is not None:
            self.held.setdefault(verdict.claim, intent.id)
        return verdict.decision


def staffing_row(
    project: str,
    *,
    role: StaffRole = StaffRole.MEMBER,
    valid_from: datetime = NOW - timedelta(days=30),
    valid_until: datetime | None = None,
    principal: Principal = AGENT,
) -> Staffing:
    return Staffing(
        id=f"s-{next(_ids)}",
        principal_id=principal.id,
        project=project,
        role=role,
        valid_from=valid_from,
        valid_until=valid_until,
    )


def staffed(projects: Iterable[str], role: StaffRole = StaffRole.MEMBER) -> tuple[Staffing, ...]:
    return tuple(staffing_row(p, role=role) for p in sorted(projects))


def destination(
    project: str, kind: DestinationKind, value: str, account: str | None = None
) -> Destination:
    return Destination(
        id=f"d-{next(_ids)}",
        project=project,
        kind=kind,
        value=normalized(kind, value),
        account=account,
        established_by="founder",
        established_at=NOW - timedelta(days=60),
    )


def established(*kept: Destination) -> Counterparties:
    """Counterparties at :data:`NOW` holding ``kept`` (and no colleagues)."""
    by_project: dict[str, tuple[Destination, ...]] = {}
    for d in kept:
        by_project[d.project] = (*by_project.get(d.project, ()), d)
    return Counterparties(by_project, {}, frozenset(), NOW)


class _Everywhere(Mapping[str, tuple[Destination, ...]]):
    """The same destinations established on every project there is."""

    def __init__(self, kept: tuple[Destination, ...]) -> None:
        self._kept = kept

    def __getitem__(self, project: str) -> tuple[Destination, ...]:
        return self._kept

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


ESTABLISHED = Counterparties(
    _Everywhere(
        (
            destination("east", DestinationKind.PAYEE, "acme"),
            destination("east", DestinationKind.EMAIL_DOMAIN, "example.com"),
            destination("east", DestinationKind.EMAIL_DOMAIN, "atlas-client.example"),
        )
    ),
    {},
    frozenset(),
    NOW,
)
"""The payee ``acme`` and the domains ``example.com`` and ``atlas-client.example``,
established on every project: what :func:`payment` and :func:`email` send to."""


def snapshot(
    *,
    staffing: tuple[Staffing, ...],
    barriers: tuple[Barrier, ...] = (),
    commitments: tuple[Commitment, ...] = (),
    records: Mapping[str, tuple[str, ...]] | None = None,
    committed_spend: Mapping[str, int] | None = None,
    in_flight: Mapping[str, str] | None = None,
    run_spent_cents: int = 0,
    principal: Principal = AGENT,
    counterparties: Counterparties | None = None,
) -> BrokerSnapshot:
    """A snapshot at :data:`NOW`; unless told otherwise, every project has established
    the payee ``acme`` and the domain ``example.com`` (what :func:`payment` and
    :func:`email` send to), so that only the egress tests meet a new destination."""
    return BrokerSnapshot(
        now=NOW,
        principal=principal,
        definition=DEFINITION,
        charter=CHARTER,
        projects=PROJECTS,
        staffing=staffing,
        barriers=barriers,
        commitments=commitments,
        records=dict(records or {}),
        run_spent_cents=run_spent_cents,
        committed_spend=dict(committed_spend or {}),
        in_flight=in_flight_by_key(
            InFlight(key=k, intent_id=i, status=Outcome.ALLOW) for k, i in (in_flight or {}).items()
        ),
        counterparties=counterparties or ESTABLISHED,
    )


def payment(
    amount: int,
    *,
    projects: Iterable[str] = ("east",),
    invoice: str | None = None,
    intent_id: str | None = None,
    references: Iterable[str] = (),
    currency: str = "USD",
    **payload_changes: Any,
) -> Intent:
    n = next(_ids)
    payload: dict[str, Any] = {
        "payee": "acme",
        "invoice": invoice if invoice is not None else f"inv-{n}",
        "amount_cents": amount,
        "currency": currency,
        "memo": "due",
    }
    payload.update(payload_changes)
    return Intent(
        id=intent_id or f"i-{n}",
        org_id=ORG,
        run_id="run-1",
        principal_id=AGENT.id,
        tool="payments.pay",
        projects=tuple(projects),
        payload=payload,
        cost_cents=amount,
        justification="it is due",
        references=tuple(references),
    )


def email(
    *, projects: Iterable[str] = ("east",), references: Iterable[str] = (), to: str | None = None
) -> Intent:
    n = next(_ids)
    return Intent(
        id=f"i-{n}",
        org_id=ORG,
        run_id="run-1",
        principal_id=AGENT.id,
        tool="email.send",
        projects=tuple(projects),
        payload={"to": to or f"client-{n}@example.com", "subject": "Hello", "body": "Hi"},
        cost_cents=0,
        justification="the client asked",
        references=tuple(references),
    )


def spend_cap(
    limit: int,
    *,
    state: ReviewState = ReviewState.CONFIRMED,
    projects: tuple[str, ...] = (),
    valid_from: datetime = NOW - timedelta(days=10),
    valid_until: datetime | None = None,
    cap_id: str = "c-cap",
) -> Commitment:
    return Commitment(
        id=cap_id,
        org_id=ORG,
        title="Q2 vendor cap",
        constraint=SpendCap(limit_cents=limit),
        provenance=Provenance(source="msa.pdf", excerpt="not to exceed", recorded_by="p-ada"),
        state=state,
        projects=projects,
        valid_from=valid_from,
        valid_until=valid_until,
        confirmed_by="p-ada" if state is ReviewState.CONFIRMED else None,
        confirmed_at=NOW - timedelta(days=9) if state is ReviewState.CONFIRMED else None,
    )


def rejected_at(decision: Decision, stage: Stage, rule: str) -> None:
    assert (decision.outcome, decision.stage, decision.rule) == (Outcome.REJECT, stage, rule), (
        decision
    )


# --- sanity of the builders --------------------------------------------------------------


def test_a_fully_staffed_small_payment_is_allowed() -> None:
    decision = decide(payment(5_000), snapshot(staffing=staffed(["east"])))
    assert decision.outcome is Outcome.ALLOW
    assert decision.reach == ("east",)


def test_a_payment_over_the_threshold_is_held() -> None:
    decision = decide(payment(100_001), snapshot(staffing=staffed(["east"])))
    assert decision.outcome is Outcome.HOLD
    assert decision.stage is Stage.APPROVAL
    assert decision.rule == "money_over_threshold"


# --- a. staffing is resolved from current staffing, not from the principal ---------------

projects_subsets = st.sets(st.sampled_from(sorted(PROJECTS)), min_size=1).map(sorted)
roles = st.sampled_from(list(StaffRole))


@st.composite
def broken_staffing(draw: st.DrawFn, project: str, role: StaffRole) -> tuple[Staffing, ...]:
    """Rows for ``project`` that grant nothing at NOW (possibly none at all)."""
    mode = draw(st.sampled_from(["removed", "expired", "ends-now", "future"]))
    if mode == "removed":
        return ()
    if mode == "expired":
        ago = timedelta(seconds=draw(st.integers(1, 10**7)))
        return (staffing_row(project, role=role, valid_from=NOW - 2 * ago, valid_until=NOW - ago),)
    if mode == "ends-now":
        return (staffing_row(project, role=role, valid_from=NOW - timedelta(1), valid_until=NOW),)
    ahead = timedelta(seconds=draw(st.integers(1, 10**7)))
    return (staffing_row(project, role=role, valid_from=NOW + ahead),)


@PROP
@given(declared=projects_subsets, role=roles, data=st.data(), use_email=st.booleans())
def test_staffing_alone_decides_the_staffing_stage(
    declared: list[str], role: StaffRole, data: st.DataObject, use_email: bool
) -> None:
    intent = email(projects=declared) if use_email else payment(5_000, projects=declared)
    full = tuple(staffing_row(p, role=role) for p in declared)

    current = snapshot(staffing=full)
    decision = decide(intent, current)
    assert decision.stage is not Stage.STAFFING
    assert decision.outcome is Outcome.ALLOW

    victim = data.draw(st.sampled_from(declared))
    kept = tuple(row for row in full if row.project != victim)
    broken = kept + data.draw(broken_staffing(victim, role))
    stale = snapshot(staffing=broken)
    assert stale.principal is current.principal is AGENT

    decision = decide(intent, stale)
    rejected_at(decision, Stage.STAFFING, "not_staffed")
    assert victim in decision.reason


def test_staffing_that_begins_exactly_now_is_current() -> None:
    rows = (staffing_row("east", valid_from=NOW),)
    assert decide(payment(10), snapshot(staffing=rows)).outcome is Outcome.ALLOW


def test_staffing_of_another_project_does_not_count() -> None:
    decision = decide(
        payment(10, projects=["east", "west"]), snapshot(staffing=staffed(["east", "north"]))
    )
    rejected_at(decision, Stage.STAFFING, "not_staffed")
    assert "west" in decision.reason


def test_undeclared_project_is_rejected_at_staffing() -> None:
    decision = decide(email(projects=["south"]), snapshot(staffing=staffed(["south"])))
    rejected_at(decision, Stage.STAFFING, "unknown_project")


# --- b. barriers ---------------------------------------------------------------------------

UNIVERSE = ("east", "west", "north", "south", "alpha", "beta")


@st.composite
def barriers(draw: st.DrawFn) -> Barrier:
    members = draw(st.lists(st.sampled_from(UNIVERSE), min_size=2, unique=True))
    members = draw(st.permutations(members))
    k = draw(st.integers(2, len(members)))
    cuts = sorted(draw(st.sets(st.integers(1, len(members) - 1), min_size=k - 1, max_size=k - 1)))
    bounds = [0, *cuts, len(members)]
    groups = tuple(tuple(members[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))
    return Barrier(id=f"b-{next(_ids)}", org_id=ORG, name=f"wall-{len(groups)}", groups=groups)


record_maps = st.dictionaries(
    st.sampled_from(["atlas-kickoff", "birch-cim", "r3", "r4", "r5"]),
    st.lists(st.sampled_from(UNIVERSE), max_size=3, unique=True).map(tuple),
    max_size=5,
)


def crosses(barrier: Barrier, reach: set[str]) -> bool:
    return sum(1 for group in barrier.groups if reach & set(group)) > 1


@PROP
@given(
    walls=st.lists(barriers(), max_size=3),
    declared=projects_subsets,
    records=record_maps,
    data=st.data(),
    extra_staffing=st.sets(st.sampled_from(UNIVERSE)),
    use_email=st.booleans(),
)
def test_an_intent_spanning_a_barrier_is_never_allowed(
    walls: list[Barrier],
    declared: list[str],
    records: dict[str, tuple[str, ...]],
    data: st.DataObject,
    extra_staffing: set[str],
    use_email: bool,
) -> None:
    refs = data.draw(st.lists(st.sampled_from(sorted(records)), unique=True)) if records else []
    intent = (
        email(projects=declared, references=refs)
        if use_email
        else payment(5_000, projects=declared, references=refs)
    )
    snap = snapshot(
        staffing=staffed(set(declared) | extra_staffing), barriers=tuple(walls), records=records
    )
    decision = decide(intent, snap)

    reach = set(declared).union(*(records[r] for r in refs))
    assert set(decision.reach) == reach
    if any(crosses(wall, reach) for wall in walls):
        rejected_at(decision, Stage.SCOPE, "barrier_crossed")
        assert decision.outcome not in (Outcome.ALLOW, Outcome.HOLD)
    else:
        assert decision.rule != "barrier_crossed"
        staffing = set(declared) | extra_staffing
        if any(crosses(wall, staffing) for wall in walls):
            # an agent staffed across a wall (configuration forbids it) acts on neither side
            rejected_at(decision, Stage.SCOPE, "staffing_straddles_barrier")
        elif reach <= staffing:
            assert decision.outcome is Outcome.ALLOW, decision
        else:
            rejected_at(decision, Stage.SCOPE, "reach_outside_staffing")


def test_reading_a_record_behind_the_wall_is_rejected() -> None:
    wall = Barrier(id="b-1", org_id=ORG, name="wall", groups=(("east",), ("west",)))
    snap = snapshot(
        staffing=staffed(["east", "west"]), barriers=(wall,), records={"birch-cim": ("west",)}
    )
    decision = decide(email(projects=["east"], references=["birch-cim"]), snap)
    rejected_at(decision, Stage.SCOPE, "barrier_crossed")
    assert decision.reach == ("east", "west")


def test_a_barrier_crossed_by_declared_projects_alone() -> None:
    wall = Barrier(id="b-1", org_id=ORG, name="wall", groups=(("east", "north"), ("west",)))
    snap = snapshot(staffing=staffed(PROJECTS), barriers=(wall,))
    rejected_at(
        decide(email(projects=["north", "west"]), snap),
        Stage.SCOPE,
        "barrier_crossed",
    )
    one_side = snapshot(staffing=staffed(["east", "north"]), barriers=(wall,))
    assert decide(email(projects=["north", "east"]), one_side).outcome is Outcome.ALLOW
    # staffed on both sides (configuration forbids it), the agent may act on neither
    rejected_at(
        decide(email(projects=["north", "east"]), snap),
        Stage.SCOPE,
        "staffing_straddles_barrier",
    )


def test_an_unknown_reference_is_rejected_because_reach_cannot_be_known() -> None:
    wall = Barrier(id="b-1", org_id=ORG, name="wall", groups=(("east",), ("west",)))
    snap = snapshot(staffing=staffed(["east"]), barriers=(wall,), records={})
    rejected_at(
        decide(email(references=["birch-cim"]), snap),
        Stage.SCOPE,
        "unknown_reference",
    )


# --- c. a confirmed spend cap is never exceeded by allowed intents ----------------------

amounts = st.one_of(
    st.integers(1, APPROVAL_THRESHOLD),
    st.integers(APPROVAL_THRESHOLD + 1, 3 * APPROVAL_THRESHOLD),
    st.sampled_from([APPROVAL_THRESHOLD, APPROVAL_THRESHOLD + 1, 1]),
)


@PROP
@given(
    limit=st.integers(0, 400_000),
    already=st.integers(0, 200_000),
    sequence=st.lists(amounts, min_size=1, max_size=20),
    cap_projects=st.sampled_from([(), ("east",), ("east", "west")]),
    declared=st.sampled_from([["east"], ["east", "north"]]),
)
def test_a_confirmed_cap_is_never_exceeded_by_allowed_intents(
    limit: int,
    already: int,
    sequence: list[int],
    cap_projects: tuple[str, ...],
    declared: list[str],
) -> None:
    cap = spend_cap(limit, projects=cap_projects, valid_until=NOW + timedelta(days=30))
    claims = Claims()
    committed = {cap.id: already}
    run_spent = 0
    allowed_total = already
    for amount in sequence:
        intent = payment(amount, projects=declared)
        snap = snapshot(
            staffing=staffed(PROJECTS),
            commitments=(cap,),
            committed_spend=committed,
            run_spent_cents=run_spent,
        )
        decision = claims.decide(intent, snap)
        fits = allowed_total + amount <= limit
        if decision.outcome is Outcome.ALLOW:
            spend = spend_of(intent, PAYMENTS_PAY)
            committed[cap.id] += spend
            run_spent += spend
            allowed_total += spend
        # Safety: what was allowed never takes the total past the cap (nothing is allowed
        # once the cap was already spent).
        assert allowed_total - already <= max(limit - already, 0)
        # And the broker is not merely refusing everything.
        if fits and amount <= APPROVAL_THRESHOLD:
            assert decision.outcome is Outcome.ALLOW, decision
        elif not fits:
            assert decision.outcome is Outcome.HOLD, decision
            assert decision.stage is Stage.COMMITMENTS
            assert "spend_cap" in decision.rule.split("+")
        else:
            assert (decision.outcome, decision.rule) == (Outcome.HOLD, "money_over_threshold")


def test_a_cap_in_another_currency_holds() -> None:
    cap = spend_cap(10**9)
    snap = snapshot(staffing=staffed(["east"]), commitments=(cap,))
    decision = decide(payment(10, currency="EUR"), snap)
    assert (decision.outcome, decision.rule) == (Outcome.HOLD, "spend_cap_currency")


def test_a_cap_on_another_project_does_not_apply() -> None:
    cap = spend_cap(0, projects=("west",))
    snap = snapshot(staffing=staffed(["east"]), commitments=(cap,))
    assert decide(payment(10), snap).outcome is Outcome.ALLOW


def test_a_cap_reached_through_a_referenced_record_applies() -> None:
    cap = spend_cap(0, projects=("west",))
    snap = snapshot(
        staffing=staffed(["east", "west"]), commitments=(cap,), records={"birch-cim": ("west",)}
    )
    decision = decide(payment(10, references=["birch-cim"]), snap)
    assert (decision.outcome, decision.rule) == (Outcome.HOLD, "spend_cap")


def test_over_cap_and_over_threshold_gathers_both_holds() -> None:
    cap = spend_cap(50_000)
    snap = snapshot(staffing=staffed(["east"]), commitments=(cap,))
    decision = decide(payment(150_000), snap)
    assert decision.outcome is Outcome.HOLD
    assert decision.stage is Stage.COMMITMENTS
    assert decision.rule == "spend_cap+money_over_threshold"
    # The approver line is common to both holds and is listed once.
    assert len(decision.release) == len(set(decision.release)) == 2
    assert any("asks again for at most $500.00" in line for line in decision.release)
    # In the owner's words: money as money, the cap by name, what it would bring it to.
    assert decision.reason.startswith(
        f"$1,500.00 would bring '{cap.title}' to $1,500.00 of its $500.00 cap ($0.00 already "
        "committed); a payment of $1,500.00 is over the $1,000.00 approval threshold"
    )


# --- d. unconfirmed or out-of-window caps never block ------------------------------------


@st.composite
def inert_caps(draw: st.DrawFn, limit: int) -> Commitment:
    kind = draw(st.sampled_from(["extracted", "rejected", "expired", "ends-now", "future"]))
    if kind == "extracted":
        return spend_cap(limit, state=ReviewState.EXTRACTED)
    if kind == "rejected":
        return spend_cap(limit, state=ReviewState.REJECTED)
    shift = timedelta(seconds=draw(st.integers(1, 10**7)))
    if kind == "expired":
        return spend_cap(limit, valid_from=NOW - 2 * shift, valid_until=NOW - shift)
    if kind == "ends-now":
        return spend_cap(limit, valid_from=NOW - shift, valid_until=NOW)
    return spend_cap(limit, valid_from=NOW + shift, valid_until=NOW + 2 * shift)


@PROP
@given(amount=st.integers(1, 3 * APPROVAL_THRESHOLD), data=st.data(), already=st.integers(0, 10**6))
def test_an_inert_cap_never_blocks(amount: int, data: st.DataObject, already: int) -> None:
    limit = data.draw(st.integers(0, amount - 1))
    cap = data.draw(inert_caps(limit))
    intent = payment(amount)
    staffing = staffed(["east"])

    without = decide(intent, snapshot(staffing=staffing))
    with_cap = decide(
        intent, snapshot(staffing=staffing, commitments=(cap,), committed_spend={cap.id: already})
    )
    assert with_cap == without

    # The same cap, confirmed and current, would have held this intent.
    live = spend_cap(limit)
    held = decide(
        intent, snapshot(staffing=staffing, commitments=(live,), committed_spend={live.id: already})
    )
    assert held.outcome is Outcome.HOLD
    assert held.rule.startswith("spend_cap")


# --- d'. the run's budget is the tighter of the definition's and the charter's ---------


@PROP
@given(
    definition_budget=st.integers(0, 500_000),
    ceiling=st.integers(0, 500_000),
    spent=st.integers(0, 300_000),
    amount=st.integers(1, 90_000),
)
def test_the_budget_a_run_meets_is_the_tighter_of_definition_and_ceiling(
    definition_budget: int, ceiling: int, spent: int, amount: int
) -> None:
    """Either limit binds on its own: a definition's budget under the charter's ceiling
    rejects as surely as a ceiling under the definition's budget (a broker that read
    only one of them fails here, whichever it reads)."""
    definition = DEFINITION.model_copy(update={"budget_cents": definition_budget})
    charter = CHARTER.model_copy(update={"budget_ceiling_cents": ceiling})
    snap = replace(
        snapshot(staffing=staffed(["east"]), run_spent_cents=spent),
        definition=definition,
        charter=charter,
    )
    decision = decide(payment(amount), snap)
    if spent + amount > min(definition_budget, ceiling):
        assert (decision.outcome, decision.rule) == (Outcome.REJECT, "budget_exceeded")
    else:
        assert decision.outcome is Outcome.ALLOW, decision


@pytest.mark.parametrize(
    ("definition_budget", "ceiling"), [(50_000, 1_000_000), (1_000_000, 50_000)]
)
def test_each_limit_binds_when_it_is_the_tighter(definition_budget: int, ceiling: int) -> None:
    snap = replace(
        snapshot(staffing=staffed(["east"]), run_spent_cents=40_000),
        definition=DEFINITION.model_copy(update={"budget_cents": definition_budget}),
        charter=CHARTER.model_copy(update={"budget_ceiling_cents": ceiling}),
    )
    assert decide(payment(10_000), snap).outcome is Outcome.ALLOW
    refused = decide(payment(10_001), snap)
    assert (refused.outcome, refused.rule) == (Outcome.REJECT, "budget_exceeded")
    assert "$500.00" in refused.reason  # the tighter limit, in money


# --- e. totality and collisions ----------------------------------------------------------


def _failing(exc: Exception) -> StageFn:
    def stage(_: object) -> None:
        raise exc

    return stage


@pytest.mark.parametrize("at", range(len(STAGES)), ids=[str(stage) for stage, _ in STAGES])
@pytest.mark.parametrize(
    "exc", [RuntimeError("database is locked"), KeyError("claims"), ValueError("bad key")]
)
def test_a_fault_at_any_stage_is_a_recorded_rejection_at_that_stage(
    at: int, exc: Exception
) -> None:
    """The fault-injection seam: whatever a stage raises, the broker answers, naming the
    stage, with the rule ``broker_error``."""
    stages = list(STAGES)
    stages[at] = (stages[at][0], _failing(exc))
    verdict = evaluate(payment(10), snapshot(staffing=staffed(["east"])), stages)
    rejected_at(verdict.decision, STAGES[at][0], "broker_error")
    assert type(exc).__name__ in verdict.decision.reason
    assert verdict.claim is None


@PROP
@given(
    amount=st.integers(0, 10**7),
    declared=projects_subsets,
    staffed_on=st.sets(st.sampled_from(sorted(PROJECTS))),
    exc=st.sampled_from([RuntimeError, OSError, ZeroDivisionError, AssertionError]),
    at=st.integers(0, len(STAGES) - 1),
)
def test_evaluate_never_raises_whatever_a_stage_raises(
    amount: int, declared: list[str], staffed_on: set[str], exc: type[Exception], at: int
) -> None:
    stages = list(STAGES)
    stages[at] = (stages[at][0], _failing(exc()))
    verdict = evaluate(
        payment(amount, projects=declared), snapshot(staffing=staffed(staffed_on)), stages
    )
    assert isinstance(verdict.decision, Decision)
    assert verdict.decision.outcome is Outcome.REJECT


def test_an_intent_that_cannot_be_digested_is_a_recorded_rejection() -> None:
    intent = payment(10, memo=object())
    decision = decide(intent, snapshot(staffing=staffed(["east"])))
    rejected_at(decision, Stage.IDENTITY, "broker_error")


def held_at(decision: Decision, stage: Stage, rule: str) -> None:
    assert (decision.outcome, decision.stage, decision.rule) == (Outcome.HOLD, stage, rule), (
        decision
    )


def test_a_second_intent_on_the_same_invoice_waits_for_the_first() -> None:
    claims = Claims()
    snap = snapshot(staffing=staffed(["east"]))
    first = payment(10, invoice="INV-7", intent_id="i-first")
    second = payment(20, invoice=" inv-7 ", intent_id="i-second")

    assert claims.decide(first, snap).outcome is Outcome.ALLOW
    assert claims.held == {operation_key(PAYMENTS_PAY, first.payload): "i-first"}
    decision = claims.decide(second, snap)
    held_at(decision, Stage.COLLISIONS, "collision")
    # The other intent is named in the evidence alone (read paths filter it by reader).
    assert "i-first" not in decision.reason and decision.evidence == ("i-first",)
    assert any("the other one finishes" in r for r in decision.release)
    assert decision.reason.startswith("another payment of invoice inv-7 is being decided")

    # Deciding the first intent again (a retry) is not a collision with itself.
    assert claims.decide(first, snap).outcome is Outcome.ALLOW
    # Once the first is done (its key released), the second goes through.
    claims.held.clear()
    assert claims.decide(second, snap).outcome is Outcome.ALLOW


def test_a_held_intent_also_holds_its_claim() -> None:
    claims = Claims()
    snap = snapshot(staffing=staffed(["east"]))
    assert claims.decide(payment(500_000, invoice="inv-9"), snap).outcome is Outcome.HOLD
    held_at(claims.decide(payment(10, invoice="inv-9"), snap), Stage.COLLISIONS, "collision")


def test_an_in_flight_key_collides_without_claiming() -> None:
    intent = payment(10, invoice="inv-3")
    key = operation_key(PAYMENTS_PAY, intent.payload)
    assert key == "payments.pay:inv-3"
    claims = Claims({key: "i-other"})
    verdict = evaluate(
        intent,
        replace(snapshot(staffing=staffed(["east"])), in_flight=claims.in_flight(intent)),
    )
    held_at(verdict.decision, Stage.COLLISIONS, "collision")
    assert verdict.claim is None


def test_different_invoices_do_not_collide() -> None:
    claims = Claims()
    snap = snapshot(staffing=staffed(["east"]))
    assert claims.decide(payment(10, invoice="inv-1"), snap).outcome is Outcome.ALLOW
    assert claims.decide(payment(10, invoice="inv-2"), snap).outcome is Outcome.ALLOW


def with_invoice(invoice: Any) -> Intent:
    base = payment(10)
    return base.model_copy(update={"payload": {**base.payload, "invoice": invoice}})


@pytest.mark.parametrize("invoice", ["", "   ", "\t\n"])
def test_a_blank_resource_collides_with_every_payment_in_flight(invoice: str) -> None:
    """An intent that names no resource may touch any: it waits for every intent of its
    operation in flight, and every later one waits for it."""
    snap = snapshot(staffing=staffed(["east"]))
    claims = Claims()
    assert claims.decide(payment(10, invoice="inv-1", intent_id="i-1"), snap).outcome == "allow"
    blank = with_invoice(invoice)
    decision = claims.decide(blank, snap)
    held_at(decision, Stage.COLLISIONS, "collision")
    assert decision.evidence == ("i-1",)

    alone = Claims()
    assert alone.decide(blank, snap).outcome is Outcome.ALLOW
    assert alone.held == {"payments.pay:*": blank.id}
    held_at(alone.decide(payment(10, invoice="inv-2"), snap), Stage.COLLISIONS, "collision")
    # other operations are not concerned
    assert alone.decide(email(), snap).outcome is Outcome.ALLOW


@pytest.mark.parametrize("invoice", [7, None, ["inv-1"], True])
def test_a_non_text_resource_is_rejected_before_any_claim(invoice: Any) -> None:
    claims = Claims()
    decision = claims.decide(with_invoice(invoice), snapshot(staffing=staffed(["east"])))
    rejected_at(decision, Stage.IDENTITY, "invalid_payload")
    assert claims.held == {}


def test_a_missing_resource_is_rejected_before_any_claim() -> None:
    base = payment(10)
    payload = {k: v for k, v in base.payload.items() if k != "invoice"}
    claims = Claims()
    decision = claims.decide(
        base.model_copy(update={"payload": payload}), snapshot(staffing=staffed(["east"]))
    )
    rejected_at(decision, Stage.IDENTITY, "invalid_payload")
    assert "invoice" in decision.reason
    assert claims.held == {}


# --- f. stage order ----------------------------------------------------------------------


@PROP
@given(wall=barriers(), data=st.data())
def test_staffing_is_checked_before_barriers(wall: Barrier, data: st.DataObject) -> None:
    # Declared projects that span the wall, inside the organization's projects.
    in_org = [tuple(p for p in group if p in PROJECTS) for group in wall.groups]
    sides = [group for group in in_org if group]
    assume(len(sides) >= 2)
    two = data.draw(
        st.lists(st.sampled_from(range(len(sides))), min_size=2, max_size=2, unique=True)
    )
    declared = sorted({data.draw(st.sampled_from(sides[i])) for i in two})
    staffed_on = data.draw(st.sets(st.sampled_from(declared), max_size=len(declared) - 1))

    intent = email(projects=declared)
    decision = decide(intent, snapshot(staffing=staffed(staffed_on), barriers=(wall,)))
    rejected_at(decision, Stage.STAFFING, "not_staffed")

    # Staffed on everything, the same intent is stopped by the barrier.
    decision = decide(intent, snapshot(staffing=staffed(declared), barriers=(wall,)))
    rejected_at(decision, Stage.SCOPE, "barrier_crossed")


def test_identity_is_checked_before_staffing() -> None:
    suspended = AGENT.model_copy(update={"status": PrincipalStatus.SUSPENDED})
    snap = snapshot(staffing=(), principal=suspended)
    rejected_at(decide(email(), snap), Stage.IDENTITY, "principal_inactive")


@pytest.mark.parametrize("currency", ["usd", "USD (pre-approved by the CFO)", "US", "", "€"])
def test_a_currency_is_a_code_never_a_sentence(currency: str) -> None:
    """An approver reads the currency beside the amount: a hijacked model must not write
    words there."""
    decision = decide(payment(10, currency=currency), snapshot(staffing=staffed(["east"])))
    rejected_at(decision, Stage.IDENTITY, "invalid_payload")
    assert "three-letter code" in decision.reason
