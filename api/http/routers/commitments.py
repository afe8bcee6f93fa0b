"""Commitments from documents: extraction by an agent, rejection by a human; a delivery
or obligation marked kept."""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import Actor, PortsDep
from api.http.schemas import CommitmentBody, ExtractBody, NoteBody, RejectBody
from domain.commitments.extraction import ExtractionResult
from domain.organization.contracts import Commitment
from usecases import commitments as commitment_cases  # a route below is `commitments`

router = APIRouter(tags=["commitments"])


@router.post("/orgs/{org_id}/commitments/extract", status_code=201)
async def extract(
    org_id: str, body: ExtractBody, ports: PortsDep, actor: Actor
) -> ExtractionResult:
    """An agent reads a memory record through the memory gate and extracts its
    obligations (spend caps, deliveries, notice periods) as commitments in state
    ``extracted``, with provenance; they bind nothing until a human confirms them. A reply
    the strict parser refuses is recorded, and returned as ``rejection``."""
    return await commitment_cases.extract(
        ports, org_id, actor, body.ref, body.extractor_id, tuple(body.projects)
    )


@router.post("/commitments/{commitment_id}/reject")
def reject(commitment_id: str, body: RejectBody, ports: PortsDep, actor: Actor) -> Commitment:
    """Reject an extracted commitment (the founder, or an approver on every project it
    binds): it never binds. A confirmed or already rejected one is a 409."""
    return commitment_cases.reject(ports, commitment_id, actor, body.reason)


@router.post("/commitments/{commitment_id}/fulfilled")
def fulfilled(commitment_id: str, body: NoteBody, ports: PortsDep, actor: Actor) -> Commitment:
    """Mark a confirmed delivery or obligation kept, with a note of how (the founder, or an
    approver on every project it binds): it binds no more, and late deliveries under it
    are no longer held. Once: a second is a 409; a spend cap or notice period is a 422."""
    return commitment_cases.fulfil(ports, commitment_id, actor, body.note)


@router.post("/orgs/{org_id}/commitments", status_code=201)
def add_commitment(org_id: str, body: CommitmentBody, ports: PortsDep, actor: Actor) -> Commitment:
    return commitment_cases.add_commitment(
        ports,
        org_id,
        actor,
        commitment_cases.AddCommitment(
            body.title,
            body.constraint,
            body.source,
            excerpt=body.excerpt,
            projects=tuple(body.projects),
            valid_from=body.valid_from,
            valid_until=body.valid_until,
        ),
    )


@router.get("/orgs/{org_id}/commitments")
def commitments(org_id: str, ports: PortsDep, actor: Actor) -> list[Commitment]:
    return commitment_cases.commitments(ports, org_id, actor)


@router.post("/commitments/{commitment_id}/confirm")
def confirm(commitment_id: str, ports: PortsDep, actor: Actor) -> Commitment:
    return commitment_cases.confirm(ports, commitment_id, actor)
