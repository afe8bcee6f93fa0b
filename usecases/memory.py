"""Memory as its readers see it: the read log."""

from __future__ import annotations

from domain.ports import MemoryRead
from usecases.access import founder
from usecases.context import Ports


def reads(ports: Ports, org_id: str, actor_id: str) -> list[MemoryRead]:
    """Every read of the organization's memory, oldest first: who asked, on whose behalf,
    what was released and how much was withheld. The log names records of every project,
    so it is the founder's to read (until roles arrive with the ingress)."""
    founder(ports, org_id, actor_id)
    return ports.memory.reads(org_id)
