"""Process offers: episodes in, offers reviewed and confirmed into playbooks, drift
flagged and resolved once."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.http.deps import Actor, PortsDep
from api.http.schemas import Body, ReasonBody
from domain.heartbeat.checks import FiledFinding
from domain.offers.merge import Step
from domain.offers.playbooks import MAX_STEPS, MAX_TEXT, DriftFinding, EpisodeRecord, OfferRecord
from usecases import heartbeat, offers, offers_drift

router = APIRouter(tags=["offers"])


class StepBody(Body):
    tool: str = Field(min_length=1, max_length=offers.MAX_TOOL)
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class EpisodeBody(Body):
    steps: list[StepBody] = Field(min_length=1, max_length=MAX_STEPS)
    outcome_met: bool | None = None
    """Whether the episode met its expected outcome (omitted: not known)."""
    projects: list[str] = Field(default_factory=list, max_length=50)


class ConfirmOfferBody(Body):
    name: str = Field(min_length=1, max_length=offers.MAX_NAME)


class EpisodeView(BaseModel):
    """An episode as recorded (its vectors are not shown)."""

    id: str
    org_id: str
    steps: list[Step]
    outcome_met: bool | None
    projects: list[str]
    recorded_by: str
    recorded_at: datetime

    @classmethod
    def of(cls, e: EpisodeRecord) -> EpisodeView:
        return cls(
            id=e.id,
            org_id=e.org_id,
            steps=list(e.steps),
            outcome_met=e.outcome_met,
            projects=list(e.projects),
            recorded_by=e.recorded_by,
            recorded_at=e.recorded_at,
        )


@router.post("/orgs/{org_id}/episodes", status_code=201)
def record_episode(org_id: str, body: EpisodeBody, ports: PortsDep, actor: Actor) -> EpisodeView:
    """Record an episode of work done outside Verletica: its steps (a tool and the words
    for it) and whether it met its outcome. Screened and embedded; a review places it."""
    steps = [Step(tool=s.tool, text=s.text) for s in body.steps]
    return EpisodeView.of(
        offers.record_episode(ports, org_id, actor, steps, body.outcome_met, tuple(body.projects))
    )


@router.post("/orgs/{org_id}/offers/review")
def review_offers(org_id: str, ports: PortsDep, actor: Actor) -> offers.Reviewed:
    """Merge the new episodes into process offers (one per process); repeated, it adds
    nothing."""
    return offers.review_episodes(ports, org_id, actor)


@router.get("/orgs/{org_id}/offers")
def list_offers(org_id: str, ports: PortsDep, actor: Actor) -> list[OfferRecord]:
    """The organization's process offers you may read, with their episodes as evidence."""
    return offers.offers(ports, org_id, actor)


@router.post("/offers/{offer_id}/confirm")
def confirm_offer(
    offer_id: str, body: ConfirmOfferBody, ports: PortsDep, actor: Actor
) -> OfferRecord:
    """Confirm an offer into a named playbook in procedural memory (the founder, or an
    approver on every project of it). A confirmed offer is a 409."""
    return offers.confirm_offer(ports, offer_id, actor, body.name)


@router.post("/offers/{offer_id}/decline")
def decline_offer(offer_id: str, body: ReasonBody, ports: PortsDep, actor: Actor) -> OfferRecord:
    """Decline an offer, with the reason (who may confirm it may decline it): it is not
    offered again. One not open is a 409."""
    return offers.decline_offer(ports, offer_id, actor, body.reason)


@router.post("/orgs/{org_id}/drift/review")
def review_drift(org_id: str, ports: PortsDep, actor: Actor) -> offers_drift.DriftReviewed:
    """Flag confirmed playbooks whose later episodes consistently miss their outcome."""
    return offers_drift.review_drift(ports, org_id, actor)


@router.get("/orgs/{org_id}/findings/drift")
def list_findings(org_id: str, ports: PortsDep, actor: Actor) -> list[DriftFinding]:
    """The organization's drift findings you may read."""
    return offers_drift.findings(ports, org_id, actor)


@router.post("/findings/{finding_id}/resolve")
def resolve_finding(
    finding_id: str, body: ReasonBody, ports: PortsDep, actor: Actor
) -> DriftFinding | FiledFinding:
    """Resolve a finding with a reason, once: a drift finding, or one Sentinel filed
    through the broker. A second resolution is a 409 and never replaces the first."""
    return heartbeat.resolve_any_finding(ports, finding_id, actor, body.reason)
