"""Commitments from documents: extraction by an agent, rejection by a human."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import Actor, PortsDep
from api.schemas import ExtractBody, RejectBody
from domain.extraction import ExtractionResult
from domain.model import Commitment
from usecases import commitments

router = APIRouter(tags=["commitments"])


@router.post("/v1/orgs/{org_id}/commitments/extract", status_code=201)
async def extract(
    org_id: str, body: ExtractBody, ports: PortsDep, actor: Actor
) -> ExtractionResult:
    """An agent reads a memory record through the memory gate and extracts its
    obligations (spend caps, deliveries, notice periods) as commitments in state
    ``extracted``, with provenance; they bind nothing until a human confirms them. A reply
    the strict parser refuses is recorded, and returned as ``rejection``."""
    return await commitments.extract(
        ports, org_id, actor, body.ref, body.extractor_id, tuple(body.projects)
    )


@router.post("/v1/commitments/{commitment_id}/reject")
def reject(commitment_id: str, body: RejectBody, ports: PortsDep, actor: Actor) -> Commitment:
    """Reject an extracted commitment (the founder, or an approver on every project it
    binds): it never binds. A confirmed or already rejected one is a 409."""
    return commitments.reject(ports, commitment_id, actor, body.reason)
