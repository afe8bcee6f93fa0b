"""Organizations and their configuration."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from api.http.deps import Actor, FoundingSubject, PortsDep
from api.http.schemas import (
    BarrierBody,
    HumanBody,
    MemoryBody,
    OnboardBody,
    ProjectBody,
    StaffingBody,
    StandingBody,
)
from domain.organization.contracts import Barrier, Principal, Project, Staffing
from usecases import memory, organization

router = APIRouter(tags=["organizations"])


class OnboardAnswer(BaseModel):
    """A new organization: its id, its founder's id and its starter fleet."""

    org_id: str
    founder_id: str
    agents: list[Principal]


class MemoryStored(BaseModel):
    """A memory record stored."""

    ref: str


@router.post("/orgs", status_code=201)
def onboard(body: OnboardBody, ports: PortsDep, subject: FoundingSubject) -> OnboardAnswer:
    """Found an organization: you become its founder (your ID token's subject is linked
    to the founder), with a starter fleet of agents."""
    done = organization.onboard(
        ports, body.name, body.founder_email, body.founder_name, oidc_subject=subject
    )
    return OnboardAnswer(org_id=done.org.id, founder_id=done.founder.id, agents=done.agents)


@router.post("/orgs/{org_id}/humans", status_code=201)
def add_human(org_id: str, body: HumanBody, ports: PortsDep, actor: Actor) -> Principal:
    return organization.add_human(ports, org_id, actor, body.email, body.display_name)


@router.get("/orgs/{org_id}/principals")
def principals(org_id: str, ports: PortsDep, actor: Actor) -> list[Principal]:
    return organization.principals(ports, org_id, actor)


@router.post("/orgs/{org_id}/principals/{principal_id}/suspend")
def suspend(
    org_id: str, principal_id: str, body: StandingBody, ports: PortsDep, actor: Actor
) -> organization.StandingChanged:
    """Stop a person or an agent from acting until brought back (the founder's)."""
    return organization.suspend(ports, org_id, actor, principal_id, body.reason)


@router.post("/orgs/{org_id}/principals/{principal_id}/reactivate")
def reactivate(
    org_id: str, principal_id: str, body: StandingBody, ports: PortsDep, actor: Actor
) -> organization.StandingChanged:
    """Bring a suspended principal back (a person signs in again)."""
    return organization.reactivate(ports, org_id, actor, principal_id, body.reason)


@router.post("/orgs/{org_id}/principals/{principal_id}/offboard")
def offboard(
    org_id: str, principal_id: str, body: StandingBody, ports: PortsDep, actor: Actor
) -> organization.StandingChanged:
    """A person or an agent leaves for good: staffing ends, sign-ins are unlinked."""
    return organization.offboard(ports, org_id, actor, principal_id, body.reason)


@router.post("/orgs/{org_id}/projects", status_code=201)
def add_project(org_id: str, body: ProjectBody, ports: PortsDep, actor: Actor) -> Project:
    return organization.add_project(ports, org_id, actor, body.slug, body.name)


@router.get("/orgs/{org_id}/projects")
def projects(org_id: str, ports: PortsDep, actor: Actor) -> list[Project]:
    return organization.projects(ports, org_id, actor)


@router.post("/orgs/{org_id}/staffing", status_code=201)
def staff(org_id: str, body: StaffingBody, ports: PortsDep, actor: Actor) -> Staffing:
    return organization.staff(
        ports,
        org_id,
        actor,
        organization.AssignStaff(
            body.principal_id, body.project, body.role, valid_until=body.valid_until
        ),
    )


@router.delete("/orgs/{org_id}/staffing/{staffing_id}")
def unstaff(org_id: str, staffing_id: str, ports: PortsDep, actor: Actor) -> Staffing:
    return organization.unstaff(ports, org_id, actor, staffing_id)


@router.get("/orgs/{org_id}/staffing")
def staffing(org_id: str, ports: PortsDep, actor: Actor) -> list[Staffing]:
    return organization.staffing(ports, org_id, actor)


@router.post("/orgs/{org_id}/barriers", status_code=201)
def add_barrier(org_id: str, body: BarrierBody, ports: PortsDep, actor: Actor) -> Barrier:
    return organization.add_barrier(
        ports, org_id, actor, body.name, body.groups, founder_side=body.founder_side
    )


@router.post("/orgs/{org_id}/memory", status_code=201)
def remember(org_id: str, body: MemoryBody, ports: PortsDep, actor: Actor) -> MemoryStored:
    memory.remember(
        ports,
        org_id,
        actor,
        memory.Remember(
            body.ref, tuple(body.projects), body.text, kind=body.kind, source=body.source
        ),
    )
    return MemoryStored(ref=body.ref)
