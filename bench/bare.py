"""The baselines the governed run is measured against: bare workflows that do nothing.

:class:`BareRun` has the design's five steps as separate tasks (four activities and one
local activity, in the governed run's order, passing values of the same kinds along):
the shape the targets were set against. The governed run now resolves and recalls in one
activity, so :class:`BareRunMerged` does the same (three activities and one local
activity), to show what is left once the step it saves is saved by bare too. And the
bare workflow waiting on a signal and then running one activity (the baseline for an
approval). ``python -m bench.bare`` runs a worker for them.
"""

from __future__ import annotations

import asyncio
import os
import signal
from datetime import timedelta

from temporalio import activity, workflow
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from domain.governance.intents import Intent
    from domain.runs.run import ContextPack, ResolvedAgent, RunInput

BARE_QUEUE = "bench-bare"
STEP = timedelta(seconds=30)


@activity.defn(name="bare_resolve")
async def resolve(run: RunInput) -> ResolvedAgent:
    return ResolvedAgent(
        agent_id=run.agent_id, handle="bare", budget_cents=0, tools=("email.send",), projects=()
    )


@activity.defn(name="bare_context")
async def context(run: RunInput) -> ContextPack:
    return ContextPack()


@activity.defn(name="bare_reasoning")
async def reasoning(run: RunInput) -> str:
    return run.task


@activity.defn(name="bare_decide")
async def decide(intent: Intent) -> str:
    return intent.id


@activity.defn(name="bare_action")
async def action(intent: Intent) -> str:
    return intent.id


def _intent(run: RunInput) -> Intent:
    return Intent(
        id=str(workflow.uuid4()),
        org_id=run.org_id,
        run_id=run.run_id,
        principal_id=run.agent_id,
        tool="email.send",
        projects=("east",),
        payload={"to": "a@b.example", "subject": "s", "body": "b"},
        cost_cents=0,
        justification="bench",
    )


@workflow.defn
class BareRun:
    """resolve → context → reasoning → decide (local) → action, doing nothing."""

    @workflow.run
    async def run(self, run: RunInput) -> str:
        await workflow.execute_activity(resolve, run, start_to_close_timeout=STEP)
        await workflow.execute_activity(context, run, start_to_close_timeout=STEP)
        await workflow.execute_activity(reasoning, run, start_to_close_timeout=STEP)
        intent = _intent(run)
        await workflow.execute_local_activity(decide, intent, start_to_close_timeout=STEP)
        return await workflow.execute_activity(action, intent, start_to_close_timeout=STEP)


@workflow.defn
class BareRunMerged:
    """resolve and context in one activity → reasoning → decide (local) → action: the
    governed run's shape since it resolves and recalls in one step."""

    @workflow.run
    async def run(self, run: RunInput) -> str:
        await workflow.execute_activity(resolve, run, start_to_close_timeout=STEP)
        await workflow.execute_activity(reasoning, run, start_to_close_timeout=STEP)
        intent = _intent(run)
        await workflow.execute_local_activity(decide, intent, start_to_close_timeout=STEP)
        return await workflow.execute_activity(action, intent, start_to_close_timeout=STEP)


@workflow.defn
class BareApproval:
    """Wait for a signal, then run one activity."""

    def __init__(self) -> None:
        self._approved = False

    @workflow.signal
    def approve(self) -> None:
        self._approved = True

    @workflow.query
    def waiting(self) -> bool:
        return not self._approved

    @workflow.run
    async def run(self, run: RunInput) -> str:
        await workflow.wait_condition(lambda: self._approved)
        return await workflow.execute_activity(action, _intent(run), start_to_close_timeout=STEP)


async def serve() -> None:
    from worker.bytecode import keep_bytecode
    from worker.settings import Settings
    from worker.temporal import make_client

    settings = Settings()
    keep_bytecode(settings.data_dir)  # as the governed worker does
    client = await make_client(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with Worker(
        client,
        task_queue=os.environ.get("BENCH_BARE_QUEUE", BARE_QUEUE),
        workflows=[BareRun, BareRunMerged, BareApproval],
        activities=[resolve, context, reasoning, decide, action],
    ):
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(serve())
