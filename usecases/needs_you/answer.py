"""Answering a run's question, a command: a new run of the agent goes on with the task,
the question and the answer, once, on the record."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from domain.errors import Conflict
from domain.governance.records import answer_draft
from domain.needs_you.chain import ChainStory, read_chain
from domain.organization.contracts import MAX_REASON
from domain.runs.run import RunRecord
from usecases.access import run_for
from usecases.context import Ports
from usecases.runs import RunStarted, StartRun, start_run

MAX_ANSWER = MAX_REASON


@dataclass(frozen=True)
class Handed:
    """Records handed to a run with its task, and their projects (``RunInput.read_refs``,
    ``RunInput.read_reach``)."""

    refs: tuple[str, ...] = ()
    reach: tuple[str, ...] = ()


class RunAnswered(BaseModel):
    """A human's answer to a run's question: a new run of the same agent goes on with it."""

    run_id: str
    """The run that asked."""
    answer: RunStarted


def answered_task(task: str, question: str, answer: str, handle: str) -> str:
    """The task of the run that goes on: the first task, the question and the answer."""
    return f"{task}\n\nYou asked: {question}\nThe answer from {handle}: {answer}"


def handed(ports: Ports, story: ChainStory, run: RunRecord) -> Handed:
    """What a plain run was handed with its task: for a run answering a question, what
    the asking run read; for a retry, what the run it retries was handed; nothing else."""
    seen: set[str] = set()
    while run.id not in seen:
        seen.add(run.id)
        key = run.client_key or ""
        if key.startswith("answer:"):
            asked = story.questions.get(key.removeprefix("answer:"))
            return Handed() if asked is None else Handed(asked.read_refs, asked.read_reach)
        earlier = ports.runs.get(key.removeprefix("retry:")) if key.startswith("retry:") else None
        if earlier is None:
            break
        run = earlier
    return Handed()


async def answer_run(ports: Ports, run_id: str, actor_id: str, answer: str) -> RunAnswered:
    """Answer the question a run's agent asked, on behalf of ``actor_id`` (who must be
    able to read the run): a new run of the agent starts with the task, the question and
    the answer. Once: a second answer is a Conflict (the first stands), on the record."""
    answer = answer.strip()
    if not answer or len(answer) > MAX_ANSWER:
        raise ValueError(f"an answer is text of 1 to {MAX_ANSWER} characters")
    run = run_for(ports, run_id, actor_id)
    story = read_chain(ports.audit.entries(run.org_id))
    asked = story.questions.get(run_id)
    if asked is None:
        raise Conflict(f"run {run_id} asked no question")
    if run_id in story.answered:
        raise Conflict(f"run {run_id}'s question is answered already")
    actor = ports.directory.principal(run.org_id, actor_id)
    started = await start_run(
        ports,
        run.org_id,
        actor_id,
        StartRun(
            run.agent_id,
            answered_task(run.task, asked.question, answer, actor.handle),
            client_key=f"answer:{run_id}",
            # The question was written from what the asking run read: the answering run
            # knows it too, for its reach and for where a destination came from.
            read_refs=asked.read_refs,
            read_reach=asked.read_reach,
        ),
    )
    answering = ports.runs.get(started.run_id)
    if answering is None or answering.started_by != actor_id:
        # The same answer given at the same time by someone else: theirs stands.
        raise Conflict(f"run {run_id}'s question is answered already")
    with ports.governance.unit(run.org_id, ports.clock()) as unit:
        if unit.recorded(f"answer:{run_id}") is not None:
            raise Conflict(f"run {run_id}'s question is answered already")
        unit.append(answer_draft(run_id, started.run_id, actor_id))
    return RunAnswered(run_id=run_id, answer=started)
