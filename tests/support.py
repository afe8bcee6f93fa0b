"""Helpers the tests share: racing calls on threads, a payment intent, and running a
workflow to its end on the time-skipping test server."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from domain.intents import Intent
from domain.runs import RunState
from workflows.agent_run import AgentRunWorkflow


def payment_intent(
    org: str,
    agent: str,
    amount: int,
    invoice: str | None = None,
    run_id: str | None = None,
) -> Intent:
    """A payment on project ``east`` (a fresh invoice unless one is named)."""
    return Intent(
        id=str(uuid.uuid4()),
        org_id=org,
        run_id=run_id or f"run-{uuid.uuid4().hex[:8]}",
        principal_id=agent,
        tool="payments.pay",
        projects=("east",),
        cost_cents=amount,
        justification="due",
        payload={
            "payee": "N",
            "invoice": invoice or f"INV-{uuid.uuid4().hex[:6]}",
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
        },
    )


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` on their own threads, released together; results or exceptions."""
    results: list[Any] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def work(i: int) -> None:
        start.wait()
        try:
            results[i] = calls[i]()
        except Exception as exc:  # noqa: BLE001 - a refusal is a result here
            results[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


async def skip_to_the_end(
    env: WorkflowEnvironment, workflow_id: str, step: timedelta = timedelta(seconds=30)
) -> RunState:
    """Let a run finish on the time-skipping server, moving its clock ``step`` at a time
    (timers and retry back-offs take no real time), and return its final state."""
    handle = env.client.get_workflow_handle_for(AgentRunWorkflow.run, workflow_id)
    for _ in range(2_000):
        description = await handle.describe()
        if description.status is not WorkflowExecutionStatus.RUNNING:
            break
        await env.sleep(step)
    return await handle.result()
