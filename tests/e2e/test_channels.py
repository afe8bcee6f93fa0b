"""Slack and Teams at the front door, end to end: a signed message from a linked person
starts exactly one agent run (also when delivered twice), which the worker carries to the
end on the real dev server; a stale, forged, unknown or over-budget one starts nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from api.http.app import create_app
from domain.ingress import BudgetCeilings
from domain.organization.kinds import IdentityKind
from tests.identity import link_chat, signed_in
from tests.support import TEST_KEYS, Firm, make_settings, until, utc_now, wire
from usecases import runs
from usecases.context import Ports
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal

SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TEAMS_SECRET = base64.b64encode(b"teams-outgoing-webhook-shared-secret").decode()
TASK = "Send the Atlas client the kickoff agenda."
TENANT = "7f1d-harbor-tenant"


@dataclass
class Door:
    http: httpx.AsyncClient
    services: Ports
    firm: Firm
    task_queue: str
    env: WorkflowEnvironment


@pytest.fixture
async def door(temporal_env: WorkflowEnvironment, db_url: str) -> AsyncIterator[Door]:
    settings = make_settings(
        model_provider="replay",
        database_url=db_url,
        slack_signing_secret=SLACK_SECRET,
        teams_hmac_secret=TEAMS_SECRET,
    )
    store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    services = wire(store, temporal_env.client, settings, utc_now)
    firm = Firm(services)
    for kind, external in (
        (IdentityKind.SLACK, "T0HARBOR:U0BEN"),
        (IdentityKind.TEAMS, f"{TENANT}:aad-ben"),
    ):
        link_chat(services, firm.associate, kind, external)
    app = create_app(settings, services)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://verletica") as http:
            async with build_worker(temporal_env.client, settings, store):
                yield Door(http, services, firm, settings.task_queue, temporal_env)
    store.close()


def _slack(body: bytes, at: float | None = None, secret: str = SLACK_SECRET) -> dict[str, str]:
    timestamp = str(int(time.time() if at is None else at))
    base = b"v0:" + timestamp.encode() + b":" + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature,
        "Content-Type": "application/x-www-form-urlencoded",
    }


def _slash(user: str, text: str, trigger: str) -> bytes:
    fields = {
        "token": "deprecated",
        "team_id": "T0HARBOR",
        "user_id": user,
        "command": "/verletica",
        "text": text,
        "trigger_id": trigger,
    }
    return urlencode(fields).encode()


def _teams(activity: str, user: str, text: str, sent: datetime | None = None) -> bytes:
    return json.dumps(
        {
            "type": "message",
            "id": activity,
            "timestamp": (sent or datetime.now(UTC)).isoformat().replace("+00:00", "Z"),
            "from": {"id": "29:teams-user", "name": "Ben", "aadObjectId": user},
            "conversation": {"id": "19:channel"},
            "channelData": {"tenant": {"id": TENANT}},
            "text": f"<at>Verletica</at> {text}",
        }
    ).encode()


def _teams_headers(body: bytes, secret: str = TEAMS_SECRET) -> dict[str, str]:
    mac = hmac.new(base64.b64decode(secret), body, hashlib.sha256).digest()
    return {
        "Authorization": f"HMAC {base64.b64encode(mac).decode()}",
        "Content-Type": "application/json",
    }


async def _workflows(door: Door) -> int:
    """Workflows Temporal has on this test's task queue, once two reads in a row agree
    (visibility catches up quickly)."""
    counts: list[int] = []

    async def last_two() -> list[int]:
        got = await door.env.client.count_workflows(f"TaskQueue = '{door.task_queue}'")
        counts.append(got.count)
        return counts[-2:]

    settled = await until(
        last_two,
        accept=lambda last: len(last) == 2 and last[0] == last[1],
        timeout=30,
        what="the count of workflows settles",
    )
    return settled[0]


async def _finished(door: Door, run_id: str) -> str:
    view = await until(
        lambda: runs.run_view(door.services, run_id, door.firm.founder),
        accept=lambda v: v.workflow_status != "running",
        interval=0.2,
        what=f"run {run_id} finishes",
    )
    return view.workflow_status


async def test_a_slack_command_starts_one_run_also_when_delivered_twice(door: Door) -> None:
    body = _slash("U0BEN", f"orion {TASK}", trigger="13345224609.738474920.8088930838d88f0")
    headers = _slack(body)
    first = await door.http.post("/v1/ingress/slack", content=body, headers=headers)
    assert first.status_code == 200, first.text
    started = first.json()
    assert started["created"] is True and started["response_type"] == "ephemeral"
    # the same bytes again: a replay
    again = await door.http.post("/v1/ingress/slack", content=body, headers=headers)
    assert again.status_code == 401 and again.json()["reason"] == "replayed"
    # Slack's retry: signed anew a second later, the same trigger
    retry = await door.http.post(
        "/v1/ingress/slack", content=body, headers=_slack(body, time.time() + 1)
    )
    assert retry.status_code == 200 and retry.json()["run_id"] == started["run_id"]
    assert retry.json()["created"] is False
    assert await _finished(door, started["run_id"]) == "completed"
    view = await runs.run_view(door.services, started["run_id"], door.firm.founder)
    assert view.state is not None and view.state.status == "completed"
    assert await _workflows(door) == 1


async def test_a_slack_event_callback_and_url_verification(door: Door) -> None:
    challenge = json.dumps({"type": "url_verification", "challenge": "3eZbrw1aB"}).encode()
    got = await door.http.post(
        "/v1/ingress/slack",
        content=challenge,
        headers={**_slack(challenge), "Content-Type": "application/json"},
    )
    assert got.json() == {"challenge": "3eZbrw1aB"}
    event = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T0HARBOR",
            "event_id": "Ev0HARBOR1",
            "event": {
                "type": "app_mention",
                "user": "U0BEN",
                "text": f"<@U0VERLETICA> orion {TASK}",
            },
        }
    ).encode()
    started = await door.http.post(
        "/v1/ingress/slack",
        content=event,
        headers={**_slack(event), "Content-Type": "application/json"},
    )
    assert started.status_code == 200 and started.json()["created"] is True, started.text
    assert await _finished(door, started.json()["run_id"]) == "completed"


async def test_a_teams_message_starts_one_run_also_when_delivered_twice(door: Door) -> None:
    body = _teams(f"1:act-{uuid.uuid4().hex}", "aad-ben", f"orion {TASK}")
    first = await door.http.post("/v1/ingress/teams", content=body, headers=_teams_headers(body))
    assert first.status_code == 200, first.text
    answer = first.json()
    assert answer["type"] == "message" and answer["created"] is True
    again = await door.http.post("/v1/ingress/teams", content=body, headers=_teams_headers(body))
    assert again.status_code == 401 and again.json()["reason"] == "replayed"
    assert await _finished(door, answer["run_id"]) == "completed"
    assert await _workflows(door) == 1


async def test_what_proves_nothing_starts_nothing(door: Door) -> None:
    slash = _slash("U0BEN", f"orion {TASK}", trigger="t-1")
    teams = _teams("1:act-refused", "aad-ben", f"orion {TASK}")
    cases = {
        "stale_timestamp": ("slack", slash, _slack(slash, time.time() - 600)),
        "bad_signature": ("slack", slash, _slack(slash, secret="another-secret-entirely-000")),
        "bad_signature/teams": (
            "teams",
            teams,
            _teams_headers(teams, base64.b64encode(b"x" * 32).decode()),
        ),
        "stale_timestamp/teams": (
            "teams",
            _teams("1:old", "aad-ben", TASK, datetime.now(UTC) - timedelta(minutes=30)),
            None,
        ),
        "malformed": ("teams", b'{"type": "message"}', None),
    }
    for reason, (channel, body, headers) in cases.items():
        if headers is None:
            headers = _slack(body) if channel == "slack" else _teams_headers(body)
        got = await door.http.post(f"/v1/ingress/{channel}", content=body, headers=headers)
        assert got.status_code == 401, (reason, got.text)
        assert got.json()["reason"] == reason.split("/")[0], (reason, got.text)
    # an account that proves nobody is told how its owner links it, and starts nothing
    stranger = _slash("U0MALLORY", f"orion {TASK}", "t-2")
    told = await door.http.post("/v1/ingress/slack", content=stranger, headers=_slack(stranger))
    assert told.status_code == 200, told.text
    assert "not linked to you at your firm" in told.json()["text"]
    assert "/verletica link <code>" in told.json()["text"] and "run_id" not in told.json()
    refusals = door.services.front_door.refusals(50)  # type: ignore[union-attr]
    assert any(r.reason.value == "unknown_subject" and r.channel == "slack" for r in refusals)
    # a person who is known, but whose budget is spent
    spent = replace(door.services, budgets=BudgetCeilings(requests_per_principal=0))
    app = create_app(ports=spent)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://v") as http,
    ):
        body = _slash("U0BEN", f"orion {TASK}", "t-3")
        got = await http.post("/v1/ingress/slack", content=body, headers=_slack(body))
        assert got.status_code == 401 and got.json()["reason"] == "over_budget"
    assert door.services.runs.by_client_key(door.firm.org, "slack:t-3") is None
    assert await _workflows(door) == 0
    # an unknown agent or a bare word tells the sender what to write, and starts nothing
    body = _slash("U0BEN", "nobody do it", "t-4")
    told = (await door.http.post("/v1/ingress/slack", content=body, headers=_slack(body))).json()
    assert "No agent 'nobody'" in told["text"] and "orion" in told["text"]
    assert await _workflows(door) == 0


async def test_refused_tokens_start_no_workflow(door: Door) -> None:
    """Every bad token, replay and spent budget of the front door's tests, sent to the
    route that starts runs, with the worker and the dev server behind it."""
    from tests.integration.test_ingress_front_door import _bad_tokens

    body = {"agent_id": door.firm.agents["orion"], "task": TASK}
    path = f"/v1/orgs/{door.firm.org}/runs"
    for reason, token in _bad_tokens(door.firm).items():
        headers = {"Authorization": f"Bearer {token}", "X-Verletica-Nonce": uuid.uuid4().hex}
        got = await door.http.post(path, json=body, headers=headers)
        assert got.status_code == 401 and got.json()["reason"] == reason.split("/")[0], reason
    good = signed_in(door.services, door.firm.founder)
    started = await door.http.post(path, json=body, headers=good)
    assert started.status_code == 201, started.text
    replayed = await door.http.post(path, json=body, headers=good)
    assert replayed.status_code == 401 and replayed.json()["reason"] == "replayed"
    assert await _finished(door, started.json()["run_id"]) == "completed"
    assert await _workflows(door) == 1  # the one with a good token, once
