"""Replay a committed workflow history against today's workflow code.

A failure here means a change would break workflows already running: put it behind
``workflow.patched(...)`` or, if intended, re-record with ``python -m tests.histories.record``.
The agent runs' histories come from that script; ``heartbeat_before_schedule_standing``
is a heartbeat recorded by the code before its proposals named the schedule (8ab5aaa).
"""

from __future__ import annotations

from pathlib import Path

from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from domain.runs.run import RunInput
from workflows.heartbeat import HeartbeatWorkflow
from workflows.runs import AgentRunWorkflow

HISTORIES = Path(__file__).parents[1] / "histories"


async def test_committed_histories_replay() -> None:
    files = sorted(HISTORIES.glob("*.json"))
    assert files, "no committed histories"
    replayer = Replayer(
        workflows=[AgentRunWorkflow, HeartbeatWorkflow], data_converter=pydantic_data_converter
    )
    for path in files:
        history = WorkflowHistory.from_json(path.stem, path.read_text())
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"


@workflow.defn(name="AgentRunWorkflow")
class ChangedAgentRun:
    """Stands in for a careless edit: schedules a timer where the history has an activity."""

    @workflow.run
    async def run(self, _: RunInput) -> None:
        await workflow.sleep(1)


async def test_replay_detects_a_nondeterministic_change() -> None:
    """The replay test can fail: a workflow that schedules different commands is caught."""
    path = sorted(HISTORIES.glob("agent_run_*.json"))[0]
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    replayer = Replayer(workflows=[ChangedAgentRun], data_converter=pydantic_data_converter)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
