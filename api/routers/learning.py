"""The learning pass: run one now (the founder), and read the experiences it kept
(candidates until a human promotes them; never policy)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.deps import Actor, PortsDep
from domain.time.learning import Experience, LearningPass
from usecases import learning
from usecases.learning import MAX_LISTED

router = APIRouter(tags=["learning"])


@router.post("/v1/orgs/{org_id}/learning")
async def run_now(org_id: str, ports: PortsDep, actor: Actor) -> LearningPass:
    """Run a learning pass over the organization's last 7 days now and wait for it: the
    insights accepted as candidate experiences, and each refused one with its rule."""
    return await learning.run_now(ports, org_id, actor)


@router.get("/v1/orgs/{org_id}/experiences")
def experiences(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 50,
) -> list[Experience]:
    """The organization's experiences (candidate or promoted), newest first."""
    return learning.experiences(ports, org_id, actor, limit)
