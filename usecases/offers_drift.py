"""Drift of confirmed playbooks: a playbook whose later episodes consistently miss their
outcome is found (:func:`domain.offers.playbooks.drift`), and a finding is resolved once,
with a reason (a second resolution is a Conflict). Recorded in the audit chain."""

from __future__ import annotations

from pydantic import BaseModel

from domain.errors import NotFound
from domain.offers.playbooks import (
    DriftFinding,
    EpisodeRecord,
    OfferState,
    drift,
    finding_id,
)
from domain.organization.contracts import MAX_REASON
from domain.organization.visibility import may_read
from usecases.access import member, readable
from usecases.context import Ports
from usecases.offers import check_offer_reviewer, offer_draft, offer_store


class DriftReviewed(BaseModel):
    """What a drift review flagged."""

    flagged: list[DriftFinding]
    findings: list[DriftFinding]
    """The unresolved drift findings the reviewer may read."""


def review_drift(ports: Ports, org_id: str, actor_id: str) -> DriftReviewed:
    """Flag every confirmed playbook whose later episodes consistently miss their outcome
    (:func:`domain.offers.playbooks.drift`): a member's review, after a review of episodes
    has placed the new ones. A window is flagged once; an unresolved finding of a
    playbook is not flagged again."""
    org, actor = member(ports, org_id, actor_id)
    flagged: list[DriftFinding] = []
    with offer_store(ports).change(org_id, actor_id, ports.clock) as change:
        members: dict[str, list[EpisodeRecord]] = {}
        for e in change.episodes():
            if e.offer_id is not None:
                members.setdefault(e.offer_id, []).append(e)
        findings = change.findings()
        for offer in change.offers():
            if offer.state is not OfferState.CONFIRMED or offer.playbook is None:
                continue
            mine = [f for f in findings if f.offer_id == offer.id]
            if any(f.resolved_at is None for f in mine):
                continue
            found = drift(offer, members.get(offer.id, []), mine)
            if found is None:
                continue
            window, missed = found
            finding = change.add_finding(
                DriftFinding(
                    id=finding_id(offer.id, window),
                    org_id=org_id,
                    offer_id=offer.id,
                    playbook=offer.playbook,
                    projects=offer.projects,
                    episodes=window,
                    missed=missed,
                    flagged_by=actor_id,
                    flagged_at=change.now,
                )
            )
            flagged.append(finding)
            change.note(
                offer_draft(
                    f"drift:{finding.id}",
                    actor_id,
                    "flagged",
                    "drift_flagged",
                    finding=finding.id,
                    offer=offer.id,
                    playbook=offer.playbook,
                    episodes=list(window),
                    missed=missed,
                    projects=list(offer.projects),
                )
            )
        findings = change.findings()
    projects = readable(ports, org, actor)
    return DriftReviewed(
        flagged=[f for f in flagged if may_read(projects, f.projects)],
        findings=[f for f in findings if f.resolved_at is None and may_read(projects, f.projects)],
    )


def findings(ports: Ports, org_id: str, actor_id: str) -> list[DriftFinding]:
    """The organization's drift findings that ``actor_id`` may read."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    return [f for f in offer_store(ports).findings(org_id) if may_read(projects, f.projects)]


def resolve_finding(ports: Ports, finding_id: str, actor_id: str, reason: str) -> DriftFinding:
    """Resolve a drift finding with ``reason`` (the founder, or an approver on every
    project of its playbook). Once: a second resolution is a Conflict and never replaces
    the first reason, also when two resolutions race."""
    reason = reason.strip()
    if not reason or len(reason) > MAX_REASON:
        raise ValueError(f"a resolution needs a reason of at most {MAX_REASON} characters")
    found = offer_store(ports).finding(finding_id)
    actor = ports.directory.find_principal(actor_id)
    if found is None or actor is None or actor.org_id != found.org_id:
        raise NotFound(f"no finding {finding_id}")
    org, actor = member(ports, found.org_id, actor_id)
    if not may_read(readable(ports, org, actor), found.projects):
        raise NotFound(f"no finding {finding_id}")
    with offer_store(ports).change(org.id, actor_id, ports.clock) as change:
        check_offer_reviewer(change, org, actor, found.projects, "resolve a finding")
        resolved = change.resolve_finding(finding_id, reason)
        change.note(
            offer_draft(
                f"drift:{finding_id}:resolved",
                actor_id,
                "resolved",
                "drift_resolved",
                finding=finding_id,
                offer=resolved.offer_id,
                reason=reason,
            )
        )
    return resolved
