"""The learning pass on demand: start one now (the founder), read the organization's
experiences (any member: those they may read), promote or dismiss a candidate (the
founder). An experience is a lesson, never policy: promoting one changes no charter, rule
or approval."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from domain.audit.chain import AuditDraft
from domain.errors import NotFound, Unavailable
from domain.learning.ports import LearningStore
from domain.learning.records import Experience, InsightStatus, LearningPass
from domain.learning.validator import LEARNING, MAX_PRIOR
from domain.organization.contracts import MAX_REASON
from domain.organization.visibility import may_read
from usecases.access import founder, member, readable
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
    """The organization's experiences (candidate or promoted), newest first, that
    ``actor_id`` may read: a lesson reaches what its cited events' episodes (the runs
    they belong to) reach, so one drawn from work behind a wall is its readers' alone
    (:func:`lesson_reach`)."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    shown = max(1, min(limit, MAX_LISTED))
    found = _store(ports).experiences(org_id, MAX_LISTED if projects is not None else shown)
    if projects is not None:
        by_run, _ = ports.runs.reaches(org_id)
        found = [
            x for x in found if (r := lesson_reach(x, by_run)) is not None and may_read(projects, r)
        ]
    return found[:shown]


def lesson_reach(lesson: Experience, by_run: Mapping[str, Iterable[str]]) -> set[str] | None:
    """The projects ``lesson`` reaches: those of every run its cited events belong to (an
    event's episode is its run). None when an episode is no run on record: nothing then
    says where the lesson belongs, and it is the founder's alone."""
    reach: set[str] = set()
    for episode in lesson.episodes:
        if episode not in by_run:
            return None
        reach.update(by_run[episode])
    return reach if lesson.episodes else None


def review(
    ports: Ports, experience_id: str, actor_id: str, *, promote: bool, reason: str
) -> Experience:
    """The founder promotes a candidate lesson (vouches for it; it stays a lesson, never
    policy) or dismisses it (later passes no longer see it), saying why. Once: a second
    review is a Conflict and keeps the first, also when two race. On the chain."""
    reason = reason.strip()
    if not reason or len(reason) > MAX_REASON:
        raise ValueError(f"a review needs a reason of at most {MAX_REASON} characters")
    store = _store(ports)
    found = store.experience(experience_id)
    actor = ports.directory.find_principal(actor_id)
    if found is None or actor is None or actor.org_id != found.org_id:
        raise NotFound(f"no experience {experience_id}")
    founder(ports, found.org_id, actor_id)
    status = InsightStatus.PROMOTED if promote else InsightStatus.DISMISSED
    audit = AuditDraft(
        event_key=f"experience:{experience_id}:reviewed",
        actor=actor_id,
        decision=status.value,
        stage=LEARNING,
        rule=f"experience_{status.value}",
        payload={"experience_id": experience_id, "reason": reason},
    )
    return store.review(experience_id, status, actor_id, reason, ports.clock(), audit)


def _store(ports: Ports) -> LearningStore:
    if ports.experiences is None:
        raise Unavailable("this process keeps no learning record")
    return ports.experiences
