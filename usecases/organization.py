"""The organization and its configuration: onboarding, people, projects, staffing,
barriers and the workspace the founder sees.

Every change runs inside one :meth:`~domain.organization.ports.ConfigurationStore.change`: the
organization locked, the rule of :mod:`domain.organization.configuration` checked against what is
stored, the write and its audit entry committed together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel

from domain.errors import Conflict, NotFound
from domain.fleet.starter import STARTER_FLEET, StarterAgent
from domain.organization import configuration as rules
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Identity,
    Organization,
    Principal,
    Project,
    Staffing,
)
from domain.organization.kinds import (
    CharterStatus,
    IdentityKind,
    PrincipalKind,
    PrincipalStatus,
    StaffRole,
)
from domain.organization.ports import OrgChange
from usecases import commitments
from usecases.access import founder, member, stated
from usecases.context import Ports, new_id


class Onboarded(BaseModel):
    """A new organization, its founder and its starter fleet."""

    org: Organization
    founder: Principal
    agents: list[Principal]


def _starter_agent(org_id: str, spec: StarterAgent) -> tuple[Principal, AgentDefinition, Charter]:
    agent = Principal(
        id=new_id(),
        org_id=org_id,
        kind=PrincipalKind.AGENT,
        handle=spec.handle,
        display_name=spec.display_name,
        agent_kind=spec.agent_kind,
    )
    definition = AgentDefinition(
        principal_id=agent.id,
        version=1,
        instructions=spec.instructions,
        budget_cents=spec.budget_cents,
    )
    charter = Charter(
        principal_id=agent.id,
        version=1,
        status=CharterStatus.PUBLISHED,
        role=spec.role,
        purpose=spec.purpose,
        tools=spec.tools,
        budget_ceiling_cents=spec.ceiling_cents,
        definition_pin=1,
    )
    return agent, definition, charter


def onboard(
    ports: Ports,
    name: str,
    founder_email: str,
    founder_name: str | None = None,
    oidc_subject: str | None = None,
) -> Onboarded:
    """Create an organization, its founder and the starter fleet of agents, atomically;
    ``oidc_subject`` (the person founding it, as their issuer names them) then proves
    the founder. A subject proves one principal: one already linked is a Conflict."""
    if not name.strip() or "@" not in founder_email:
        raise ValueError("an organization needs a name and a founder email")
    if oidc_subject is not None and ports.directory.identity(IdentityKind.OIDC, oidc_subject):
        raise Conflict("your sign-in already belongs to a principal of an organization")
    org_id = new_id()
    handle = rules.handle_for(founder_email, taken=(), fallback="founder")
    if handle in {spec.handle for spec in STARTER_FLEET}:
        handle = f"{handle}-founder"  # the starter agents' handles are taken
    person = Principal(
        id=new_id(),
        org_id=org_id,
        kind=PrincipalKind.HUMAN,
        handle=handle,
        display_name=founder_name or founder_email.rpartition("@")[0],
        email=founder_email,
    )
    fleet = [_starter_agent(org_id, spec) for spec in STARTER_FLEET]
    org = ports.configuration.create_org(name.strip(), person, fleet, ports.clock())
    if oidc_subject is not None:
        with ports.configuration.change(org.id, person.id, ports.clock) as change:
            change.link_identity(
                Identity(
                    org_id=org.id,
                    kind=IdentityKind.OIDC,
                    external_id=oidc_subject,
                    principal_id=person.id,
                )
            )
    return Onboarded(org=org, founder=person, agents=[agent for agent, _, _ in fleet])


def add_human(ports: Ports, org_id: str, actor_id: str, email: str, display_name: str) -> Principal:
    """Invite a human colleague; they get authority only through staffing."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        human = Principal(
            id=new_id(),
            org_id=org_id,
            kind=PrincipalKind.HUMAN,
            handle=rules.handle_for(email, change.handles()),
            display_name=display_name,
            email=email,
        )
        return change.add_principal(human)


class StandingChanged(BaseModel):
    """A principal suspended, brought back or offboarded, and what ended with it."""

    principal: Principal
    staffing_ended: int = 0
    """Staffing rows ended (offboarding ends them all)."""
    unlinked: list[IdentityKind] = []
    """The sign-ins and chat accounts that prove them no more (offboarding)."""


def suspend(
    ports: Ports, org_id: str, actor_id: str, principal_id: str, reason: str
) -> StandingChanged:
    """Stop a person or an agent from acting, for now (the founder's; on the record).
    Everything they might do is refused from this moment: a person's sign-ins, API
    calls and chat messages, and approvals they sent that the broker has not yet
    reviewed; an agent's next intent, and the approval of one it has waiting. Their
    staffing and accounts stay, for when they are brought back."""
    return _move(ports, org_id, actor_id, principal_id, PrincipalStatus.SUSPENDED, reason)


def reactivate(
    ports: Ports, org_id: str, actor_id: str, principal_id: str, reason: str
) -> StandingChanged:
    """Bring a suspended principal back: their staffing counts again. A person signs in
    afresh: sessions from before do not come back with them."""
    return _move(ports, org_id, actor_id, principal_id, PrincipalStatus.ACTIVE, reason)


def offboard(
    ports: Ports, org_id: str, actor_id: str, principal_id: str, reason: str
) -> StandingChanged:
    """A person or an agent leaves for good: as :func:`suspend`, and every staffing ends
    and every sign-in and chat account is unlinked, in the same change. Their history
    stays; they cannot be brought back (add them again)."""
    return _move(ports, org_id, actor_id, principal_id, PrincipalStatus.OFFBOARDED, reason)


def _move(
    ports: Ports, org_id: str, actor_id: str, principal_id: str, to: PrincipalStatus, reason: str
) -> StandingChanged:
    org = founder(ports, org_id, actor_id)
    said = stated(reason)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        who = change.principal(principal_id)
        problem = rules.standing_problem(who, to, org.founder_id)
        if problem is not None:
            raise Conflict(problem)
        ended, unlinked = 0, []
        if to is PrincipalStatus.OFFBOARDED:
            for row in change.staffing(principal_id):
                if row.valid_until is None or row.valid_until > change.now:
                    change.end_staffing(row.id)
                    ended += 1
            for identity in change.identities_of(principal_id):
                change.unlink_identity(identity, said)
                unlinked.append(identity.kind)
        moved = change.set_status(principal_id, to, said)
        return StandingChanged(principal=moved, staffing_ended=ended, unlinked=unlinked)


def principals(ports: Ports, org_id: str, actor_id: str) -> list[Principal]:
    """The organization's people and agents; why someone was suspended or offboarded is
    the founder's alone to read (the others see that they were, and since when)."""
    org, _ = member(ports, org_id, actor_id)
    found = ports.directory.principals(org_id)
    if actor_id == org.founder_id:
        return found
    return [p.model_copy(update={"status_reason": None}) if p.status_reason else p for p in found]


def add_project(ports: Ports, org_id: str, actor_id: str, slug: str, name: str) -> Project:
    """Create a project; the founder is staffed on it as approver, in one step."""
    org = founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        project = change.add_project(Project(org_id=org_id, slug=slug, name=name))
        change.add_staffing(
            Staffing(
                id=new_id(),
                principal_id=org.founder_id,
                project=slug,
                role=StaffRole.APPROVER,
                valid_from=change.now,
            )
        )
        return project


def projects(ports: Ports, org_id: str, actor_id: str) -> list[Project]:
    member(ports, org_id, actor_id)
    return ports.directory.projects(org_id)


@dataclass(frozen=True)
class AssignStaff:
    """Staffing a principal on a project in a role, until ``valid_until`` (or for good)."""

    principal_id: str
    project: str
    role: StaffRole
    valid_until: datetime | None = None


def staff(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: AssignStaff,
) -> Staffing:
    """Staff a principal on a project from now on. Only humans may be approvers, and an
    agent is never staffed on both sides of a barrier."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        who = change.principal(command.principal_id)
        if command.project not in change.project_slugs():
            raise NotFound(f"no project {command.project!r}")
        if command.valid_until is not None and command.valid_until <= change.now:
            raise ValueError("valid_until must lie in the future")
        problem = rules.staffing_problem(
            who,
            command.project,
            command.role,
            change.staffing(command.principal_id),
            change.barriers(),
            change.now,
        )
        if problem is not None:
            # an agent as approver is a malformed request; a wall in the way, a conflict
            raise ValueError(problem) if command.role is StaffRole.APPROVER else Conflict(problem)
        return change.add_staffing(
            Staffing(
                id=new_id(),
                principal_id=command.principal_id,
                project=command.project,
                role=command.role,
                valid_from=change.now,
                valid_until=command.valid_until,
            )
        )


def unstaff(ports: Ports, org_id: str, actor_id: str, staffing_id: str) -> Staffing:
    """End a staffing now: its authority ends, its history stays."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        return change.end_staffing(staffing_id)


def staffing(ports: Ports, org_id: str, actor_id: str) -> list[Staffing]:
    member(ports, org_id, actor_id)
    return ports.directory.staffing(org_id)


def add_barrier(
    ports: Ports,
    org_id: str,
    actor_id: str,
    name: str,
    groups: list[list[str]],
    founder_side: str | None = None,
) -> Barrier:
    """Wall project groups off from each other; the new wall may split neither an agent's
    current staffing nor anything in memory (a record, a link, a procedure).

    The founder, staffed as approver on every project, chooses where to stand as the wall
    goes up: ``founder_side`` names a project of the side the founder stays on (the
    founder's staffing on the other sides ends, in the same change: no reading nor
    approving there), or None to stay approver on every side and read the memory of none
    (:func:`domain.organization.configuration.founder_standing` says which, on screen)."""
    org = founder(ports, org_id, actor_id)
    barrier = Barrier(id=new_id(), org_id=org_id, name=name, groups=tuple(tuple(g) for g in groups))
    leaves = rules.founder_leaves(barrier, founder_side)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        missing = {p for g in barrier.groups for p in g} - change.project_slugs()
        if missing:
            raise NotFound(f"no project {', '.join(sorted(missing))}")
        agents = {p.id: p.handle for p in change.principals() if p.kind is PrincipalKind.AGENT}
        problem = rules.barrier_problem(
            barrier, agents, change.staffing(), change.memory_reach(), change.now
        )
        if problem is not None:
            raise Conflict(problem)
        for row in change.staffing(org.founder_id):
            if row.project in leaves and row.active_at(change.now):
                change.end_staffing(row.id)
        return change.add_barrier(barrier)


def founder_standing(ports: Ports, org_id: str, actor_id: str) -> list[tuple[Barrier, str]]:
    """Each wall with what the founder reads and approves across it, in words."""
    org, _ = member(ports, org_id, actor_id)
    founder_p = ports.directory.principal(org_id, org.founder_id)
    now = ports.clock()
    projects = {
        s.project for s in ports.directory.staffing(org_id, org.founder_id) if s.active_at(now)
    }
    name = founder_p.display_name or founder_p.handle
    names = {p.slug: p.name for p in ports.directory.projects(org_id)}
    return [
        (b, rules.founder_standing(b, name, projects, names))
        for b in ports.directory.barriers(org_id)
    ]


class Workspace(BaseModel):
    """What the console's workspace page shows, as one reader may see it."""

    org: Organization
    principals: list[Principal]
    projects: list[Project]
    staffing: list[Staffing]
    barriers: list[Barrier]
    commitments: list[Commitment]
    standing: dict[str, str] = {}
    """Per barrier id: what the founder reads and approves across it, in words."""


def workspace(ports: Ports, org_id: str, actor_id: str) -> Workspace:
    """The organization's projects, staffing, barriers and readable commitments."""
    org, _ = member(ports, org_id, actor_id)
    return Workspace(
        org=org,
        principals=principals(ports, org_id, actor_id),
        projects=projects(ports, org_id, actor_id),
        staffing=staffing(ports, org_id, actor_id),
        barriers=ports.directory.barriers(org_id),
        commitments=commitments.commitments(ports, org_id, actor_id),
        standing={b.id: said for b, said in founder_standing(ports, org_id, actor_id)},
    )


def check_placement(change: OrgChange, projects: tuple[str, ...]) -> None:
    """Something stored in memory (a record, a procedure) may belong to ``projects``:
    they exist, and they lie on one side of every barrier."""
    unknown = set(projects) - change.project_slugs()
    if unknown:
        raise NotFound(f"no project {', '.join(sorted(unknown))}")
    problem = rules.record_problem(projects, change.barriers())
    if problem is not None:
        raise ValueError(problem)
