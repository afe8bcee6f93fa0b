"""The needs-you queue, the autonomy metrics, retrying a failed run and answering an
agent's question (the queue's own actions; its others are the approve, deny, confirm,
reject, resolve and release routes)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.http.deps import Actor, PortsDep
from api.http.schemas import Body
from domain.needs_you.metrics import AutonomyMetrics
from domain.runs.failures import FailureClass
from usecases import needs_you
from usecases.needs_you import MAX_ANSWER, FailedRunView, NeedsYou, RunAnswered, RunRetried

router = APIRouter(tags=["needs-you"])


@router.get("/orgs/{org_id}/needs-you")
def queue(org_id: str, ports: PortsDep, actor: Actor) -> NeedsYou:
    """What waits for you, most urgent first, each item with its evidence and the
    actions it allows; items on projects you may not read are withheld."""
    return needs_you.needs_you(ports, org_id, actor)


@router.get("/orgs/{org_id}/metrics")
def metrics(org_id: str, ports: PortsDep, actor: Actor) -> AutonomyMetrics:
    """Work done without a human, escalations, blocked violations by stage, time to
    resolve holds and findings, repeated-process precision; a metric with no data
    yet says why."""
    return needs_you.metrics(ports, org_id, actor)


@router.get("/orgs/{org_id}/runs/failed")
def failed(
    org_id: str, ports: PortsDep, actor: Actor, failure: FailureClass | None = None
) -> list[FailedRunView]:
    """Failed runs you may read, newest first, each with its class (authority, barrier,
    commitment, collision, validation, model, infrastructure) and the retries it has
    left; ``?failure=`` keeps one class."""
    return needs_you.failed_runs(ports, org_id, actor, failure)


@router.post("/runs/{run_id}/retry", status_code=201)
async def retry(run_id: str, ports: PortsDep, actor: Actor) -> RunRetried:
    """Start a failed run again (same agent and task), once, on the record."""
    return await needs_you.retry_run(ports, run_id, actor)


class AnswerBody(Body):
    answer: str = Field(min_length=1, max_length=MAX_ANSWER)


@router.post("/runs/{run_id}/answer", status_code=201)
async def answer(run_id: str, body: AnswerBody, ports: PortsDep, actor: Actor) -> RunAnswered:
    """Answer the question the run's agent asked: a new run of the agent goes on with the
    task, the question and your answer. Once: a second answer is a 409."""
    return await needs_you.answer_run(ports, run_id, actor, body.answer)
