"""Deliberations as a human starts and reads them: personas argue a question in turn
through a quality gate, and an agent's run synthesises (see :mod:`domain.deliberation.state`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from domain.deliberation.plan import DEFAULT_PERSONAS, DeliberationPlan
from domain.deliberation.ports import DeliberationGateway
from domain.deliberation.state import SYNTHESIS, DeliberationInput, DeliberationState
from domain.errors import NotFound, Unavailable
from domain.runs.run import check_hold_timeout
from usecases import ingress, runs
from usecases.access import agent_named, check_scripted, member, run_for
from usecases.context import Ports

DEFAULT_PLAN = DeliberationPlan(personas=DEFAULT_PERSONAS)
"""Analyst, skeptic, counsel; two rounds each."""


def _gateway(ports: Ports) -> DeliberationGateway:
    if ports.deliberations is None:
        raise Unavailable("deliberations need Temporal: start the dev server (`verletica up`)")
    return ports.deliberations


@dataclass(frozen=True)
class StartDeliberation:
    """What starting a deliberation asks: which agent, the question, the plan (or
    the default), scripted replies for the demo and tests, and how long holds wait."""

    agent: str
    question: str
    plan: DeliberationPlan | None = None
    scripted_replies: dict[str, tuple[str, ...]] | None = None
    hold_timeout_seconds: int | None = None


async def start_deliberation(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: StartDeliberation,
) -> DeliberationState:
    """Start a deliberation on ``question`` for ``actor_id`` (an active human of the
    organization). ``agent`` (handle or id) is the agent whose gate releases the personas'
    context and whose run synthesises; its actions go through the broker."""
    _, actor = member(ports, org_id, actor_id)
    chosen = command.plan or DEFAULT_PLAN
    replies = command.scripted_replies or {}
    check_scripted(ports, given=bool(replies))
    unknown = sorted(set(replies) - {p.name for p in chosen.personas} - {SYNTHESIS})
    if unknown:
        raise ValueError(f"replies for no persona of the plan: {unknown}")
    if not command.question.strip():
        raise ValueError("a deliberation needs a question")
    check_hold_timeout(command.hold_timeout_seconds)
    found = agent_named(ports, org_id, command.agent)
    if found is None:
        raise NotFound(f"no agent {command.agent!r} in this organization")
    gateway = _gateway(ports)
    ingress.reserve_run(ports, actor)
    deliberation = DeliberationInput(
        deliberation_id=str(uuid.uuid4()),
        org_id=org_id,
        agent_id=found.id,
        question=command.question.strip(),
        plan=chosen,
        requested_by=actor_id,
        scripted_replies=replies,
        hold_timeout_seconds=command.hold_timeout_seconds,
    )
    await gateway.start(deliberation)
    return DeliberationState(deliberation_id=deliberation.deliberation_id, org_id=org_id)


async def deliberation_view(
    ports: Ports, deliberation_id: str, actor_id: str
) -> tuple[str, DeliberationState]:
    """The deliberation's workflow status and state, to those who may read its run (its
    agent's projects and what its synthesis reached); to anyone else it does not exist."""
    status, state = await _gateway(ports).state(deliberation_id)
    try:
        member(ports, state.org_id, actor_id)
        run = None if state.run_id is None else run_for(ports, state.run_id, actor_id)
    except NotFound:
        raise NotFound(f"no deliberation {deliberation_id}") from None
    if run is not None and state.synthesis is not None:
        # its decisions as the reader sees them: evidence and causes beyond their projects
        # withheld, as on any run's page
        seen = runs.decisions_seen(ports, run, actor_id)
        state = state.model_copy(update={"synthesis": runs.state_seen(state.synthesis, seen)})
    return status, state


async def wait_deliberation(ports: Ports, deliberation_id: str, actor_id: str) -> DeliberationState:
    """Wait for the deliberation to end; its final state (as :func:`deliberation_view`)."""
    await deliberation_view(ports, deliberation_id, actor_id)
    await _gateway(ports).result(deliberation_id)
    return (await deliberation_view(ports, deliberation_id, actor_id))[1]
