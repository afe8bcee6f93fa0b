"""The store and the storage-level services, on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from alembic import command
from pydantic import ValidationError

from adapters.store.db import alembic_config
from adapters.store.store import Store
from adapters.store.tables import RunRow
from domain.audit.chain import GENESIS_HASH
from domain.errors import Conflict, Forbidden, NotFound
from domain.fleet.starter import STARTER_FLEET
from domain.governance.broker import current_projects
from domain.organization.contracts import AgentDefinition, Obligation, SpendCap
from domain.organization.kinds import CharterStatus, PrincipalKind, ReviewState, StaffRole
from domain.tools import REGISTRY
from tests.support import Firm, make_settings, utc_now, wire
from usecases import commitments, memory, organization
from usecases.context import Ports


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> datetime:
        self.at = self.at + timedelta(**delta)
        return self.at


def assert_utc(value: datetime | None) -> None:
    assert value is not None
    assert value.tzinfo is not None, f"{value!r} came back naive"
    assert value.utcoffset() == timedelta(0), f"{value!r} is not in UTC"


def founder_only_services(store: Store, clock: Clock) -> Ports:
    return wire(store, None, make_settings(), clock)


# ---------------------------------------------------------------------------- onboarding


def test_onboarding_creates_the_founder_and_the_starter_fleet(
    services: Ports, store: Store
) -> None:
    onboarded = organization.onboard(
        services, "  Harbor & Vale  ", "ada@hv.example", "Ada Lovelace"
    )
    org = onboarded.org

    assert org.name == "Harbor & Vale"
    assert org.founder_id == onboarded.founder.id
    assert store.directory.org(org.id) == org

    founder = store.directory.principal(org.id, org.founder_id)
    assert founder.kind is PrincipalKind.HUMAN
    assert founder.email == "ada@hv.example"
    assert founder.display_name == "Ada Lovelace"
    assert founder.handle == "ada"

    everyone = store.directory.principals(org.id)
    humans = [p for p in everyone if p.kind is PrincipalKind.HUMAN]
    agents = [p for p in everyone if p.kind is PrincipalKind.AGENT]
    assert [h.id for h in humans] == [founder.id]
    assert len(agents) == 5 == len(onboarded.agents)
    assert {a.id for a in agents} == {a.id for a in onboarded.agents}
    assert len({a.handle for a in agents}) == 5
    assert {a.handle for a in agents} == {s.handle for s in STARTER_FLEET}
    kinds = [a.agent_kind for a in agents]
    assert all(kinds)
    assert "diagnostic" in kinds
    # Several kinds, not five copies of one (the showcase has one planner per side).
    assert {"planner", "finance", "diagnostic", "research"} <= set(kinds)
    assert all(a.org_id == org.id for a in everyone)


def test_every_starter_agent_has_a_published_charter_pinned_to_definition_v1(
    services: Ports, store: Store
) -> None:
    onboarded = organization.onboard(services, "Harbor & Vale", "ada@hv.example")
    specs = {s.handle: s for s in STARTER_FLEET}

    for agent in onboarded.agents:
        profile = store.directory.agent(org_id=agent.org_id, principal_id=agent.id)
        assert profile is not None and profile.principal == agent
        definition, charter = profile.definition, profile.charter
        assert definition is not None
        spec = specs[agent.handle]
        assert definition == AgentDefinition(
            principal_id=agent.id,
            version=1,
            instructions=spec.instructions,
            budget_cents=spec.budget_cents,
        )
        assert charter is not None
        assert charter.principal_id == agent.id
        assert charter.status is CharterStatus.PUBLISHED
        assert charter.version == 1
        assert charter.definition_pin == definition.version == 1
        assert charter.tools == spec.tools
        assert set(charter.tools) <= set(REGISTRY)
        assert charter.budget_ceiling_cents == spec.ceiling_cents
        assert store.directory.find_principal(agent.id) == agent


def test_onboarding_starts_a_chain_that_records_the_configuration(
    services: Ports, store: Store
) -> None:
    done = organization.onboard(services, "Harbor & Vale", "ada@hv.example")
    org = done.org

    entries = store.audit.entries(org.id)
    assert entries[0].prev_hash == GENESIS_HASH
    assert {e.stage for e in entries} == {"configuration"}
    recorded = {(e.payload["table"], e.payload["key"]) for e in entries}
    assert ("organization", org.id) in recorded
    assert ("principal", done.founder.id) in recorded
    for agent in done.agents:
        assert {("principal", agent.id), ("charter", f"{agent.id}:v1")} <= recorded
    assert all(e.actor == done.founder.id for e in entries)
    assert store.audit.verify(org.id).ok


def test_onboarding_needs_a_name_and_an_email(services: Ports, store: Store) -> None:
    with pytest.raises(ValueError):
        organization.onboard(services, "   ", "ada@hv.example")
    with pytest.raises(ValueError):
        organization.onboard(services, "Harbor & Vale", "not-an-email")


def test_two_organizations_are_separate_tenants(services: Ports, store: Store) -> None:
    a = organization.onboard(services, "Harbor & Vale", "ada@hv.example")
    b = organization.onboard(services, "Other Firm", "ada@other.example")

    assert a.org.id != b.org.id
    assert {p.handle for p in store.directory.principals(b.org.id)} == {
        "ada",
        *(s.handle for s in STARTER_FLEET),
    }
    with pytest.raises(NotFound):
        store.directory.principal(a.org.id, b.founder.id)
    with pytest.raises(NotFound):
        store.directory.org(str(uuid.uuid4()))


# ---------------------------------------------------------------------------- handles


def test_a_taken_handle_gets_the_first_free_suffix(
    firm: Firm, services: Ports, store: Store
) -> None:
    """A colleague whose address starts like someone else's is still invited, under a
    handle of their own; no one's handle (a starter agent's included) is reused."""
    ada = organization.add_human(
        services, firm.org, firm.founder, "ada@elsewhere.example", "Another Ada"
    )
    orion = organization.add_human(
        services, firm.org, firm.founder, "orion@hv.example", "Orion the human"
    )
    again = organization.add_human(
        services, firm.org, firm.founder, "orion@other.example", "Orion again"
    )
    assert (ada.handle, orion.handle, again.handle) == ("ada-2", "orion-2", "orion-3")
    handles = [p.handle for p in store.directory.principals(firm.org)]
    assert len(handles) == len(set(handles))


# ---------------------------------------------------------------------------- projects


def test_projects_staffing_and_barriers_round_trip(firm: Firm, store: Store) -> None:
    projects = store.directory.projects(firm.org)
    assert [(p.slug, p.name, p.org_id) for p in projects] == [
        ("east", "Atlas", firm.org),
        ("west", "Birch", firm.org),
    ]

    staffing = store.directory.staffing(firm.org)
    seen = {(s.principal_id, s.project, s.role) for s in staffing}
    assert seen == {
        (firm.founder, "east", StaffRole.APPROVER),
        (firm.founder, "west", StaffRole.APPROVER),
        (firm.agents["orion"], "east", StaffRole.MEMBER),
        (firm.agents["vega"], "west", StaffRole.MEMBER),
        (firm.agents["ledger"], "east", StaffRole.MEMBER),
        (firm.associate, "east", StaffRole.MEMBER),
    }
    for s in staffing:
        assert_utc(s.valid_from)
        assert s.valid_until is None
        assert s.active_at(utc_now())
    orion = store.directory.staffing(firm.org, firm.agents["orion"])
    assert [(s.project, s.role) for s in orion] == [("east", StaffRole.MEMBER)]

    barriers = store.directory.barriers(firm.org)
    assert len(barriers) == 1
    assert barriers[0].name == "wall"
    assert barriers[0].org_id == firm.org
    assert barriers[0].groups == (("east",), ("west",))


def test_a_duplicate_project_is_a_conflict(firm: Firm, services: Ports) -> None:
    with pytest.raises(Conflict):
        organization.add_project(services, firm.org, firm.founder, "east", "Atlas again")


def test_staffing_an_unknown_project_or_principal_is_not_found(firm: Firm, services: Ports) -> None:
    with pytest.raises(NotFound):
        organization.staff(
            services,
            firm.org,
            firm.founder,
            organization.AssignStaff(firm.agents["scout"], "north", StaffRole.MEMBER),
        )
    with pytest.raises(NotFound):
        organization.staff(
            services,
            firm.org,
            firm.founder,
            organization.AssignStaff(str(uuid.uuid4()), "east", StaffRole.MEMBER),
        )


def test_an_agent_may_not_be_staffed_as_approver(firm: Firm, services: Ports) -> None:
    with pytest.raises(ValueError):
        organization.staff(
            services,
            firm.org,
            firm.founder,
            organization.AssignStaff(firm.agents["orion"], "east", StaffRole.APPROVER),
        )


def test_staffing_times_round_trip_as_utc(store: Store) -> None:
    clock = Clock(datetime(2031, 3, 4, 5, 6, 7, 890123, tzinfo=UTC))
    svc = founder_only_services(store, clock)
    f = Firm(svc)
    until = datetime(2031, 6, 1, 9, 30, 0, 123456, tzinfo=UTC)

    made = organization.staff(
        svc,
        f.org,
        f.founder,
        organization.AssignStaff(f.agents["scout"], "east", StaffRole.MEMBER, valid_until=until),
    )

    (back,) = [s for s in store.directory.staffing(f.org) if s.id == made.id]
    assert back == made
    assert back.valid_from == clock.at
    assert back.valid_until == until
    assert_utc(back.valid_from)
    assert_utc(back.valid_until)


def test_a_staffing_end_given_in_another_offset_keeps_its_instant(store: Store) -> None:
    """The API accepts any ISO time: 12:00+05:00 is 07:00 UTC, and must stay that instant."""
    svc = founder_only_services(store, Clock(datetime(2031, 3, 4, tzinfo=UTC)))
    f = Firm(svc)
    until = datetime(2031, 6, 1, 12, 0, tzinfo=timezone(timedelta(hours=5)))

    made = organization.staff(
        svc,
        f.org,
        f.founder,
        organization.AssignStaff(f.agents["scout"], "east", StaffRole.MEMBER, valid_until=until),
    )

    (back,) = [s for s in store.directory.staffing(f.org) if s.id == made.id]
    assert_utc(back.valid_until)
    assert back.valid_until == until, (
        f"stored {until.isoformat()}, read back {back.valid_until.isoformat()}"  # type: ignore[union-attr]
    )


def test_end_staffing_ends_authority_and_keeps_history(store: Store) -> None:
    clock = Clock(datetime(2031, 3, 4, 9, 0, tzinfo=UTC))
    svc = founder_only_services(store, clock)
    f = Firm(svc)
    (orion,) = store.directory.staffing(f.org, f.agents["orion"])
    assert current_projects((orion,), clock.at, StaffRole.MEMBER) == {"east"}

    ended_at = clock.advance(hours=1)
    ended = organization.unstaff(svc, f.org, f.founder, orion.id)

    assert ended.id == orion.id
    assert ended.valid_from == orion.valid_from
    assert ended.valid_until == ended_at
    assert_utc(ended.valid_until)
    (stored,) = store.directory.staffing(f.org, f.agents["orion"])
    assert stored == ended  # the row is kept, only its end is set
    assert not stored.active_at(ended_at)
    assert stored.active_at(ended_at - timedelta(microseconds=1))
    assert current_projects((stored,), ended_at, StaffRole.MEMBER) == set()

    # Ending it again later does not move the end.
    clock.advance(days=1)
    again = organization.unstaff(svc, f.org, f.founder, orion.id)
    assert again.valid_until == ended_at
    # Every other staffing is untouched.
    assert all(s.valid_until is None for s in store.directory.staffing(f.org) if s.id != orion.id)


def test_ending_a_later_planned_end_brings_it_forward(store: Store) -> None:
    clock = Clock(datetime(2031, 3, 4, 9, 0, tzinfo=UTC))
    svc = founder_only_services(store, clock)
    f = Firm(svc)
    planned = clock.at + timedelta(days=30)
    made = organization.staff(
        svc,
        f.org,
        f.founder,
        organization.AssignStaff(f.agents["scout"], "east", StaffRole.MEMBER, valid_until=planned),
    )

    now = clock.advance(minutes=5)
    ended = organization.unstaff(svc, f.org, f.founder, made.id)

    assert ended.valid_until == now


def test_ending_an_unknown_or_foreign_staffing_is_not_found(
    firm: Firm, services: Ports, store: Store
) -> None:
    with pytest.raises(NotFound):
        organization.unstaff(services, firm.org, firm.founder, str(uuid.uuid4()))

    other = organization.onboard(services, "Other Firm", "zed@other.example")
    (orion,) = store.directory.staffing(firm.org, firm.agents["orion"])
    with pytest.raises(NotFound):
        organization.unstaff(services, other.org.id, other.founder.id, orion.id)
    (still,) = store.directory.staffing(firm.org, firm.agents["orion"])
    assert still.valid_until is None


# ---------------------------------------------------------------------------- barriers


@pytest.mark.parametrize(
    "groups",
    [
        [["east"], ["east", "west"]],
        [["east", "west"], ["west"]],
        [["east"], ["east"]],
    ],
    ids=["east-twice", "west-twice", "same-group"],
)
def test_a_barrier_with_overlapping_groups_is_refused(
    firm: Firm, services: Ports, store: Store, groups: list[list[str]]
) -> None:
    with pytest.raises(ValidationError) as raised:
        organization.add_barrier(services, firm.org, firm.founder, "leaky", groups)

    assert isinstance(raised.value, ValueError)
    assert "disjoint" in str(raised.value)
    assert [b.name for b in store.directory.barriers(firm.org)] == ["wall"]


@pytest.mark.parametrize("groups", [[["east"]], [["east"], []], []], ids=["one", "empty", "none"])
def test_a_barrier_that_separates_nothing_is_refused(
    firm: Firm, services: Ports, store: Store, groups: list[list[str]]
) -> None:
    with pytest.raises(ValueError):
        organization.add_barrier(services, firm.org, firm.founder, "pointless", groups)

    assert [b.name for b in store.directory.barriers(firm.org)] == ["wall"]


def test_a_barrier_naming_an_unknown_project_is_not_found(
    firm: Firm, services: Ports, store: Store
) -> None:
    with pytest.raises(NotFound) as raised:
        organization.add_barrier(
            services, firm.org, firm.founder, "north wall", [["east"], ["north"]]
        )

    assert "north" in str(raised.value)
    assert [b.name for b in store.directory.barriers(firm.org)] == ["wall"]


def test_a_barrier_may_not_name_another_organizations_project(
    firm: Firm, services: Ports, store: Store
) -> None:
    other = organization.onboard(services, "Other Firm", "zed@other.example")
    organization.add_project(services, other.org.id, other.founder.id, "north", "North")

    with pytest.raises(NotFound):
        organization.add_barrier(
            services, firm.org, firm.founder, "cross-tenant", [["east"], ["north"]]
        )


# ---------------------------------------------------------------------------- commitments


def test_a_commitment_is_recorded_as_extracted_and_confirmed_once(store: Store) -> None:
    clock = Clock(datetime(2031, 3, 4, 9, 0, tzinfo=UTC))
    svc = founder_only_services(store, clock)
    f = Firm(svc)
    until = datetime(2031, 12, 31, tzinfo=UTC)

    made = commitments.add_commitment(
        svc,
        f.org,
        f.founder,
        commitments.AddCommitment(
            "Atlas data-room spend cap",
            SpendCap(limit_cents=1_000_000),
            "engagement-letter.pdf",
            excerpt="Third-party costs shall not exceed USD 10,000.",
            projects=("east",),
            valid_until=until,
        ),
    )

    assert made.state is ReviewState.EXTRACTED
    assert not made.binds(clock.at)
    (stored,) = commitments.commitments(svc, f.org, f.founder)
    assert stored == made
    assert stored.constraint == SpendCap(limit_cents=1_000_000, currency="USD")
    assert stored.provenance.source == "engagement-letter.pdf"
    assert stored.provenance.recorded_by == f.founder
    assert stored.projects == ("east",)
    assert stored.valid_from == clock.at
    assert stored.valid_until == until
    assert_utc(stored.valid_from)
    assert_utc(stored.valid_until)
    assert stored.confirmed_by is None and stored.confirmed_at is None

    confirmed_at = clock.advance(minutes=10)
    confirmed = commitments.confirm(svc, made.id, f.founder)

    assert confirmed.state is ReviewState.CONFIRMED
    assert confirmed.confirmed_by == f.founder
    assert confirmed.confirmed_at == confirmed_at
    assert_utc(confirmed.confirmed_at)
    assert confirmed.binds(confirmed_at)
    assert commitments.commitments(svc, f.org, f.founder) == [confirmed]

    clock.advance(minutes=10)
    with pytest.raises(Conflict):
        commitments.confirm(svc, made.id, f.founder)
    assert commitments.commitments(svc, f.org, f.founder) == [
        confirmed
    ]  # the first confirmation stands


def test_an_obligation_round_trips(firm: Firm, services: Ports) -> None:
    made = commitments.add_commitment(
        services,
        firm.org,
        firm.associate,
        commitments.AddCommitment(
            "Deliver the Birch CIM",
            Obligation(text="CIM to the buyer list by 1 December"),
            "call notes",
        ),
    )

    (stored,) = commitments.commitments(services, firm.org, firm.founder)
    assert stored == made
    assert stored.constraint == Obligation(text="CIM to the buyer list by 1 December")
    assert stored.projects == ()
    assert stored.provenance.recorded_by == firm.associate


def test_a_commitment_on_an_unknown_project_is_not_found(firm: Firm, services: Ports) -> None:
    with pytest.raises(NotFound):
        commitments.add_commitment(
            services,
            firm.org,
            firm.founder,
            commitments.AddCommitment(
                "cap", SpendCap(limit_cents=1), "x", projects=("east", "north")
            ),
        )
    assert commitments.commitments(services, firm.org, firm.founder) == []


def test_a_commitment_by_a_stranger_is_not_found(firm: Firm, services: Ports) -> None:
    with pytest.raises(NotFound):
        commitments.add_commitment(
            services,
            firm.org,
            str(uuid.uuid4()),
            commitments.AddCommitment("cap", SpendCap(limit_cents=1), "x"),
        )


def test_only_the_founder_confirms_and_only_in_their_organization(
    firm: Firm, services: Ports
) -> None:
    made = commitments.add_commitment(
        services,
        firm.org,
        firm.associate,
        commitments.AddCommitment("cap", SpendCap(limit_cents=100), "x", projects=("east",)),
    )
    other = organization.onboard(services, "Other Firm", "zed@other.example")

    with pytest.raises(Forbidden):
        commitments.confirm(services, made.id, firm.associate)
    with pytest.raises(Forbidden):
        commitments.confirm(services, made.id, firm.agents["orion"])
    with pytest.raises(NotFound):  # a stranger learns nothing, not even that it exists
        commitments.confirm(services, made.id, str(uuid.uuid4()))
    with pytest.raises(NotFound):
        commitments.confirm(services, made.id, other.founder.id)
    with pytest.raises(NotFound):
        commitments.confirm(services, str(uuid.uuid4()), firm.founder)

    (stored,) = commitments.commitments(services, firm.org, firm.founder)
    assert stored.state is ReviewState.EXTRACTED and stored.confirmed_by is None


# ---------------------------------------------------------------------------- authorisation


def test_only_the_founder_may_configure(firm: Firm, services: Ports, store: Store) -> None:
    projects, staffing = store.directory.projects(firm.org), store.directory.staffing(firm.org)
    barriers, people = store.directory.barriers(firm.org), store.directory.principals(firm.org)
    (orion,) = store.directory.staffing(firm.org, firm.agents["orion"])
    other = organization.onboard(services, "Other Firm", "zed@other.example")

    # Members without the right are refused; strangers are told nothing exists.
    for actor, refused in (
        (firm.associate, Forbidden),
        (firm.agents["orion"], Forbidden),
        (other.founder.id, NotFound),
        (str(uuid.uuid4()), NotFound),
    ):
        with pytest.raises(refused):
            organization.add_project(services, firm.org, actor, "north", "North")
        with pytest.raises(refused):
            organization.add_human(services, firm.org, actor, "eve@hv.example", "Eve")
        with pytest.raises(refused):
            organization.staff(
                services, firm.org, actor, organization.AssignStaff(actor, "west", StaffRole.MEMBER)
            )
        with pytest.raises(refused):
            organization.staff(
                services,
                firm.org,
                actor,
                organization.AssignStaff(firm.associate, "east", StaffRole.APPROVER),
            )
        with pytest.raises(refused):
            organization.unstaff(services, firm.org, actor, orion.id)
        with pytest.raises(refused):
            organization.add_barrier(services, firm.org, actor, "wall-2", [["east"], ["west"]])
        with pytest.raises(refused):
            memory.remember(
                services, firm.org, actor, memory.Remember("leak", ("east",), "planted")
            )

    assert store.directory.projects(firm.org) == projects
    assert store.directory.staffing(firm.org) == staffing
    assert store.directory.barriers(firm.org) == barriers
    assert store.directory.principals(firm.org) == people
    assert firm.associate in {p.id for p in people}
    assert isinstance(Forbidden("x"), PermissionError)


def test_configuring_an_unknown_organization_is_not_found(services: Ports) -> None:
    with pytest.raises(NotFound):
        organization.add_project(services, str(uuid.uuid4()), str(uuid.uuid4()), "east", "Atlas")


# ---------------------------------------------------------------------------- runs


def run_row(org_id: str, agent_id: str, client_key: str | None, task: str = "t") -> RunRow:
    run_id = str(uuid.uuid4())
    return RunRow(
        id=run_id,
        org_id=org_id,
        agent_id=agent_id,
        task=task,
        workflow_id=f"agent-run-{run_id}",
        client_key=client_key,
        created_at=utc_now(),
    )


def test_runs_create_is_idempotent_by_org_and_client_key(firm: Firm, store: Store) -> None:
    first_row = run_row(firm.org, firm.agents["orion"], "key-1", task="first")
    first, created = store.runs.create(first_row)
    assert created is True
    assert first.id == first_row.id

    retry = run_row(firm.org, firm.agents["orion"], "key-1", task="retried")
    again, created_again = store.runs.create(retry)

    assert created_again is False
    assert again.id == first_row.id
    assert again.task == "first"
    assert again.workflow_id == first_row.workflow_id
    assert store.runs.get(retry.id) is None
    stored = store.runs.get(first_row.id)
    assert stored is not None and stored.task == "first" and stored.client_key == "key-1"
    found = store.runs.by_client_key(firm.org, "key-1")
    assert found is not None and found.id == first_row.id


def test_the_same_client_key_in_another_org_or_no_key_makes_new_runs(
    firm: Firm, services: Ports, store: Store
) -> None:
    other = organization.onboard(services, "Other Firm", "zed@other.example")
    other_orion = next(a.id for a in other.agents if a.handle == "orion")

    a, created_a = store.runs.create(run_row(firm.org, firm.agents["orion"], "shared-key"))
    b, created_b = store.runs.create(run_row(other.org.id, other_orion, "shared-key"))
    c, created_c = store.runs.create(run_row(firm.org, firm.agents["orion"], None))
    d, created_d = store.runs.create(run_row(firm.org, firm.agents["orion"], None))

    assert (created_a, created_b, created_c, created_d) == (True, True, True, True)
    assert len({a.id, b.id, c.id, d.id}) == 4
    assert store.runs.by_client_key(other.org.id, "shared-key").id == b.id  # type: ignore[union-attr]


def test_a_duplicate_run_id_without_a_key_is_an_error(firm: Firm, store: Store) -> None:
    row = run_row(firm.org, firm.agents["orion"], None)
    store.runs.create(row)
    clash = run_row(firm.org, firm.agents["orion"], None)
    clash.id = row.id

    with pytest.raises(Exception):  # noqa: B017  (the driver's IntegrityError)
        store.runs.create(clash)


# ---------------------------------------------------------------------------- memory


QUERY = "Atlas kickoff notes and the Birch CIM projections"


def test_recall_releases_east_nodes_to_east_staff_and_withholds_west(
    firm: Firm, store: Store
) -> None:
    result = store.memory.recall(
        asker_principal_id=firm.agents["orion"], org_id=firm.org, query=QUERY, now=utc_now()
    )

    assert result.released_refs == ("atlas-kickoff",)
    assert result.released == ("[atlas-kickoff] Atlas kickoff notes",)
    assert result.withheld == 1
    assert not any("Birch" in text for text in result.released)


def test_recall_releases_west_nodes_to_west_staff_only(firm: Firm, store: Store) -> None:
    result = store.memory.recall(
        asker_principal_id=firm.agents["vega"], org_id=firm.org, query=QUERY, now=utc_now()
    )

    assert result.released_refs == ("birch-cim",)
    assert result.withheld == 1


def test_recall_gives_an_unstaffed_agent_nothing(firm: Firm, store: Store) -> None:
    result = store.memory.recall(
        asker_principal_id=firm.agents["scout"], org_id=firm.org, query=QUERY, now=utc_now()
    )

    assert result.released == () and result.released_refs == ()
    assert result.withheld == 2


def test_recall_follows_current_staffing(firm: Firm, services: Ports, store: Store) -> None:
    (orion,) = store.directory.staffing(firm.org, firm.agents["orion"])
    organization.unstaff(services, firm.org, firm.founder, orion.id)

    result = store.memory.recall(
        asker_principal_id=firm.agents["orion"],
        org_id=firm.org,
        query="Atlas kickoff",
        now=utc_now() + timedelta(seconds=1),
    )

    assert result.released_refs == ()
    assert result.withheld == 2  # both records, now that Orion reads neither side


def test_recall_never_crosses_organizations(firm: Firm, services: Ports, store: Store) -> None:
    other = organization.onboard(services, "Other Firm", "zed@other.example")

    result = store.memory.recall(
        asker_principal_id=firm.agents["orion"], org_id=other.org.id, query=QUERY, now=utc_now()
    )

    assert result.released_refs == () and result.withheld == 0


def test_every_read_is_logged_including_empty_ones(firm: Firm, store: Store) -> None:
    assert store.memory.reads(firm.org) == []
    now = utc_now()

    store.memory.recall(
        asker_principal_id=firm.agents["orion"], org_id=firm.org, query=QUERY, now=now
    )
    store.memory.recall(
        asker_principal_id=firm.agents["orion"], org_id=firm.org, query="Birch CIM", now=now
    )
    store.memory.recall(
        asker_principal_id=firm.agents["vega"], org_id=firm.org, query="zebra crossings", now=now
    )
    store.memory.recall(asker_principal_id=firm.associate, org_id=firm.org, query="", now=now)

    reads = store.memory.reads(firm.org)
    assert [(r.asker_id, r.query, r.released, r.withheld, r.outcome) for r in reads] == [
        (firm.agents["orion"], QUERY, ("atlas-kickoff",), 1, "released"),
        (firm.agents["orion"], "Birch CIM", (), 1, "withheld"),
        # nothing near "zebra crossings", and the East record withheld all the same: the
        # count does not move with the query, or it would tell what is withheld
        (firm.agents["vega"], "zebra crossings", (), 1, "withheld"),
        (firm.associate, "", (), 1, "withheld"),
    ]
    assert all(r.path == "recall" for r in reads)


# ---------------------------------------------------------------------------- schema


def test_migrations_match_the_models(db_url: str) -> None:
    command.check(alembic_config(db_url))


def test_a_long_read_does_not_wait_for_a_writer(sqlite_url: str) -> None:
    """On SQLite a read (verification, listings) takes no write lock: it finishes while a
    writer holds the database (a read that asked for the lock would wait out the busy
    timeout and fail with "database is locked")."""
    import threading

    from sqlalchemy import text

    from tests.support import TEST_KEYS

    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    try:
        ports = wire(store, None, make_settings(), utc_now)
        org = organization.onboard(ports, "F", "f@f.example").org
        holding, release = threading.Event(), threading.Event()

        def writer() -> None:
            with store.db.transaction() as s:
                s.execute(text("select 1"))
                holding.set()
                release.wait(60)  # longer than the busy timeout a blocked read would hit

        t = threading.Thread(target=writer)
        t.start()
        try:
            assert holding.wait(5)
            assert store.audit.verify(org.id).ok
            assert store.directory.principals(org.id)
        finally:
            release.set()
            t.join()
    finally:
        store.close()


def test_a_read_that_fails_is_still_logged(
    firm: Firm, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise OSError("disk went away")

    monkeypatch.setattr(store.memory, "_released", broken)
    with pytest.raises(OSError):
        store.memory.recall(
            asker_principal_id=firm.agents["orion"], org_id=firm.org, query=QUERY, now=utc_now()
        )
    (read,) = store.memory.reads(firm.org)
    assert (read.asker_id, read.outcome, read.released) == (firm.agents["orion"], "failed", ())


def test_a_read_for_a_human_releases_only_what_both_may_read(firm: Firm, store: Store) -> None:
    """Vega reads West; acting for Ben (East only) she reads nothing of it; acting for the
    founder (who reads everything) she reads what she alone would; acting for someone
    outside the organization, nothing."""

    def refs(on_behalf_of: str | None) -> tuple[str, ...]:
        return store.memory.recall(
            asker_principal_id=firm.agents["vega"],
            org_id=firm.org,
            query=QUERY,
            now=utc_now(),
            on_behalf_of=on_behalf_of,
        ).released_refs

    assert refs(None) == ("birch-cim",)
    assert refs(firm.founder) == ("birch-cim",)
    assert refs(firm.associate) == ()
    assert refs("someone-else") == ()
    assert [r.on_behalf_of for r in store.memory.reads(firm.org)] == [
        None,
        firm.founder,
        firm.associate,
        "someone-else",
    ]


def _migrate_in_a_process(url: str, start) -> None:  # type: ignore[no-untyped-def]
    from adapters.store.db import migrate

    start.wait()  # every process imported and ready: they migrate at the same moment
    migrate(url)


def test_processes_that_start_together_migrate_one_at_a_time(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``verletica up`` starts the worker and the API at once, and both migrate. On a
    busy machine both ran the same step, and the second failed on a column the first
    had just added ("duplicate column name"), so the API never came up. Now each waits
    for the other: four processes migrating one new database all succeed, and the
    schema is at the newest step."""
    import multiprocessing

    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    url = f"sqlite:///{tmp_path / 'together.db'}"
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(4)
    workers = [context.Process(target=_migrate_in_a_process, args=(url, start)) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(600)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    engine = create_engine(url)
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    engine.dispose()
    assert current == ScriptDirectory.from_config(alembic_config(url)).get_current_head()
