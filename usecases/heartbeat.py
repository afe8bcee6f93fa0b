"""The heartbeat on demand: start one now (the founder), read the recent ones (any
member: a run shows its checks, findings and Sentinel's proposals, on the projects the
member may read), resolve a finding
Sentinel filed, and release a standing hold it placed."""

from __future__ import annotations

from datetime import datetime

from domain.audit.chain import AuditDraft
from domain.errors import NotFound, Unavailable
from domain.heartbeat.checks import FiledFinding, HeartbeatRun, as_read_by
from domain.heartbeat.ports import HeartbeatStore
from domain.offers.playbooks import DriftFinding
from domain.organization.contracts import MAX_REASON, StandingHold
from domain.organization.visibility import may_read
from usecases import offers_drift
from usecases.access import check_reviewer, founder, member, readable
from usecases.context import Ports

STAGE = "heartbeat"
"""The stage of a resolution's chain entry."""

MAX_LISTED = 100


async def run_now(ports: Ports, org_id: str, actor_id: str) -> list[HeartbeatRun]:
    """One heartbeat over ``org_id`` now, waited for; the founder's to start."""
    founder(ports, org_id, actor_id)
    if ports.heartbeat is None:
        raise Unavailable("this process cannot start a heartbeat (no Temporal client)")
    return await ports.heartbeat.run_now(org_id)


def recent(ports: Ports, org_id: str, actor_id: str, limit: int = 20) -> list[HeartbeatRun]:
    """The organization's recent heartbeats, newest first, as ``actor_id`` may read them:
    only the findings (and Sentinel's proposals for them) on projects they may read."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    runs = _store(ports).runs(org_id, max(1, min(limit, MAX_LISTED)))
    return [as_read_by(run, projects) for run in runs]


def resolve_finding(ports: Ports, finding_id: str, actor_id: str, reason: str) -> FiledFinding:
    """Resolve a finding filed through the broker (Sentinel's) with ``reason``: the
    founder, or an approver now on every project it concerns. Once: a second resolution
    is a :class:`Conflict` and never replaces the first reason, also when two race. The
    resolution is on the chain, in the same transaction."""
    store = _store(ports)
    found = store.finding(finding_id)
    reason, now = _reviewed(ports, found, actor_id, reason, f"finding {finding_id}", "resolve")
    assert found is not None
    audit = _draft(
        f"finding:{finding_id}:resolved", actor_id, "resolved", "finding_resolved",
        finding=finding_id, kind=found.kind, reason=reason,
    )  # fmt: skip
    return store.resolve(finding_id, actor_id, reason, now, audit)


def _reviewed(
    ports: Ports,
    found: FiledFinding | StandingHold | None,
    actor_id: str,
    reason: str,
    what: str,
    verb: str,
) -> tuple[str, datetime]:
    """The checks every human decision on a finding or a standing hold passes: a reason;
    a record of the actor's organization that it may read (else as unknown); the
    founder, or an approver now on every project of it. The reason and the moment."""
    reason = reason.strip()
    if not reason or len(reason) > MAX_REASON:
        raise ValueError(f"to {verb} it, give a reason of at most {MAX_REASON} characters")
    actor = ports.directory.find_principal(actor_id)
    if found is None or actor is None or actor.org_id != found.org_id:
        raise NotFound(f"no {what}")
    org, actor = member(ports, found.org_id, actor_id)
    if not may_read(readable(ports, org, actor), found.projects):
        raise NotFound(f"no {what}")
    now = ports.clock()
    check_reviewer(ports, org, actor, found.projects, now, f"{verb} a {what.split()[0]}")
    return reason, now


def _draft(key: str, actor: str, decision: str, rule: str, **payload: object) -> AuditDraft:
    return AuditDraft(
        event_key=key, actor=actor, decision=decision, stage=STAGE, rule=rule, payload=payload
    )


def standing_holds(ports: Ports, org_id: str, actor_id: str) -> list[StandingHold]:
    """The organization's standing holds on projects ``actor_id`` may read."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    return [h for h in _store(ports).standing_holds(org_id) if may_read(projects, h.projects)]


def release_hold(ports: Ports, hold_id: str, actor_id: str, reason: str) -> StandingHold:
    """Release a standing hold with ``reason``: the founder, or an approver now on every
    project it holds (an organization-wide one: the founder). Once: a second release is a
    :class:`Conflict` and keeps the first reason, also when two race. On the chain, under
    the organization's lock, so a decision sees the hold open or released."""
    store = _store(ports)
    found = store.standing_hold(hold_id)
    reason, now = _reviewed(ports, found, actor_id, reason, f"standing hold {hold_id}", "release")
    assert found is not None
    audit = _draft(
        f"standing-hold:{hold_id}:released", actor_id, "released", "standing_hold_released",
        hold=hold_id, subject=found.subject, reason=reason,
    )  # fmt: skip
    return store.release(hold_id, actor_id, reason, now, audit)


def resolve_any_finding(
    ports: Ports, finding_id: str, actor_id: str, reason: str
) -> DriftFinding | FiledFinding:
    """Resolve a finding whichever kind it is: a playbook's drift, or one filed through
    the broker. The same rules and the same answer to a second resolution."""
    if ports.offers is not None and ports.offers.finding(finding_id) is not None:
        return offers_drift.resolve_finding(ports, finding_id, actor_id, reason)
    return resolve_finding(ports, finding_id, actor_id, reason)


def _store(ports: Ports) -> HeartbeatStore:
    if ports.heartbeats is None:
        raise Unavailable("this process keeps no heartbeat record")
    return ports.heartbeats
