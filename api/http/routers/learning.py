"""The learning pass: run one now (the founder), read the experiences it kept
(candidates until the founder promotes or dismisses them; never policy)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.http.deps import Actor, PortsDep
from api.http.schemas import ReasonBody
from domain.learning.records import Experience, LearningPass
from usecases import learning
from usecases.learning import MAX_LISTED

router = APIRouter(tags=["learning"])


@router.post("/orgs/{org_id}/learning")
async def run_now(org_id: str, ports: PortsDep, actor: Actor) -> LearningPass:
    """Run a learning pass over the organization's last 7 days now and wait for it: the
    insights accepted as candidate experiences, and each refused one with its rule."""
    return await learning.run_now(ports, org_id, actor)


@router.get("/orgs/{org_id}/experiences")
def experiences(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 50,
) -> list[Experience]:
    """The organization's experiences (candidate, promoted or dismissed), newest first."""
    return learning.experiences(ports, org_id, actor, limit)


@router.post("/experiences/{experience_id}/promote")
def promote(experience_id: str, body: ReasonBody, ports: PortsDep, actor: Actor) -> Experience:
    """Promote a candidate lesson (the founder): vouched for, still never policy. Once:
    a second review is a 409."""
    return learning.review(ports, experience_id, actor, promote=True, reason=body.reason)


@router.post("/experiences/{experience_id}/dismiss")
def dismiss(experience_id: str, body: ReasonBody, ports: PortsDep, actor: Actor) -> Experience:
    """Dismiss a candidate lesson (the founder): later passes no longer see it. Once."""
    return learning.review(ports, experience_id, actor, promote=False, reason=body.reason)
