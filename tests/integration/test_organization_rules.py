"""Configuration rules hold under concurrency and under any order of calls.

An agent is never active on two sides of a barrier, and no memory record spans one,
whatever staffing, unstaffing, barrier and memory calls race or interleave. Each race
runs on SQLite and on PostgreSQL, repeated.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from adapters.memory.tables import MemoryNodeRow
from adapters.store.store import Store
from domain.organization.kinds import PrincipalKind, StaffRole
from tests.support import Firm, race, utc_now
from usecases import memory, organization
from usecases.context import Ports

ROUNDS = 4


def violations(store: Store, org: str) -> list[str]:
    """Every agent straddling a barrier and every record spanning one, right now."""
    now = utc_now()
    agents = {p.id for p in store.directory.principals(org) if p.kind is PrincipalKind.AGENT}
    active: dict[str, set[str]] = {}
    for s in store.directory.staffing(org):
        if s.principal_id in agents and s.active_at(now):
            active.setdefault(s.principal_id, set()).add(s.project)
    with store.db.transaction() as s:
        records = {
            r.ref: set(r.projects)
            for r in s.execute(select(MemoryNodeRow).where(MemoryNodeRow.org_id == org)).scalars()
        }
    found = []
    for barrier in store.directory.barriers(org):
        for who, projects in active.items():
            if len(barrier.groups_touched(frozenset(projects))) > 1:
                found.append(f"agent {who} straddles {barrier.name}: {sorted(projects)}")
        for ref, projects in records.items():
            if len(barrier.groups_touched(frozenset(projects))) > 1:
                found.append(f"record {ref} spans {barrier.name}: {sorted(projects)}")
    return found


def unstaff_everywhere(svc: Ports, firm: Firm, principal_id: str) -> None:
    now = utc_now()
    for s in svc.store.directory.staffing(firm.org, principal_id):
        if s.active_at(now):
            organization.unstaff(svc, firm.org, firm.founder, s.id)


def new_projects(svc: Ports, firm: Firm, *names: str) -> list[str]:
    slugs = [f"{name}-{uuid.uuid4().hex[:6]}" for name in names]
    for slug in slugs:
        organization.add_project(svc, firm.org, firm.founder, slug, slug)
    return slugs


def test_concurrent_staffing_never_puts_an_agent_on_both_sides(
    firm: Firm, services: Ports, store: Store
) -> None:
    scout = firm.agents["scout"]
    for _ in range(ROUNDS):
        sides = ["east", "west"] * 3
        results = race(
            [
                lambda p=p: organization.staff(
                    services,
                    firm.org,
                    firm.founder,
                    organization.AssignStaff(scout, p, StaffRole.MEMBER),
                )
                for p in sides
            ]
        )
        assert not [r for r in results if isinstance(r, Exception) and "both sides" not in str(r)]
        assert violations(store, firm.org) == []
        now = utc_now()
        active = {s.project for s in store.directory.staffing(firm.org, scout) if s.active_at(now)}
        assert len(active) == 1, active
        unstaff_everywhere(services, firm, scout)


def test_a_barrier_racing_staffing_never_splits_an_agent(
    firm: Firm, services: Ports, store: Store
) -> None:
    scout = firm.agents["scout"]
    for _ in range(ROUNDS):
        north, south = new_projects(services, firm, "north", "south")
        staff = partial(organization.staff, services, firm.org, firm.founder)
        wall = partial(organization.add_barrier, services, firm.org, firm.founder)
        calls: list[Callable[[], Any]] = [
            partial(staff, organization.AssignStaff(scout, north, StaffRole.MEMBER)),
            partial(staff, organization.AssignStaff(scout, south, StaffRole.MEMBER)),
            partial(wall, "ns", [[north], [south]]),
            partial(wall, "sn", [[south], [north]]),
        ]
        race(calls)
        assert violations(store, firm.org) == []
        unstaff_everywhere(services, firm, scout)


def test_a_barrier_racing_a_memory_record_never_splits_it(
    firm: Firm, services: Ports, store: Store
) -> None:
    for i in range(ROUNDS):
        north, south = new_projects(services, firm, "north", "south")
        calls: list[Callable[[], Any]] = [
            partial(
                memory.remember,
                services,
                firm.org,
                firm.founder,
                memory.Remember(f"deal-{i}", (north, south), "notes"),
            ),
            partial(
                organization.add_barrier, services, firm.org, firm.founder, "ns", [[north], [south]]
            ),
        ]
        race(calls)
        assert violations(store, firm.org) == []


def test_a_new_barrier_may_not_split_an_existing_record(
    firm: Firm, services: Ports, store: Store
) -> None:
    north, south = new_projects(services, firm, "north", "south")
    memory.remember(
        services, firm.org, firm.founder, memory.Remember("joint", (north, south), "joint notes")
    )
    with pytest.raises(ValueError, match="joint"):
        organization.add_barrier(services, firm.org, firm.founder, "ns", [[north], [south]])
    assert [b.name for b in store.directory.barriers(firm.org)] == ["wall"]


# ------------------------------------------------------------------ any order of calls

OPS = st.lists(
    st.one_of(
        st.tuples(st.just("staff"), st.sampled_from(["a1", "a2", "h"]), st.integers(0, 3)),
        st.tuples(st.just("unstaff"), st.integers(0, 20)),
        st.tuples(
            st.just("barrier"),
            st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True),
            st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True),
        ),
        st.tuples(
            st.just("remember"), st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True)
        ),
    ),
    min_size=1,
    max_size=14,
)


def test_no_interleaving_of_configuration_calls_breaks_a_barrier(
    services: Ports, store: Store
) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ops=OPS)
    def check(ops: list[tuple[Any, ...]]) -> None:
        done = organization.onboard(services, "Prop Firm", f"f{uuid.uuid4().hex[:8]}@prop.example")
        org, founder = done.org.id, done.founder.id
        who = {
            "a1": done.agents[0].id,
            "a2": done.agents[1].id,
            "h": organization.add_human(services, org, founder, "h@prop.example", "H").id,
        }
        projects = [f"p{i}" for i in range(4)]
        for p in projects:
            organization.add_project(services, org, founder, p, p)
        for n, op in enumerate(ops):
            try:
                if op[0] == "staff":
                    organization.staff(
                        services,
                        org,
                        founder,
                        organization.AssignStaff(who[op[1]], projects[op[2]], StaffRole.MEMBER),
                    )
                elif op[0] == "unstaff":
                    rows = [s for s in store.directory.staffing(org) if s.active_at(utc_now())]
                    if rows:
                        organization.unstaff(services, org, founder, rows[op[1] % len(rows)].id)
                elif op[0] == "barrier":
                    left = [projects[i] for i in op[1]]
                    right = [projects[i] for i in op[2] if projects[i] not in left]
                    if right:
                        organization.add_barrier(services, org, founder, f"b{n}", [left, right])
                else:
                    memory.remember(
                        services,
                        org,
                        founder,
                        memory.Remember(f"r{n}", tuple(projects[i] for i in op[1]), "note"),
                    )
            except (LookupError, ValueError, PermissionError):
                pass  # a refusal is fine; a broken invariant is not
            assert violations(store, org) == [], (n, op)

    check()


def test_a_principal_of_another_organization_reads_nothing_of_this_one(
    firm: Firm, services: Ports, store: Store
) -> None:
    """Standing for an outsider (another organization's person, an unknown id) is None,
    and this organization's configuration is not even read for them: a person learns
    nothing of an organization they are not in, not by how long it takes either."""
    other = organization.onboard(services, "Elsewhere", "eve@elsewhere.example", "Eve")
    store.directory._cache._by_org.clear()  # type: ignore[attr-defined]
    assert services.directory.standing(firm.org, other.founder.id) is None
    assert services.directory.standing(firm.org, str(uuid.uuid4())) is None
    assert services.directory.standing(str(uuid.uuid4()), firm.founder) is None
    assert firm.org not in store.directory._cache._by_org  # type: ignore[attr-defined]
    found = services.directory.standing(firm.org, firm.founder)
    assert found is not None
    org, founder, staffing = found
    assert (org.id, founder.id) == (firm.org, firm.founder)
    assert list(staffing) == services.directory.staffing(firm.org, firm.founder)
