"""The audit trail and the broker's state."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from api.http.deps import Actor, PortsDep
from usecases import audit
from usecases.audit import AuditView

router = APIRouter(tags=["audit"])


class BrokerState(BaseModel):
    """Whether the organization's broker is poisoned, and why."""

    poisoned: bool
    reason: str | None = None


@router.get("/orgs/{org_id}/audit")
def trail(org_id: str, ports: PortsDep, actor: Actor, verify: bool = False) -> AuditView:
    return audit.audit(ports, org_id, actor, verify=verify)


@router.get("/orgs/{org_id}/broker")
def broker(org_id: str, ports: PortsDep, actor: Actor) -> BrokerState:
    reason = audit.broker_status(ports, org_id, actor)
    return BrokerState(poisoned=reason is not None, reason=reason)
