"""Record the committed workflow history the replay test checks.

``python -m tests.histories.record`` runs a held payment on a fresh dev server: an
approval sent straight to Temporal without a proof and a signal that does not decode
(both refused), an approval through the API by someone without authority (refused), the
founder's (approved and dispatched), and one more signal straight to Temporal that only
the end of the run reviews (refused); it writes the history JSON next to this file.
Re-record only on purpose: a change that fails the replay test is a change that would
break running workflows (put it behind ``workflow.patched``). Older recordings stay:
they prove today's code still replays runs that earlier code started
(``*_initial.json``: the first spine; ``*_unsigned.json``: before signed approvals and
the ``review-every-signal`` patch; ``*_signed.json``: before the hold's timer summary and
the ``needs-human-while-held`` patch; ``*_needs_human.json``: before intents named who
asked and what was read, the ``intent-requester-and-read-reach`` and ``intent-read-refs``
patches; ``*_unsettled.json``: recorded at db7a2d7, before the
``settled-patches-and-one-first-step`` patch, with resolve and context as two activities
and a marker for each patch).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import uuid
from pathlib import Path

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from domain.runs.run import ApprovalSignal, RunStatus
from tests.support import TEST_KEYS, Firm, make_settings, until, utc_now, wire
from usecases import runs
from worker.bootstrap import build_worker
from workflows import search_attributes as sa
from workflows.runs import AgentRunWorkflow

HERE = Path(__file__).parent
HISTORY = HERE / "agent_run_hold_refused_approved.json"
PAYMENT = json.dumps(
    {
        "summary": "pay",
        "actions": [
            {
                "tool": "payments.pay",
                "projects": ["east"],
                "cost_cents": 250_000,
                "justification": "due",
                "payload": {
                    "payee": "Northwind",
                    "invoice": "NW-7",
                    "amount_cents": 250_000,
                    "currency": "USD",
                    "memo": "data room",
                },
            }
        ],
    }
)


async def record() -> None:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=str(Path(sys.executable).parent / "temporal"),
        data_converter=pydantic_data_converter,
        search_attributes=sa.ALL,
    )
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/record.db"
        settings = make_settings(database_url=url)
        store = Store.open(url, TEST_KEYS)
        svc = wire(store, env.client, settings, utc_now)
        firm = Firm(svc)
        async with build_worker(env.client, settings, store):
            started = await runs.start_run(
                svc,
                firm.org,
                firm.founder,
                runs.StartRun(
                    firm.agents["ledger"],
                    "pay",
                    scripted_reply=PAYMENT,
                    client_key=str(uuid.uuid4()),
                ),
            )
            handle = env.client.get_workflow_handle_for(AgentRunWorkflow.run, started.workflow_id)
            state = await until(
                lambda: handle.query(AgentRunWorkflow.state),
                accept=lambda s: s.status is RunStatus.NEEDS_HUMAN,
                what="the payment is held",
            )
            intent = state.intents[0].intent
            straight = ApprovalSignal(
                intent_id=intent.id, approver_id=firm.founder, intent_digest=intent.digest
            )
            await handle.signal("approve", straight)  # no proof
            await handle.signal("approve", "yes")  # does not decode
            for approver in (firm.associate, firm.founder):
                await runs.decide_hold(svc, intent.id, approver, approver, approve=True)
            await handle.signal("deny", straight)  # after the hold: reviewed as the run ends
            final = await handle.result()
            assert len(final.refused_signals) == 4, final.refused_signals
            history = await handle.fetch_history()
        store.close()
    HISTORY.write_text(history.to_json())
    await env.shutdown()


if __name__ == "__main__":
    asyncio.run(record())
