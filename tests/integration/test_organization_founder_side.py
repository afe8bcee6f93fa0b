"""Issue 19.27: the founder is staffed as approver on every project, so on both sides of
every wall, and so read neither side's memory with no explanation. Now the founder
chooses where to stand as a wall goes up: on one side (reading and approving there, the
other sides' staffing ended), or approver on every side reading none; and the choice is
said in words (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from domain.governance.review import authority_refusal
from usecases import memory, organization
from usecases.context import Ports


def _firm(services: Ports) -> tuple[str, str]:
    """A firm with east and west (no wall yet), a record on each side."""
    onboarded = organization.onboard(services, "Lark & Moss", "ada@lm.example", "Ada")
    org, ada = onboarded.org.id, onboarded.founder.id
    organization.add_project(services, org, ada, "east", "Atlas")
    organization.add_project(services, org, ada, "west", "Birch")
    memory.remember(
        services, org, ada, memory.Remember("birch-cim", ("west",), "Birch CIM projections")
    )
    memory.remember(
        services, org, ada, memory.Remember("atlas-kickoff", ("east",), "Atlas kickoff notes")
    )
    return org, ada


def _reads(services: Ports, org: str, ada: str) -> set[str]:
    now = services.clock() + timedelta(seconds=1)
    return {
        ref
        for ref in ("birch-cim", "atlas-kickoff")
        if services.memory.get(asker_principal_id=ada, org_id=org, ref=ref, now=now).text
    }


def _approves(services: Ports, org: str, ada: str, project: str) -> bool:
    founder = services.directory.principal(org, ada)
    staffing = tuple(services.directory.staffing(org, ada))
    return authority_refusal(founder, staffing, (project,), services.clock()) is None


def test_before_a_wall_the_founder_reads_and_approves_everywhere(services: Ports) -> None:
    org, ada = _firm(services)
    assert _reads(services, org, ada) == {"birch-cim", "atlas-kickoff"}


def test_the_founder_stays_on_one_side_of_a_new_wall(services: Ports) -> None:
    org, ada = _firm(services)
    organization.add_barrier(services, org, ada, "wall", [["east"], ["west"]], founder_side="east")
    assert _reads(services, org, ada) == {"atlas-kickoff"}
    assert _approves(services, org, ada, "east") and not _approves(services, org, ada, "west")
    ((_, said),) = organization.founder_standing(services, org, ada)
    assert said.startswith("Ada stays on Atlas of wall (reads its memory, approves there)")
    assert "on Birch, Ada neither reads nor approves: staff an approver there" in said


def test_the_founder_may_stay_approver_on_every_side_reading_none(services: Ports) -> None:
    """Today's default, now an explicit choice that says what it means."""
    org, ada = _firm(services)
    organization.add_barrier(services, org, ada, "wall", [["east"], ["west"]])
    assert _reads(services, org, ada) == set()
    assert _approves(services, org, ada, "east") and _approves(services, org, ada, "west")
    ((_, said),) = organization.founder_standing(services, org, ada)
    assert "approves on every side of wall (Atlas | Birch)" in said
    assert "reads the memory of none of them" in said


def test_a_side_that_is_no_project_of_the_wall_is_refused(services: Ports) -> None:
    org, ada = _firm(services)
    with pytest.raises(ValueError, match="a project of the wall"):
        organization.add_barrier(
            services, org, ada, "wall", [["east"], ["west"]], founder_side="north"
        )
    assert services.directory.barriers(org) == []
    assert _reads(services, org, ada) == {"birch-cim", "atlas-kickoff"}


def test_the_api_takes_the_founders_side(services: Ports, api: TestClient) -> None:
    org, ada = _firm(services)
    as_ada = {"X-Verletica-Principal": ada}
    body = {"name": "wall", "groups": [["east"], ["west"]], "founder_side": "west"}
    answer = api.post(f"/v1/orgs/{org}/barriers", json=body, headers=as_ada)
    assert answer.status_code == 201, answer.text
    assert _reads(services, org, ada) == {"birch-cim"}
    bad = {**body, "name": "wall-2", "founder_side": "nowhere"}
    refused = api.post(f"/v1/orgs/{org}/barriers", json=bad, headers=as_ada)
    assert refused.status_code == 422, refused.text
