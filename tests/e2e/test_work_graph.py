"""A work graph on the real dev server: steps as child runs in dependency order, fan-out
and fan-in; a held step in one branch pauses only that branch while the other completes;
outputs pass on only as far as the gate lets the next agent read; the graph's worker is
killed (SIGKILL) while the step is held, and a new worker finishes the graph."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from adapters.store.tables import PaymentRow
from domain.work_graph.graph import (
    GraphState,
    GraphStatus,
    GraphStep,
    StepStatus,
    WorkGraph,
    graph_workflow_id,
)
from tests.e2e.test_runs_crash_resume import WorkerProcess, _spawn
from tests.e2e.test_runs_crash_resume import workers as workers  # noqa: F401
from tests.support import (
    EMAIL_ACTION,
    TEST_KEYS,
    Firm,
    make_settings,
    model_reply,
    pay_action,
    until,
    utc_now,
    wire,
)
from usecases import runs, work_graph
from workflows import search_attributes as sa
from workflows.work_graph import WorkGraphWorkflow

pytestmark = pytest.mark.temporal

DILIGENCE = WorkGraph(
    name="Atlas diligence",
    steps=(
        GraphStep(id="brief", agent="orion", task="Brief the Atlas team on the checklist."),
        GraphStep(id="pay", agent="ledger", task="Pay the data-room invoice.", after=("brief",)),
        GraphStep(id="confirm", agent="orion", task="Confirm access.", after=("pay",)),
        GraphStep(id="birch", agent="vega", task="Note Birch's status.", after=("brief",)),
        GraphStep(
            id="close", agent="orion", task="Close the checklist.", after=("confirm", "birch")
        ),
    ),
)
WEST_EMAIL = EMAIL_ACTION | {"projects": ["west"]}
REPLIES = {
    "brief": model_reply(EMAIL_ACTION),
    "pay": model_reply(pay_action("DR-1", 250_000)),
    "confirm": model_reply(EMAIL_ACTION),
    "birch": model_reply(WEST_EMAIL),
    "close": model_reply(EMAIL_ACTION),
}


def _steps(state: GraphState) -> dict[str, StepStatus]:
    return {s.id: s.status for s in state.steps}


class Stack:
    """A firm, its store and services, and worker processes started on demand."""

    def __init__(
        self,
        temporal: WorkflowEnvironment,
        db_url: str,
        workers: list[WorkerProcess],
        tmp_path: Path,
    ) -> None:
        self.temporal, self.db_url, self.workers, self.tmp_path = (
            temporal,
            db_url,
            workers,
            tmp_path,
        )
        self.settings = make_settings(database_url=db_url)
        self.store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
        self.svc = wire(self.store, temporal.client, self.settings, utc_now)
        self.firm = Firm(self.svc)

    def spawn(self) -> WorkerProcess:
        return _spawn(
            self.workers, self.temporal, self.db_url, self.settings.task_queue, self.tmp_path
        )


@pytest.fixture
def stack(
    temporal_env: WorkflowEnvironment,
    sqlite_url: str,
    workers: list[WorkerProcess],  # noqa: F811
    tmp_path: Path,
) -> Iterator[Stack]:
    made = Stack(temporal_env, sqlite_url, workers, tmp_path)
    yield made
    made.store.close()


async def test_a_held_branch_waits_while_the_other_completes_across_a_worker_crash(
    stack: Stack,
) -> None:
    svc, store, firm = stack.svc, stack.store, stack.firm
    first = stack.spawn()

    started = await work_graph.start_graph(svc, firm.org, firm.founder, DILIGENCE, REPLIES)

    async def graph() -> GraphState:
        _, state = await work_graph.graph_view(svc, started.graph_id, firm.founder)
        return state

    held = await until(
        graph,
        accept=lambda s: (
            _steps(s)["pay"] is StepStatus.HELD and _steps(s)["birch"] is StepStatus.DONE
        ),
        timeout=90,
        interval=0.2,
        what="the payment is held and Birch's branch is done",
    )
    # The payment's branch waits for a human; the other branch ran to its end; the
    # fan-in waits for both.
    assert _steps(held) == {
        "brief": StepStatus.DONE,
        "pay": StepStatus.HELD,
        "confirm": StepStatus.WAITING,
        "birch": StepStatus.DONE,
        "close": StepStatus.WAITING,
    }
    assert held.status is GraphStatus.NEEDS_HUMAN
    by_id = {s.id: s for s in held.steps}
    pay_run = await runs.run_view(svc, by_id["pay"].run_id or "", firm.founder)
    assert "- brief:" in pay_run.task  # east to east: released
    birch_run = await runs.run_view(svc, by_id["birch"].run_id or "", firm.founder)
    assert "- brief:" not in birch_run.task  # east's output never reaches west's agent
    assert "may not read: brief" in birch_run.task
    # Ben, staffed on east only, sees the west step's status but not its summary.
    _, as_ben = await work_graph.graph_view(svc, started.graph_id, firm.associate)
    ben = {s.id: s for s in as_ben.steps}
    assert ben["birch"].withheld and ben["birch"].summary == "" and ben["birch"].run_id is None
    assert not ben["brief"].withheld

    # The graph's worker dies while the step is held; the approval arrives meanwhile.
    first.kill()
    intent = pay_run.state.intents[0].intent if pay_run.state else None
    assert intent is not None
    await runs.decide_hold(svc, intent.id, firm.founder, firm.founder, approve=True)
    stack.spawn()
    handle = stack.temporal.client.get_workflow_handle_for(
        WorkGraphWorkflow.run, graph_workflow_id(started.graph_id)
    )
    final = await asyncio.wait_for(handle.result(), timeout=120)

    assert final.status is GraphStatus.COMPLETED
    assert set(_steps(final).values()) == {StepStatus.DONE}
    done = {s.id: s for s in final.steps}
    close_run = await runs.run_view(svc, done["close"].run_id or "", firm.founder)
    # Fan-in: the east step's output reaches the closing (east) agent, the west one's not.
    assert "- confirm:" in close_run.task and "may not read: birch" in close_run.task
    # What was handed on is in the reach of what the step proposes; what was withheld not.
    assert close_run.state is not None
    (closing,) = close_run.state.intents
    assert "east" in closing.intent.read_reach and "west" not in closing.intent.read_reach
    confirm_run = await runs.run_view(svc, done["confirm"].run_id or "", firm.founder)
    assert "payments.pay: approved, done" in confirm_run.task
    with store.db.transaction() as s:
        assert s.execute(select(func.count()).select_from(PaymentRow)).scalar_one() == 1
    # Legible in the Temporal UI: the graph says what it is and whose; each step's run is
    # its child, named for its agent, with the graph's name and the step in its summary.
    described = await handle.describe()
    assert described.status is WorkflowExecutionStatus.COMPLETED
    assert await described.static_summary() == "work graph: Atlas diligence"
    assert described.typed_search_attributes.get(sa.ORG) == firm.org
    child = await stack.temporal.client.get_workflow_handle(
        done["pay"].workflow_id or ""
    ).describe()
    assert child.parent_id == graph_workflow_id(started.graph_id)
    assert (done["pay"].workflow_id or "").startswith("run-ledger-")
    assert await child.static_summary() == "Atlas diligence / pay: ledger"
    assert child.typed_search_attributes.get(sa.AGENT) == "ledger"
    assert store.audit.verify(firm.org).ok


async def test_a_failed_step_skips_the_steps_after_it(stack: Stack) -> None:
    svc, firm = stack.svc, stack.firm
    stack.spawn()
    graph = WorkGraph(
        name="broken",
        steps=(
            GraphStep(id="a", agent="orion", task="Draft."),
            GraphStep(id="b", agent="orion", task="Send.", after=("a",)),
            GraphStep(id="c", agent="orion", task="Wrap up.", after=("b",)),
            GraphStep(id="d", agent="orion", task="Side note.", after=("a",)),
        ),
    )
    replies = {
        "a": model_reply(EMAIL_ACTION),
        "b": "not json",  # the parser refuses it: the run ends, its step is not done
        "c": model_reply(EMAIL_ACTION),
        "d": model_reply(EMAIL_ACTION),
    }
    started = await work_graph.start_graph(svc, firm.org, firm.founder, graph, replies)
    final = await asyncio.wait_for(
        work_graph.wait_graph(svc, started.graph_id, firm.founder), timeout=90
    )
    assert _steps(final)["a"] is StepStatus.DONE and _steps(final)["d"] is StepStatus.DONE
    assert _steps(final)["b"] is StepStatus.FAILED
    assert _steps(final)["c"] is StepStatus.SKIPPED
    assert final.status is GraphStatus.FAILED
    assert "refused" in {s.id: s for s in final.steps}["b"].summary
