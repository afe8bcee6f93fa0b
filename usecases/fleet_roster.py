"""The agents page's view: each agent of the firm as its owner meets it (what it is for,
the version that serves, what a run of it may spend, where it works, what it is doing
now and what its runs moved lately), read as the signed-in person may read it."""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel

from domain.fleet import registry
from domain.governance.broker import effective_budget
from domain.organization.kinds import PrincipalKind, StaffRole
from domain.organization.visibility import may_read
from domain.runs.outcome import RunOutcome
from domain.words import standing_words
from usecases.access import member, readable
from usecases.context import Ports
from usecases.runs_list import RunLine, listed_runs

LATELY = timedelta(days=30)
"""How far back an agent's spending is summed."""


class Working(BaseModel):
    """Where an agent is staffed, and until when (None: open-ended)."""

    project: str
    role: StaffRole
    until: datetime | None


class AgentCard(BaseModel):
    """One agent, in the owner's words."""

    id: str
    name: str
    handle: str
    kind: str
    role: str
    purpose: str
    version: int | None
    """The version new runs get (None: nothing published)."""
    serving: str
    """The rollout in words: ``v3``, or ``v3, v4 on 20% of new runs``."""
    tools: tuple[str, ...]
    budget_cents: int
    """What one run of it may spend: the tighter of its definition and its charter."""
    working: list[Working]
    waiting: int
    """Its runs that wait for a human now (of those the reader may read, lately)."""
    running: int
    latest: RunLine | None
    standing: str = "active"
    """Where it stands, in words (``suspended since 3 Dec 2026: audit``)."""
    spent: dict[str, int]
    """What its allowed and approved actions moved in the last :data:`LATELY`, in the
    projects the reader may read: cents by currency (never added across currencies)."""


def roster(ports: Ports, org_id: str, actor_id: str, lines: list[RunLine]) -> list[AgentCard]:
    """Every agent of the organization, with what ``lines`` (the runs the reader may read,
    newest first) say it is doing."""
    org, actor = member(ports, org_id, actor_id)
    allowed = readable(ports, org, actor)
    now = ports.clock()
    spent: dict[str, dict[str, int]] = {}
    for moved in ports.runs.spent(org_id, now - LATELY):
        # only what the reader may read: a total over other projects tells their payments
        if may_read(allowed, moved.reach):
            by = spent.setdefault(moved.agent_id, {})
            by[moved.currency] = by.get(moved.currency, 0) + moved.cents
    cards = []
    for principal in ports.directory.principals(org_id):
        if principal.kind is not PrincipalKind.AGENT:
            continue
        if actor.id != org.founder_id:  # why it was suspended is the founder's to read
            principal = principal.model_copy(update={"status_reason": None})
        agent = ports.directory.agent(org_id, principal.id)
        charter = None if agent is None else agent.charter
        definition = None if agent is None else agent.definition
        rollout = None if agent is None else agent.rollout
        mine = [line for line in lines if line.run.agent_id == principal.id]
        cards.append(
            AgentCard(
                id=principal.id,
                name=principal.display_name or principal.handle,
                handle=principal.handle,
                standing=standing_words(principal),
                kind=principal.agent_kind or "agent",
                role="" if charter is None else charter.role,
                purpose="" if charter is None else charter.purpose,
                version=None if rollout is None else rollout.stable,
                serving=_serving(rollout),
                tools=() if charter is None else charter.tools,
                budget_cents=0
                if charter is None or definition is None
                else effective_budget(definition, charter),
                working=[
                    Working(project=s.project, role=s.role, until=s.valid_until)
                    for s in (() if agent is None else agent.staffing)
                    if s.valid_from <= now and (s.valid_until is None or s.valid_until > now)
                ],
                waiting=sum(1 for line in mine if line.outcome is RunOutcome.WAITING),
                running=sum(1 for line in mine if line.outcome is RunOutcome.RUNNING),
                latest=mine[0] if mine else None,
                spent=dict(sorted(spent.get(principal.id, {}).items())),
            )
        )
    return cards


def _serving(rollout: registry.Rollout | None) -> str:
    if rollout is None:
        return "nothing published"
    said = f"v{rollout.stable}"
    if rollout.candidate is not None and rollout.share:
        said += f", v{rollout.candidate} on {rollout.share}% of new runs"
    return said


async def agents_page(ports: Ports, org_id: str, actor_id: str) -> list[AgentCard]:
    """The roster, with the newest runs the reader may read."""
    lines = await listed_runs(ports, org_id, actor_id, limit=200)
    return roster(ports, org_id, actor_id, lines)
