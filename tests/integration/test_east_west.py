"""The East/West test: confidential West memory is retrievable by the West planner and
by no East principal through any of the five read paths (similarity, by reference,
neighbours, causal explanation, procedure), including after staffing changes in both
directions; an explanation through a West record is redacted for an East reader without
revealing West content; an asker from another organization with the same project slugs
gets nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.errors import Conflict
from domain.memory.release import Release
from domain.organization.kinds import StaffRole
from tests.support import Firm, utc_now
from usecases import memory, organization
from usecases.context import Ports

WEST_WORDS = ("Birch", "birch", "EBITDA", "bridge")


def _west_firm(firm: Firm, services: Ports) -> None:
    org, ada = firm.org, firm.founder
    organization.add_project(services, org, ada, "north", "North")
    for who in (firm.associate, firm.agents["orion"], firm.agents["vega"]):
        organization.staff(
            services, org, ada, organization.AssignStaff(who, "north", StaffRole.MEMBER)
        )
    memory.remember(
        services,
        org,
        ada,
        memory.Remember("birch-bridge", ("west",), "Birch EBITDA bridge: 2026 adjustments."),
    )
    memory.remember(
        services, org, ada, memory.Remember("outlook", ("north",), "Firm outlook for 2027.")
    )
    memory.link(
        services, org, ada, memory.AddLink("outlook", "birch-bridge", "derived_from", span=(0, 18))
    )
    memory.link(services, org, ada, memory.AddLink("birch-cim", "birch-bridge", "relates"))
    memory.publish_procedure(
        services, org, ada, "birch-close", ("west",), ("Reconcile the Birch EBITDA bridge.",)
    )


def _paths(services: Ports, org: str, asker: str, now: object) -> dict[str, list[str]]:
    """What each of the five paths releases to ``asker`` (refs, or names for procedures),
    and every text it shows."""
    bank = services.memory
    similar = bank.query(
        asker_principal_id=asker,
        org_id=org,
        text="Birch EBITDA bridge",
        now=now,  # type: ignore[arg-type]
    )
    by_ref = bank.get(asker_principal_id=asker, org_id=org, ref="birch-bridge", now=now)  # type: ignore[arg-type]
    near = bank.neighbours(asker_principal_id=asker, org_id=org, ref="birch-cim", now=now)  # type: ignore[arg-type]
    why = bank.explain(asker_principal_id=asker, org_id=org, ref="outlook", now=now)  # type: ignore[arg-type]
    how = bank.procedure(asker_principal_id=asker, org_id=org, name="birch-close", now=now)  # type: ignore[arg-type]
    return {
        "similarity": [h.view.ref or "" for h in similar.hits],
        "get": [by_ref.ref] if by_ref.ref else [],
        "neighbours": [n.view.ref or "" for n in near.neighbours],
        "explain": [s.view.ref for s in why.steps if s.view.ref],
        "procedure": [how.name] if how.name else [],
        "texts": [
            *(h.view.text or "" for h in similar.hits),
            by_ref.text or "",
            *(n.view.text or "" for n in near.neighbours),
            *(s.source or "" for s in why.steps),
            *how.steps,
        ],
    }


def _sees_west(seen: dict[str, list[str]]) -> bool:
    west = {"birch-bridge", "birch-cim", "birch-close"}
    refs = {r for path, refs in seen.items() if path != "texts" for r in refs}
    return bool(refs & west) or any(w in t for t in seen["texts"] for w in WEST_WORDS)


def test_west_memory_is_the_west_planners_through_every_path(firm: Firm, services: Ports) -> None:
    _west_firm(firm, services)
    now = utc_now() + timedelta(seconds=1)
    vega = _paths(services, firm.org, firm.agents["vega"], now)
    assert "birch-bridge" in vega["similarity"] and vega["get"] == ["birch-bridge"]
    assert vega["neighbours"] == ["birch-bridge"] and vega["explain"] == ["birch-bridge"]
    assert vega["procedure"] == ["birch-close"]
    for east in (firm.associate, firm.agents["orion"], firm.founder):
        assert not _sees_west(_paths(services, firm.org, east, now)), east

    # The explanation of the North outlook is redacted for the East, and says nothing.
    why = services.memory.explain(
        asker_principal_id=firm.associate, org_id=firm.org, ref="outlook", now=now
    )
    assert why.of.release is Release.WHOLE and why.redacted
    assert [s.view.release for s in why.steps] == [Release.WITHHELD]
    assert not any(w in why.model_dump_json() for w in WEST_WORDS)


def test_staffing_changes_move_what_each_side_sees(firm: Firm, services: Ports) -> None:
    _west_firm(firm, services)
    org, ada = firm.org, firm.founder
    # Ben moves from East to West; Vega leaves West.
    for who, project in ((firm.associate, "east"), (firm.agents["vega"], "west")):
        row = next(s for s in services.directory.staffing(org, who) if s.project == project)
        organization.unstaff(services, org, ada, row.id)
    organization.staff(
        services, org, ada, organization.AssignStaff(firm.associate, "west", StaffRole.MEMBER)
    )
    now = utc_now() + timedelta(seconds=1)
    ben = _paths(services, org, firm.associate, now)
    assert ben["get"] == ["birch-bridge"] and ben["procedure"] == ["birch-close"]
    assert ben["explain"] == ["birch-bridge"]
    assert not _sees_west(_paths(services, org, firm.agents["vega"], now))


def test_another_organization_with_the_same_slugs_gets_nothing(firm: Firm, services: Ports) -> None:
    _west_firm(firm, services)
    other = organization.onboard(services, "Mirror", "m@mirror.example")
    for slug in ("east", "west", "north"):
        organization.add_project(services, other.org.id, other.founder.id, slug, slug)
    stranger = next(a.id for a in other.agents if a.handle == "vega")
    organization.staff(
        services,
        other.org.id,
        other.founder.id,
        organization.AssignStaff(stranger, "west", StaffRole.MEMBER),
    )
    now = utc_now() + timedelta(seconds=1)
    assert not _sees_west(_paths(services, firm.org, stranger, now))
    assert _paths(services, firm.org, stranger, now) == {
        "similarity": [],
        "get": [],
        "neighbours": [],
        "explain": [],
        "procedure": [],
        "texts": [""],
    }


def test_a_new_wall_may_not_split_a_link_or_a_procedure(firm: Firm, services: Ports) -> None:
    org, ada = firm.org, firm.founder
    for slug in ("south", "sea"):
        organization.add_project(services, org, ada, slug, slug)
    memory.remember(services, org, ada, memory.Remember("s-note", ("south",), "South note"))
    memory.remember(services, org, ada, memory.Remember("sea-note", ("sea",), "Sea note"))
    memory.link(services, org, ada, memory.AddLink("s-note", "sea-note", "relates"))
    with pytest.raises(Conflict, match="link s-note→sea-note"):
        organization.add_barrier(services, org, ada, "tide", [["south"], ["sea"]])
    organization.add_project(services, org, ada, "lake", "lake")
    memory.publish_procedure(services, org, ada, "round", ("lake", "sea"), ("Row.",))
    with pytest.raises(Conflict, match="procedure round"):
        organization.add_barrier(services, org, ada, "shore", [["lake"], ["sea"]])
