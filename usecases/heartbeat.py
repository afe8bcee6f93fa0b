"""The heartbeat on demand: start one now (the founder), read the recent ones (any
member: a run shows its checks, findings and Sentinel's proposals)."""

from __future__ import annotations

from domain.errors import Unavailable
from domain.time.heartbeat import HeartbeatRun
from usecases.access import founder, member
from usecases.context import Ports

MAX_LISTED = 100


async def run_now(ports: Ports, org_id: str, actor_id: str) -> list[HeartbeatRun]:
    """One heartbeat over ``org_id`` now, waited for; the founder's to start."""
    founder(ports, org_id, actor_id)
    if ports.heartbeat is None:
        raise Unavailable("this process cannot start a heartbeat (no Temporal client)")
    return await ports.heartbeat.run_now(org_id)


def recent(ports: Ports, org_id: str, actor_id: str, limit: int = 20) -> list[HeartbeatRun]:
    """The organization's recent heartbeats, newest first."""
    member(ports, org_id, actor_id)
    if ports.heartbeats is None:
        raise Unavailable("this process keeps no heartbeat record")
    return ports.heartbeats.runs(org_id, max(1, min(limit, MAX_LISTED)))
