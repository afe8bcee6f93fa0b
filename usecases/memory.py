"""Memory as its human readers see it: similarity queries, one node, the read log."""

from __future__ import annotations

from domain.errors import NotFound
from domain.memory.release import NodeView, Release
from domain.ports import MemoryRead, QueryResult
from usecases.access import founder, member
from usecases.context import Ports

MAX_HITS = 50


def query(ports: Ports, org_id: str, actor_id: str, text: str, k: int = 10) -> QueryResult:
    """The nodes most similar to ``text`` that the acting human may read (logged)."""
    member(ports, org_id, actor_id)
    if not text.strip():
        raise ValueError("a query needs text")
    if not 1 <= k <= MAX_HITS:
        raise ValueError(f"k must lie between 1 and {MAX_HITS}")
    return ports.memory.query(
        asker_principal_id=actor_id, org_id=org_id, text=text, now=ports.clock(), k=k
    )


def get(ports: Ports, org_id: str, actor_id: str, ref: str) -> NodeView:
    """One node as the acting human may see it; withheld and unknown look the same."""
    member(ports, org_id, actor_id)
    view = ports.memory.get(asker_principal_id=actor_id, org_id=org_id, ref=ref, now=ports.clock())
    if view.release is Release.WITHHELD:
        raise NotFound(f"no memory record {ref}")
    return view


def reads(ports: Ports, org_id: str, actor_id: str) -> list[MemoryRead]:
    """Every read of the organization's memory, oldest first: who asked, on whose behalf,
    what was released and how much was withheld. The log names records of every project,
    so it is the founder's to read (until roles arrive with the ingress)."""
    founder(ports, org_id, actor_id)
    return ports.memory.reads(org_id)
