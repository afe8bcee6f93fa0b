"""Organizational memory: similarity queries, one record, the read log. Every read is
the acting human's, through the release rule, and logged."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from api.http.deps import Actor, PortsDep
from api.http.schemas import CompactBody, MemoryLinkBody, MemoryQueryBody, ProcedureBody
from domain.memory.ports import Explanation, MemoryRead, Neighbours, ProcedureView, QueryResult
from domain.memory.release import NodeView
from usecases import memory

router = APIRouter(tags=["memory"])


@router.post("/orgs/{org_id}/memory/query")
def query(org_id: str, body: MemoryQueryBody, ports: PortsDep, actor: Actor) -> QueryResult:
    """The records most similar to ``text`` that you may read, best first."""
    return memory.query(ports, org_id, actor, body.text, body.k)


class LinkAnswer(BaseModel):
    """A link stored."""

    link_id: str


@router.post("/orgs/{org_id}/memory/links", status_code=201)
def link(org_id: str, body: MemoryLinkBody, ports: PortsDep, actor: Actor) -> LinkAnswer:
    """Link two records (the founder's); never across a barrier."""
    return LinkAnswer(
        link_id=memory.link(
            ports, org_id, actor, memory.AddLink(body.src, body.dst, body.kind, span=body.span)
        )
    )


@router.post("/orgs/{org_id}/memory/compact", status_code=201)
def compact(org_id: str, body: CompactBody, ports: PortsDep, actor: Actor) -> memory.Compacted:
    """Summarise records into one new record (the founder's): read through the memory
    gate, ingested like any record, linked back to each record it replaces."""
    return memory.compact(
        ports,
        org_id,
        actor,
        memory.Compact(body.agent_id, body.refs, body.ref, max_chars=body.max_chars),
    )


@router.get("/orgs/{org_id}/memory/records/{ref}/neighbours")
def neighbours(org_id: str, ref: str, ports: PortsDep, actor: Actor) -> Neighbours:
    """The records linked to ``ref`` that you may see."""
    return memory.neighbours(ports, org_id, actor, ref)


@router.get("/orgs/{org_id}/memory/records/{ref}/explain")
def explain(org_id: str, ref: str, ports: PortsDep, actor: Actor) -> Explanation:
    """Where ``ref`` came from, as you may see it (redacted where it passes through what
    you may not see)."""
    return memory.explain(ports, org_id, actor, ref)


class ProcedurePublished(BaseModel):
    """A procedure version published."""

    version: int


@router.post("/orgs/{org_id}/memory/procedures", status_code=201)
def publish_procedure(
    org_id: str, body: ProcedureBody, ports: PortsDep, actor: Actor
) -> ProcedurePublished:
    """Publish the next version of a procedure (the founder's)."""
    version = memory.publish_procedure(
        ports, org_id, actor, body.name, tuple(body.projects), tuple(body.steps)
    )
    return ProcedurePublished(version=version)


@router.get("/orgs/{org_id}/memory/procedures/{name}")
def procedure(
    org_id: str, name: str, ports: PortsDep, actor: Actor, version: int | None = None
) -> ProcedureView:
    """A procedure (its newest version, or ``?version=``) as you may see it."""
    return memory.procedure(ports, org_id, actor, name, version)


@router.get("/orgs/{org_id}/memory/reads")
def reads(org_id: str, ports: PortsDep, actor: Actor) -> list[MemoryRead]:
    """Every memory read, oldest first (the founder's)."""
    return memory.reads(ports, org_id, actor)


@router.get("/orgs/{org_id}/memory/records/{ref}")
def record(org_id: str, ref: str, ports: PortsDep, actor: Actor) -> NodeView:
    """One record as you may see it (404 when it is not yours to see)."""
    return memory.get(ports, org_id, actor, ref)
