"""The counterfactual of a held or rejected intent: what enforcement stopped, side by
side with what would have happened without it."""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import Actor, PortsDep
from domain.counterfactual.replay import Counterfactual
from usecases import counterfactual

router = APIRouter(tags=["counterfactual"])


@router.get("/intents/{intent_id}/counterfactual")
def show(intent_id: str, ports: PortsDep, actor: Actor) -> Counterfactual:
    """The intent replayed over the record with enforcement off, for the asker: 404 to
    someone who may not read the projects it was proposed in, 409 for an intent that was
    let through. Nothing is written and nothing is appended to the chain."""
    return counterfactual.counterfactual(ports, intent_id, actor)
