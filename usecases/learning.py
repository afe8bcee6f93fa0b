"""The learning pass on demand: start one now (the founder), read the organization's
experiences (any member). An experience is a candidate lesson, never policy."""

from __future__ import annotations

from domain.errors import Unavailable
from domain.time.learning import MAX_PRIOR, Experience, LearningPass
from usecases.access import founder, member
from usecases.context import Ports

MAX_LISTED = 200


async def run_now(
    ports: Ports, org_id: str, actor_id: str, scripted_reply: str | None = None
) -> LearningPass:
    """One learning pass over ``org_id`` now, waited for; the founder's to start. A
    scripted reply is honoured only under the scripted provider (tests, rehearsals)."""
    founder(ports, org_id, actor_id)
    if ports.learning is None:
        raise Unavailable("this process cannot start a learning pass (no Temporal client)")
    if scripted_reply is not None and not ports.scripted_replies:
        raise ValueError("a scripted reply needs the scripted model provider")
    (learned,) = await ports.learning.run_now(org_id, actor_id, scripted_reply)
    return learned


def experiences(
    ports: Ports, org_id: str, actor_id: str, limit: int = MAX_PRIOR
) -> list[Experience]:
    """The organization's experiences (candidate or promoted), newest first."""
    member(ports, org_id, actor_id)
    if ports.experiences is None:
        raise Unavailable("this process keeps no learning record")
    return ports.experiences.experiences(org_id, max(1, min(limit, MAX_LISTED)))
