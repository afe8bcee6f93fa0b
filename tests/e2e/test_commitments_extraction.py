"""Commitments from documents on the real dev server (SQLite and PostgreSQL): an agent
reads an ingested document through the memory gate, the replay provider answers, the
strict parser checks every quote against the document, and each obligation becomes a
commitment in state ``extracted`` with its provenance. A human confirms or rejects it;
the audit chain verifies throughout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer
from typer.testing import CliRunner

from adapters.models.replay import ReplayProvider
from adapters.store.store import Store
from api.cli.main import app as cli_app
from api.http.app import create_app
from domain.organization.kinds import ReviewState
from tests.documents import ORBIT_AGREEMENT, ORBIT_MISQUOTED
from tests.identity import cli_against, signed_in
from tests.support import TEST_KEYS, Firm, make_settings, utc_now, wire
from usecases import commitments, memory
from usecases.context import Ports
from worker.bootstrap import build_worker
from workflows.commitments import ExtractCommitmentsWorkflow

pytestmark = pytest.mark.temporal


class Stack:
    def __init__(self, store: Store, services: Ports, http: httpx.AsyncClient) -> None:
        self.store, self.services, self.http = store, services, http
        self.firm = Firm(services)
        for ref, text in (
            ("orbit-supply-agreement", ORBIT_AGREEMENT),
            ("orbit-misquoted", ORBIT_MISQUOTED),
        ):
            memory.remember(
                services,
                self.firm.org,
                self.firm.founder,
                memory.Remember(ref, ("east",), text, kind="contract"),
            )
        memory.remember(
            services,
            self.firm.org,
            self.firm.founder,
            memory.Remember("birch-letter", ("west",), ORBIT_AGREEMENT),
        )

    async def post(self, who: str, path: str, body: dict[str, Any]) -> httpx.Response:
        return await self.http.post(path, json=body, headers=signed_in(self.services, who))

    async def extract(self, ref: str, agent: str, who: str | None = None) -> httpx.Response:
        firm = self.firm
        return await self.post(
            who or firm.founder,
            f"/v1/orgs/{firm.org}/commitments/extract",
            {"ref": ref, "extractor_id": firm.agents[agent]},
        )


@pytest.fixture
async def stack(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Stack]:
    """API in process (ASGI, bearer tokens), a worker on the replay provider."""
    settings = make_settings(model_provider="replay", database_url=db_url)
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    services = wire(store, temporal_env.client, settings, utc_now)
    app = create_app(settings, services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://verletica") as http:
            async with build_worker(temporal_env.client, settings, store, model=ReplayProvider()):
                yield Stack(store, services, http)
    store.close()


async def test_extracted_obligations_are_evidence_until_a_human_reviews_them(
    stack: Stack, temporal_env: WorkflowEnvironment
) -> None:
    firm = stack.firm
    r = await stack.extract("orbit-supply-agreement", "ledger")
    assert r.status_code == 201, r.text
    result = r.json()
    assert result["rejection"] is None
    made = {c["constraint"]["kind"]: c for c in result["commitments"]}
    assert set(made) == {"delivery", "spend_cap", "notice_period"}
    for c in made.values():
        assert c["state"] == ReviewState.EXTRACTED
        assert c["projects"] == ["east"]
        p = c["provenance"]
        start, end = p["span"]
        assert p["excerpt"] == ORBIT_AGREEMENT[start:end]
        assert p["document"] == "orbit-supply-agreement"
        assert p["extractor"] == firm.agents["ledger"]
        assert p["model"] == "replay/authored"
        assert p["recorded_by"] == firm.founder
    assert made["spend_cap"]["constraint"]["limit_cents"] == 1_200_000
    assert made["delivery"]["constraint"]["due"] == "2027-01-31T17:00:00Z"
    assert made["notice_period"]["constraint"]["days"] == 60
    # the extractor read the document through the gate, as itself, for the founder
    reads = [
        r
        for r in stack.services.memory.reads(firm.org)
        if r.asker_id == firm.agents["ledger"] and r.path == "get"
    ]
    assert reads and reads[-1].on_behalf_of == firm.founder

    confirmed = await stack.post(
        firm.founder, f"/v1/commitments/{made['spend_cap']['id']}/confirm", {}
    )
    rejected = await stack.post(
        firm.founder,
        f"/v1/commitments/{made['notice_period']['id']}/reject",
        {"reason": "a right of the client's, not ours to keep"},
    )
    again = await stack.post(
        firm.founder, f"/v1/commitments/{made['notice_period']['id']}/reject", {"reason": "x"}
    )
    too_late = await stack.post(
        firm.founder, f"/v1/commitments/{made['spend_cap']['id']}/reject", {"reason": "x"}
    )
    by_member = await stack.post(
        firm.associate, f"/v1/commitments/{made['delivery']['id']}/reject", {"reason": "x"}
    )

    assert confirmed.status_code == 200 and confirmed.json()["state"] == "confirmed"
    assert rejected.status_code == 200 and rejected.json()["state"] == "rejected"
    assert again.status_code == 409 and too_late.status_code == 409
    assert by_member.status_code == 403
    states = {
        c.id: c.state for c in commitments.commitments(stack.services, firm.org, firm.founder)
    }
    assert states == {
        made["spend_cap"]["id"]: ReviewState.CONFIRMED,
        made["notice_period"]["id"]: ReviewState.REJECTED,
        made["delivery"]["id"]: ReviewState.EXTRACTED,
    }
    audit = await stack.http.get(
        f"/v1/orgs/{firm.org}/audit",
        params={"verify": "true"},
        headers=signed_in(stack.services, firm.founder),
    )
    assert audit.status_code == 200, audit.text
    assert audit.json()["verification"]["ok"] is True
    rules = [e["rule"] for e in audit.json()["entries"]]
    assert rules.count("commitment_recorded") == 3
    assert rules.count("commitment_confirmed") == rules.count("commitment_rejected") == 1

    # the extraction is findable in Temporal, and its history replays on today's code
    query = f"VerleticaOrg = '{firm.org}' AND WorkflowType = 'ExtractCommitmentsWorkflow'"
    (found,) = [w async for w in temporal_env.client.list_workflows(query)]
    history = await temporal_env.client.get_workflow_handle(found.id).fetch_history()
    replayer = Replayer(
        workflows=[ExtractCommitmentsWorkflow], data_converter=pydantic_data_converter
    )
    await replayer.replay_workflow(history)


async def test_a_reply_that_misquotes_the_document_is_refused_on_the_record(
    stack: Stack,
) -> None:
    firm = stack.firm
    r = await stack.extract("orbit-misquoted", "ledger")

    assert r.status_code == 201, r.text
    assert r.json()["commitments"] == []
    assert r.json()["rejection"]["rule"] == "quote_mismatch"
    assert commitments.commitments(stack.services, firm.org, firm.founder) == []
    entries = stack.store.audit.entries(firm.org)
    (refused,) = [e for e in entries if e.stage == "extraction"]
    assert refused.rule == "quote_mismatch" and refused.actor == firm.agents["ledger"]
    assert stack.store.audit.verify(firm.org).ok


async def test_nobody_extracts_what_they_may_not_read(stack: Stack) -> None:
    """Vega works behind the wall (west): it may not read an east document, and Ben (east)
    may not have a west document read for him."""
    firm = stack.firm
    walled = await stack.extract("orbit-supply-agreement", "vega")
    for_ben = await stack.extract("birch-letter", "vega", who=firm.associate)
    unknown = await stack.extract("no-such-document", "ledger")

    assert walled.status_code == 404, walled.text
    assert for_ben.status_code == 404, for_ben.text
    assert unknown.status_code == 404, unknown.text
    assert commitments.commitments(stack.services, firm.org, firm.founder) == []
    assert stack.store.audit.verify(firm.org).ok


async def test_the_command_line_extracts_and_rejects(
    stack: Stack,
    temporal_env: WorkflowEnvironment,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    firm, settings = stack.firm, getattr(stack.services, "settings", None)
    assert settings is not None
    cli_against(monkeypatch, tmp_path, stack.services, temporal_env.client, db_url, firm.founder)

    extracted = await asyncio.to_thread(
        CliRunner().invoke,
        cli_app,
        ["commit", "extract", "orbit-supply-agreement", "--extractor", "ledger", "--org", firm.org],
    )
    assert extracted.exit_code == 0, extracted.output
    made = json.loads(extracted.output)["commitments"]
    assert {c["state"] for c in made} == {"extracted"} and len(made) == 3
    rejected = await asyncio.to_thread(
        CliRunner().invoke, cli_app, ["commit", "reject", made[0]["id"], "--reason", "no"]
    )
    assert rejected.exit_code == 0, rejected.output
    assert json.loads(rejected.output)["state"] == "rejected"
    assert stack.store.audit.verify(firm.org).ok
