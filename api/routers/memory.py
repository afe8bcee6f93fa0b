"""Organizational memory: the read log."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import Actor, PortsDep
from domain.ports import MemoryRead
from usecases import memory

router = APIRouter(tags=["memory"])


@router.get("/v1/orgs/{org_id}/memory/reads")
def reads(org_id: str, ports: PortsDep, actor: Actor) -> list[MemoryRead]:
    """Every memory read, oldest first (the founder's)."""
    return memory.reads(ports, org_id, actor)
