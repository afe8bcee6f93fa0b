"""A run acts on behalf of the human who started it (on the real dev server).

Ben is staffed on East only. When he tasks Vega, the West planner, the run recalls no
West memory, the broker refuses the West email Vega proposes for him (the wall stands
between Ben and West: ``barrier_crossed``, naming him), and Ben cannot read what the
run produced through any path: not its view, its summary, its intents, nor the memory
it read. The founder, who may read everything, tasks Vega and gets West context and the
email; Ben tasking Orion on East reads his run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from temporalio.testing import WorkflowEnvironment

from adapters.models.scripted import ScriptedProvider
from adapters.store.store import Store
from domain.errors import NotFound
from domain.runs.run import RunState
from tests.support import TEST_KEYS, Firm, make_settings, utc_now, wire
from usecases import runs
from usecases.context import Ports
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal


def _mail(project: str, body: str) -> str:
    action = {
        "tool": "email.send",
        "projects": [project],
        "cost_cents": 0,
        "justification": "j",
        "payload": {"to": "cfo@client.example", "subject": "Summary", "body": body},
    }
    return json.dumps({"summary": f"summary: {body}", "actions": [action]})


@pytest.fixture
async def env(
    temporal_env: WorkflowEnvironment, sqlite_url: str
) -> AsyncIterator[tuple[WorkflowEnvironment, Store, Ports, Firm]]:
    settings = make_settings(database_url=sqlite_url)
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    svc = wire(store, temporal_env.client, settings, utc_now)
    yield temporal_env, store, svc, Firm(svc)
    store.close()


async def _run(
    svc: Ports, firm: Firm, actor: str, agent: str, task: str, reply: str, *, refused: str = ""
) -> str:
    """Start the run as ``actor``; its one intent is dispatched, or refused by ``refused``."""
    started = await runs.start_run(
        svc, firm.org, actor, runs.StartRun(firm.agents[agent], task, scripted_reply=reply)
    )
    final: RunState = await asyncio.wait_for(runs.wait_run(svc, started.run_id, firm.founder), 60)
    assert final.intents, final
    (intent,) = final.intents
    if refused:
        assert intent.dispatch is None and intent.decision.rule == refused, final
        assert intent.intent.requested_by == actor
    else:
        assert intent.dispatch is not None, final
    return started.run_id


async def test_a_human_gets_nothing_back_from_the_other_side_of_a_wall(
    env: tuple[WorkflowEnvironment, Store, Ports, Firm],
) -> None:
    temporal, store, svc, firm = env
    async with build_worker(temporal.client, svc.settings, store, model=ScriptedProvider()):
        # Ben (East) tasks Vega (West) with West work.
        bens = await _run(
            svc,
            firm,
            firm.associate,
            "vega",
            "Summarise the Birch CIM projections",
            _mail("west", "Birch bridge"),
            refused="barrier_crossed",
        )
        # The founder tasks Vega with the same work; Ben tasks Orion with East work.
        founders = await _run(
            svc,
            firm,
            firm.founder,
            "vega",
            "Summarise the Birch CIM projections",
            _mail("west", "Birch bridge"),
        )
        east = await _run(
            svc,
            firm,
            firm.associate,
            "orion",
            "Share the Atlas kickoff notes",
            _mail("east", "Atlas kickoff"),
        )

    # The run Ben started recalled nothing from the West, though Vega may read it.
    seen_by_founder = await runs.run_view(svc, bens, firm.founder)
    assert seen_by_founder.state is not None and seen_by_founder.state.released == ()
    founder_view = await runs.run_view(svc, founders, firm.founder)
    assert founder_view.state is not None and founder_view.state.released == ("birch-cim",)
    # What each run read is in its intents' reach: West for the founder's, nothing for Ben's.
    assert founder_view.intents[0].intent.read_reach == ("west",)
    assert seen_by_founder.intents[0].intent.read_reach == ()

    # Ben cannot read what his West run produced: view, summary, intents, result.
    with pytest.raises(NotFound):
        await runs.run_view(svc, bens, firm.associate)
    with pytest.raises(NotFound):
        await runs.wait_run(svc, bens, firm.associate)
    # ... but reads his East run, with the East context it was given.
    east_view = await runs.run_view(svc, east, firm.associate)
    assert east_view.state is not None and east_view.state.released == ("atlas-kickoff",)

    # The read log names on whose behalf each read was made, and what it released.
    reads = [r for r in store.memory.reads(firm.org) if r.query.startswith("Summarise")]
    by_requester = {r.on_behalf_of: r for r in reads}
    assert by_requester[firm.associate].released == ()
    assert by_requester[firm.associate].withheld >= 1
    assert by_requester[firm.associate].asker_id == firm.agents["vega"]
    assert by_requester[firm.founder].released == ("birch-cim",)
