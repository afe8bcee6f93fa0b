"""Who may act and who may read: checked inside every use case, so that the HTTP API,
the command line and the console cannot differ."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from domain.errors import Forbidden, NotFound
from domain.governance.broker import current_projects
from domain.organization.contracts import Organization, Principal
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from domain.organization.visibility import may_read, readable_projects
from domain.runs.run import RunRecord
from usecases.context import Ports


def member(ports: Ports, org_id: str, actor_id: str) -> tuple[Organization, Principal]:
    """The organization and the acting principal, an active human of it.

    Someone outside the organization learns nothing, not even that it exists: an unknown
    organization and another organization's are both :class:`NotFound`.
    """
    found = reader(ports, org_id, actor_id)
    return found.org, found.actor


@dataclass(frozen=True)
class Reader:
    """An active human of an organization, and what they may read."""

    org: Organization
    actor: Principal
    projects: frozenset[str] | None
    """The projects they may read now; None: all (the founder)."""


def reader(ports: Ports, org_id: str, actor_id: str) -> Reader:
    """:func:`member` and :func:`readable` as of one read of the organization."""
    found = ports.directory.standing(org_id, actor_id)
    if found is None:
        raise NotFound(f"no organization {org_id}")
    org, actor, staffing = found
    if actor.kind is not PrincipalKind.HUMAN or actor.status is not PrincipalStatus.ACTIVE:
        raise Forbidden("the acting principal must be an active human of this organization")
    return Reader(org, actor, readable_projects(actor, org, staffing, ports.clock()))


def agent_named(ports: Ports, org_id: str, name: str) -> Principal | None:
    """The organization's agent whose id or handle is ``name``; None when there is none
    (a human's name is not an agent's)."""
    found = next((p for p in ports.directory.principals(org_id) if name in (p.id, p.handle)), None)
    return found if found is not None and found.kind is PrincipalKind.AGENT else None


def check_scripted(ports: Ports, *, given: bool) -> None:
    """Refuse replies given in advance unless no real model answers: a person may script
    the scripted or replay provider, never stand in for Gemini."""
    if given and not ports.scripted_replies:
        raise Forbidden(
            "scripted replies are honoured only when no real model answers (the scripted or "
            "replay provider)"
        )


def founder(ports: Ports, org_id: str, actor_id: str) -> Organization:
    """The organization, if ``actor_id`` is its founder (who configures it)."""
    org, _ = member(ports, org_id, actor_id)
    if actor_id != org.founder_id:
        raise Forbidden("only the organization's founder may change its configuration")
    return org


def readable(ports: Ports, org: Organization, actor: Principal) -> frozenset[str] | None:
    """The projects ``actor`` may read, or None for all (the founder)."""
    staffing = ports.directory.staffing(org.id, actor.id)
    return readable_projects(actor, org, staffing, ports.clock())


def run_for(ports: Ports, run_id: str, actor_id: str) -> RunRecord:
    """The run, if ``actor_id`` may read it; to anyone else it does not exist."""
    return run_and_reader(ports, run_id, actor_id)[0]


def run_and_reader(ports: Ports, run_id: str, actor_id: str) -> tuple[RunRecord, Reader]:
    """:func:`run_for`, with who reads it and what they may read."""
    run = ports.runs.get(run_id)
    try:
        if run is None:
            raise NotFound(f"no run {run_id}")
        found = reader(ports, run.org_id, actor_id)
    except NotFound:
        raise NotFound(f"no run {run_id}") from None
    # Starting a run grants nothing: what it produced is shown only to those who may see
    # everything that went into it (its agent's projects and its intents' reach).
    if not may_read(found.projects, ports.runs.reach(run_id)):
        raise NotFound(f"no run {run_id}")
    return run, found


def check_reviewer(
    ports: Ports,
    org: Organization,
    actor: Principal,
    projects: tuple[str, ...],
    now: datetime,
    what: str,
) -> None:
    """Refuse (:class:`Forbidden`) an ``actor`` who is neither the founder nor an approver,
    now, on every one of ``projects`` (none: the founder alone)."""
    if actor.id == org.founder_id:
        return
    staffing = tuple(ports.directory.staffing(org.id, actor.id))
    if projects and set(projects) <= current_projects(staffing, now, StaffRole.APPROVER):
        return
    raise Forbidden(f"only the founder or an approver on every project of it may {what}")


MAX_REASON = 500
"""The longest reason a person gives for a decision kept on the record."""


def stated(reason: str) -> str:
    """A person's reason, on one line: refused (ValueError) when empty or too long, for it
    is what everyone reads later on the record."""
    said = " ".join(reason.split())
    if not said:
        raise ValueError("say why: the reason is kept on the record")
    if len(said) > MAX_REASON:
        raise ValueError(f"the reason is at most {MAX_REASON} characters")
    return said
