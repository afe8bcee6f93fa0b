"""The audit trail, its proofs and public keys, and the broker's state."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from api.http.deps import Actor, PortsDep
from domain.audit.bundle import ConsistencyProof, InclusionProof, export_bytes
from domain.audit.tree import LOG_NAME
from usecases import audit
from usecases.audit import AuditView

ENTRIES = 2**63 - 1
"""The most entries a chain can count (a 64-bit sequence number): beyond, a 422."""

router = APIRouter(tags=["audit"])


class BrokerState(BaseModel):
    """Whether the organization's broker is poisoned, and why."""

    poisoned: bool
    reason: str | None = None


class LogKeys(BaseModel):
    """The public keys that sign checkpoints (C2SP vkeys), oldest first: the last signs
    now. A verifier needs these and nothing else."""

    name: str
    keys: list[str]


@router.get("/audit/keys")
def keys(ports: PortsDep) -> LogKeys:
    return LogKeys(name=LOG_NAME, keys=ports.audit.log_keys())


@router.get("/orgs/{org_id}/audit")
async def trail(org_id: str, ports: PortsDep, actor: Actor, verify: bool = False) -> AuditView:
    anchored = await audit.anchored(ports, org_id, actor) if verify else None
    return await run_in_threadpool(
        lambda: audit.audit(ports, org_id, actor, verify=verify, anchored=anchored)
    )


@router.get("/orgs/{org_id}/audit/proof")
def proof(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    seq: Annotated[int | None, Query(ge=1, le=ENTRIES)] = None,
    intent: str | None = None,
) -> list[InclusionProof]:
    """The proof that an entry (``seq``) or every entry about an ``intent`` is in the
    newest signed checkpoint."""
    return audit.prove(ports, org_id, actor, seq=seq, intent_id=intent)


@router.get("/orgs/{org_id}/audit/consistency")
def consistency(
    org_id: str,
    ports: PortsDep,
    actor: Actor,
    old: Annotated[int, Query(ge=1, le=ENTRIES)],
    new: Annotated[int, Query(ge=1, le=ENTRIES)],
) -> ConsistencyProof:
    """The proof that the checkpoint of ``new`` entries extends the one of ``old``."""
    return audit.consistency(ports, org_id, actor, old, new)


@router.get("/orgs/{org_id}/audit/export", response_class=Response)
async def export(org_id: str, ports: PortsDep, actor: Actor) -> Response:
    """The chain, its checkpoints, the anchored checkpoint and the public keys, as the
    export file `verletica audit verify --bundle` checks (JSON Lines)."""
    anchored = await audit.anchored(ports, org_id, actor)
    bundle = await run_in_threadpool(audit.export, ports, org_id, actor, anchored)
    return Response(
        export_bytes(bundle),
        media_type="application/jsonl",
        headers={"Content-Disposition": f'attachment; filename="audit-{org_id}.jsonl"'},
    )


@router.get("/orgs/{org_id}/broker")
def broker(org_id: str, ports: PortsDep, actor: Actor) -> BrokerState:
    reason = audit.broker_status(ports, org_id, actor)
    return BrokerState(poisoned=reason is not None, reason=reason)
