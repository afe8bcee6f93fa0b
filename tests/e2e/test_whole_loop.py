"""The seed's whole-loop proof, over the HTTP API with bearer tokens, a worker and the real
dev server: onboard with the starter fleet, departments and a wall, one planner per side;
three differently worded versions of one work sequence become ONE process offer, which a
human confirms into a playbook; later misses flag drift; the finding is resolved, and a
second resolution is a conflict; then confidential West memory reaches the West
planner's run and not the East planner's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from api.http.app import create_app
from api.local.demo_script import DESTINATIONS, TASKS, WEST_NOTE, WEST_NOTE_REF
from tests.identity import bearer
from tests.support import TEST_KEYS, make_settings, until, utc_now, wire
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal

KICKOFF = [
    [
        ("memory.read", "Pull the engagement letter and the client's contact list"),
        ("docs.draft", "Draft the kickoff agenda"),
        ("email.send", "Email the agenda to the client CFO"),
    ],
    [
        ("memory.read", "Look up the signed engagement letter and who to contact at the client"),
        ("docs.draft", "Write up an agenda for the kickoff meeting"),
        ("email.send", "Send the kickoff agenda to the client's finance lead"),
    ],
    [
        ("memory.read", "Find the engagement letter and client contacts"),
        ("docs.draft", "Prepare the agenda for the first meeting"),
        ("email.send", "Mail the meeting agenda to the CFO"),
    ],
]
UNRELATED = [
    ("calendar.book", "Book a table for the client dinner"),
    ("email.send", "Send the dinner invitation to the client"),
]


@pytest.fixture
async def http(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The API in process (ASGI) as deployed (bearer tokens only), a worker on the replay
    provider, the real dev server."""
    settings = make_settings(model_provider="replay", database_url=db_url)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    services = wire(store, temporal_env.client, settings, utc_now)
    app = create_app(settings, services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url="http://verletica") as client,
            build_worker(temporal_env.client, settings, store),
        ):
            yield client
    store.close()


async def test_the_whole_loop(http: httpx.AsyncClient) -> None:
    ada = "whole-loop-ada@harborvale.example"

    async def call(method: str, path: str, body: Any = None, status: int = 200) -> Any:
        got = await http.request(method, path, json=body, headers=bearer(ada))
        assert got.status_code == status, (path, got.text)
        return got.json()

    # onboard: the founder, the starter fleet
    org = await call("POST", "/v1/orgs", {"name": "Harbor & Vale", "founder_email": ada}, 201)
    org_id = org["org_id"]
    agents = {a["handle"]: a["id"] for a in org["agents"]}
    assert {"orion", "vega", "ledger", "sentinel", "scout"} <= set(agents)
    # departments, a wall, one planner per side
    for slug, name in (("east", "Atlas (buy-side)"), ("west", "Birch (sell-side)")):
        await call("POST", f"/v1/orgs/{org_id}/projects", {"slug": slug, "name": name}, 201)
    wall = {"name": "Atlas/Birch wall", "groups": [["east"], ["west"]]}
    await call("POST", f"/v1/orgs/{org_id}/barriers", wall, 201)
    for planner, side in (("orion", "east"), ("vega", "west")):
        staffing = {"principal_id": agents[planner], "project": side}
        await call("POST", f"/v1/orgs/{org_id}/staffing", staffing, 201)
    # where each side's work may go without a human: the showcase's clients and teams
    for project, kind, value, account, label in DESTINATIONS:
        kept = {"project": project, "kind": kind, "value": value, "account": account}
        await call("POST", f"/v1/orgs/{org_id}/destinations", kept | {"label": label}, 201)
    listed = await call("GET", f"/v1/orgs/{org_id}/destinations")
    assert len(listed) == len(DESTINATIONS)

    # three differently worded versions of one sequence, and an unrelated one
    async def episode(raw: list[tuple[str, str]], met: bool) -> str:
        body = {
            "steps": [{"tool": t, "text": x} for t, x in raw],
            "outcome_met": met,
            "projects": ["east"],
        }
        return str((await call("POST", f"/v1/orgs/{org_id}/episodes", body, 201))["id"])

    kickoff = [await episode(raw, True) for raw in KICKOFF]
    dinner = await episode(UNRELATED, True)
    await call("POST", f"/v1/orgs/{org_id}/offers/review")
    offers = await call("GET", f"/v1/orgs/{org_id}/offers")
    by_evidence = {tuple(sorted(o["episodes"])): o for o in offers}
    # ONE offer for the three; the dinner, done once, is a one-off and not offered
    assert set(by_evidence) == {tuple(sorted(kickoff))}
    assert all(dinner not in o["episodes"] for o in offers)
    offer = by_evidence[tuple(sorted(kickoff))]
    again = await call("POST", f"/v1/orgs/{org_id}/offers/review")
    assert len(await call("GET", f"/v1/orgs/{org_id}/offers")) == 1, again  # nothing added

    # confirmed into a playbook, which an East colleague reads through the memory gate
    await call("POST", f"/v1/offers/{offer['id']}/confirm", {"name": "kickoff-prep"})
    ben = await call(
        "POST", f"/v1/orgs/{org_id}/humans", {"email": "ben@hv.example", "display_name": "Ben"}, 201
    )
    await call(
        "POST", f"/v1/orgs/{org_id}/staffing", {"principal_id": ben["id"], "project": "east"}, 201
    )
    link = {"principal_id": ben["id"], "kind": "oidc", "external_id": "whole-loop-ben"}
    await call("POST", f"/v1/orgs/{org_id}/identities", link, 201)
    playbook = await http.get(
        f"/v1/orgs/{org_id}/memory/procedures/kickoff-prep", headers=bearer("whole-loop-ben")
    )
    assert playbook.status_code == 200 and len(playbook.json()["steps"]) == 3, playbook.text

    # later episodes of the playbook miss their outcome: drift
    await episode(KICKOFF[1], False)
    await call("POST", f"/v1/orgs/{org_id}/offers/review")
    assert (await call("POST", f"/v1/orgs/{org_id}/drift/review"))["flagged"] == []  # one miss
    for raw in (KICKOFF[0], KICKOFF[2]):
        await episode(raw, False)
    await call("POST", f"/v1/orgs/{org_id}/offers/review")
    (finding,) = (await call("POST", f"/v1/orgs/{org_id}/drift/review"))["flagged"]
    resolved = await call(
        "POST", f"/v1/findings/{finding['id']}/resolve", {"reason": "new client CFO"}
    )
    assert resolved["reason"] == "new client CFO"
    second = await http.post(
        f"/v1/findings/{finding['id']}/resolve", json={"reason": "other"}, headers=bearer(ada)
    )
    assert second.status_code == 409  # a conflict, never an overwrite
    (kept,) = await call("GET", f"/v1/orgs/{org_id}/findings/drift")
    assert kept["reason"] == "new client CFO"

    # confidential West memory: the West planner's run recalls it, the East planner's not
    note = {"ref": WEST_NOTE_REF, "projects": ["west"], "text": WEST_NOTE, "kind": "note"}
    await call("POST", f"/v1/orgs/{org_id}/memory", note, 201)
    started = {}
    for step in ("west", "cross"):
        handle, task = TASKS[step]
        body = {"agent_id": agents[handle], "task": task}
        started[handle] = (await call("POST", f"/v1/orgs/{org_id}/runs", body, 201))["run_id"]
    for run_id in started.values():
        await until(
            partial(call, "GET", f"/v1/runs/{run_id}"),
            accept=lambda run: run["workflow_status"] != "running",
            interval=0.2,
            what=f"run {run_id} finishes",
        )
    recalled = {
        r["asker_id"]: r["released"]
        for r in await call("GET", f"/v1/orgs/{org_id}/memory/reads")
        if r["path"] == "recall"
    }
    assert WEST_NOTE_REF in recalled[agents["vega"]]
    assert WEST_NOTE_REF not in recalled[agents["orion"]]
    assert (await call("GET", f"/v1/orgs/{org_id}/audit", None))["entries"]
    verified = await call("GET", f"/v1/orgs/{org_id}/audit?verify=true")
    assert verified["verification"]["ok"] is True
