"""Organizational memory: similarity queries, one record, the read log. Every read is
the acting human's, through the release rule, and logged."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import Actor, PortsDep
from api.schemas import MemoryQueryBody
from domain.memory.release import NodeView
from domain.ports import MemoryRead, QueryResult
from usecases import memory

router = APIRouter(tags=["memory"])


@router.post("/v1/orgs/{org_id}/memory/query")
def query(org_id: str, body: MemoryQueryBody, ports: PortsDep, actor: Actor) -> QueryResult:
    """The records most similar to ``text`` that you may read, best first."""
    return memory.query(ports, org_id, actor, body.text, body.k)


@router.get("/v1/orgs/{org_id}/memory/reads")
def reads(org_id: str, ports: PortsDep, actor: Actor) -> list[MemoryRead]:
    """Every memory read, oldest first (the founder's)."""
    return memory.reads(ports, org_id, actor)


@router.get("/v1/orgs/{org_id}/memory/records/{ref}")
def record(org_id: str, ref: str, ports: PortsDep, actor: Actor) -> NodeView:
    """One record as you may see it (404 when it is not yours to see)."""
    return memory.get(ports, org_id, actor, ref)
