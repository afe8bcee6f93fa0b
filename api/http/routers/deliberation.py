"""Deliberations: personas arguing a question through a quality gate, then a synthesis."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.http.deps import Actor, PortsDep
from api.http.schemas import HOLD_TIMEOUT, Body, Viewed
from domain.deliberation.plan import DeliberationPlan
from domain.deliberation.state import DeliberationState, deliberation_workflow_id
from usecases import deliberation as deliberations  # the route below is `deliberation`

router = APIRouter(tags=["deliberations"])


class DeliberationBody(Body):
    """A question for personas to argue, and the agent that synthesises."""

    agent: str = Field(min_length=1, max_length=200)
    """The agent's handle or id: its memory gate releases the context, its run acts."""
    question: str = Field(min_length=1, max_length=4000)
    plan: DeliberationPlan | None = None
    """The personas, in order (default: analyst, skeptic, counsel)."""
    scripted_replies: dict[str, tuple[str, ...]] = Field(default_factory=dict, max_length=7)
    hold_timeout_seconds: int | None = HOLD_TIMEOUT


class DeliberationView(Viewed):
    state: DeliberationState


@router.post("/orgs/{org_id}/deliberations", status_code=201)
async def start_deliberation(
    org_id: str, body: DeliberationBody, ports: PortsDep, actor: Actor
) -> DeliberationState:
    """Start a deliberation; its synthesis's actions go through the broker."""
    return await deliberations.start_deliberation(
        ports,
        org_id,
        actor,
        deliberations.StartDeliberation(
            body.agent,
            body.question,
            plan=body.plan,
            scripted_replies=body.scripted_replies,
            hold_timeout_seconds=body.hold_timeout_seconds,
        ),
    )


@router.get("/deliberations/{deliberation_id}")
async def deliberation(deliberation_id: str, ports: PortsDep, actor: Actor) -> DeliberationView:
    """Each persona's turn, the provenance, and the synthesis's run."""
    status, state = await deliberations.deliberation_view(ports, deliberation_id, actor)
    ui_url = ports.gateway.ui_url(deliberation_workflow_id(deliberation_id))
    return DeliberationView(workflow_status=status, ui_url=ui_url, state=state)
