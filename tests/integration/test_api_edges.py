"""Input at the edge of the HTTP API, on SQLite and PostgreSQL: out-of-range times, NUL
characters, huge bodies, internationalized addresses and ids of other organizations.
Each answer is a clear 4xx, never a 500."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from adapters.store.tables import RunRow
from api.http.app import create_app
from domain.governance.intents import Intent
from tests.support import Firm, utc_now, wire
from usecases import governance, organization, runs
from usecases.context import Ports

H = "X-Verletica-Principal"


def _as(firm: Firm) -> dict[str, str]:
    return {H: firm.founder}


# ------------------------------------------------------------------ times


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("staffing", {"project": "east", "valid_until": "9999-12-31T23:59:59-01:00"}),
        (
            "commitments",
            {
                "title": "c",
                "constraint": {"kind": "spend_cap", "limit_cents": 1},
                "source": "s",
                "valid_from": "0001-01-01T00:00:00+01:00",
            },
        ),
        (
            "commitments",
            {
                "title": "c",
                "constraint": {"kind": "spend_cap", "limit_cents": 1},
                "source": "s",
                "valid_until": "9999-12-31T23:59:59-01:00",
            },
        ),
    ],
)
def test_times_outside_the_utc_range_are_a_422(
    api: TestClient, firm: Firm, path: str, body: dict[str, Any]
) -> None:
    if path == "staffing":
        body = {**body, "principal_id": firm.agents["scout"]}
    r = api.post(f"/v1/orgs/{firm.org}/{path}", json=body, headers=_as(firm))
    assert r.status_code == 422, r.text
    assert "UTC" in r.text


def test_run_durations_are_bounded(api: TestClient, firm: Firm) -> None:
    r = api.post(
        f"/v1/orgs/{firm.org}/runs",
        json={
            "agent_id": firm.agents["ledger"],
            "task": "pay",
            "hold_timeout_seconds": 1_000_000_000_000,
        },
        headers=_as(firm),
    )
    assert r.status_code == 422
    assert "hold_timeout_seconds" in r.text


def test_the_use_case_bounds_run_durations_too(services: Ports, firm: Firm) -> None:
    with pytest.raises(ValueError, match="hold"):
        asyncio.run(
            runs.start_run(
                services,
                firm.org,
                firm.founder,
                runs.StartRun(firm.agents["ledger"], "pay", hold_timeout_seconds=1_000_000_000_000),
            )
        )
    with services.store.db.transaction() as s:
        assert s.execute(select(func.count()).select_from(RunRow)).scalar_one() == 0


# ------------------------------------------------------------------ NUL characters


def _nul_requests(firm: Firm) -> list[tuple[str, str, dict[str, Any] | None]]:
    org = f"/v1/orgs/{firm.org}"
    return [
        ("POST", "/v1/orgs", {"name": "Fir\u0000m", "founder_email": "f@firm.example"}),
        ("POST", f"{org}/humans", {"email": "eve@hv.example", "display_name": "E\u0000ve"}),
        ("POST", f"{org}/memory", {"ref": "nul", "projects": ["east"], "text": "a\u0000b"}),
        (
            "POST",
            f"{org}/commitments",
            {
                "title": "c\u0000",
                "constraint": {"kind": "spend_cap", "limit_cents": 1},
                "source": "s",
            },
        ),
        ("POST", f"{org}/runs", {"agent_id": firm.agents["orion"], "task": "mail\u0000"}),
        ("POST", "/v1/intents/%00/approve", {"approver_id": firm.founder}),
        ("GET", "/v1/runs/%00", None),
        ("GET", f"{org}/audit?verify=%00", None),
    ]


def test_nul_characters_are_refused_with_a_clear_reason(api: TestClient, firm: Firm) -> None:
    for method, path, body in _nul_requests(firm):
        r = api.request(method, path, json=body, headers=_as(firm))
        assert r.status_code == 422, (path, r.status_code, r.text)
        assert "NUL" in r.text, (path, r.text)


# ------------------------------------------------------------------ smaller things


def test_a_422_does_not_echo_a_huge_input(api: TestClient, firm: Firm) -> None:
    task = "x" * 1_000_000
    r = api.post(
        f"/v1/orgs/{firm.org}/runs",
        json={"agent_id": firm.agents["orion"], "task": task},
        headers=_as(firm),
    )
    assert r.status_code == 422
    assert len(r.content) < 4_000, len(r.content)
    assert "task" in r.text


@pytest.mark.parametrize(
    "email", ["josé@hv.example", "ünal@bücher.example", "李@例え.example", "o'neil@hv.example"]
)
def test_internationalized_addresses_are_accepted(api: TestClient, firm: Firm, email: str) -> None:
    r = api.post(
        f"/v1/orgs/{firm.org}/humans",
        json={"email": email, "display_name": "Colleague"},
        headers=_as(firm),
    )
    assert r.status_code == 201, r.text
    assert r.json()["handle"]
    founded = api.post("/v1/orgs", json={"name": "Intl", "founder_email": email})
    assert founded.status_code == 201, founded.text


@pytest.mark.parametrize("email", ["not-an-email", "a@b@c.example", "@hv.example", "a@"])
def test_bad_addresses_are_refused_clearly(api: TestClient, firm: Firm, email: str) -> None:
    r = api.post(
        f"/v1/orgs/{firm.org}/humans",
        json={"email": email, "display_name": "Colleague"},
        headers=_as(firm),
    )
    assert r.status_code == 422
    assert "email" in r.text.lower()
    assert "pydantic" not in r.text.lower()


def test_two_colleagues_with_one_local_part_get_distinct_handles(
    api: TestClient, firm: Firm
) -> None:
    handles = {
        api.post(
            f"/v1/orgs/{firm.org}/humans",
            json={"email": email, "display_name": "Sam"},
            headers=_as(firm),
        ).json()["handle"]
        for email in ("sam@a.example", "sam@b.example", "Sam@c.example")
    }
    assert len(handles) == 3


def test_another_organizations_ids_look_unknown(
    api: TestClient, firm: Firm, services: Ports
) -> None:
    other = organization.onboard(services, "Other", "eve@other.example")
    eve = {H: other.founder.id}
    run = RunRow(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        agent_id=firm.agents["orion"],
        task="t",
        workflow_id="agent-run-x",
        created_at=utc_now(),
    )
    services.store.runs.create(run)
    intent = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=run.id,
        principal_id=firm.agents["orion"],
        tool="email.send",
        projects=("east",),
        payload={"to": "a@b.example", "subject": "s", "body": "b"},
        cost_cents=0,
        justification="j",
    )
    governance.decide(services.store.governance, intent, utc_now())
    unknown = str(uuid.uuid4())
    for path in (f"/v1/runs/{run.id}", f"/v1/runs/{unknown}"):
        r = api.get(path, headers=eve)
        assert r.status_code == 404, (path, r.text)
    for intent_id in (intent.id, unknown):
        r = api.post(
            f"/v1/intents/{intent_id}/approve", json={"approver_id": other.founder.id}, headers=eve
        )
        assert r.status_code == 404, r.text
    for org in (firm.org, unknown):
        assert api.get(f"/v1/orgs/{org}/audit", headers=eve).status_code == 404
        assert api.get(f"/v1/orgs/{org}/projects", headers=eve).status_code == 404
        r = api.post(f"/v1/orgs/{org}/projects", json={"slug": "x", "name": "x"}, headers=eve)
        assert r.status_code == 404
    # a member without the right still learns nothing new from a 403
    r = api.post(
        f"/v1/orgs/{firm.org}/projects",
        json={"slug": "x", "name": "x"},
        headers={H: firm.associate},
    )
    assert r.status_code == 403


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("barriers", {"name": "w", "groups": [["east"] * 3, ["west"]]}, "twice"),
        (
            "commitments",
            {
                "title": "x",
                "constraint": {"kind": "obligation", "text": "a" * 10**5},
                "source": "s",
            },
            "text",
        ),
        (
            "commitments",
            {
                "title": "x",
                "constraint": {"kind": "spend_cap", "limit_cents": 1, "currency": "x" * 1000},
                "source": "s",
            },
            "currency",
        ),
    ],
)
def test_sizes_and_shapes_are_bounded(
    api: TestClient, firm: Firm, path: str, body: dict[str, Any], says: str
) -> None:
    r = api.post(f"/v1/orgs/{firm.org}/{path}", json=body, headers=_as(firm))
    assert r.status_code == 422, r.text
    assert says in r.text
    assert len(r.content) < 4_000


def test_a_lone_surrogate_is_a_clear_422(api: TestClient, firm: Firm) -> None:
    r = api.post(
        "/v1/orgs",
        content=b'{"name": "A\\ud800", "founder_email": "a@b.example"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422, r.text
    assert "surrogate" in r.text


def test_an_associate_reads_only_runs_within_their_projects(
    api: TestClient, firm: Firm, services: Ports
) -> None:
    """Ben is staffed on east only: a west run does not exist for him, and the payloads of
    west's entries in the audit trail are withheld; the founder reads everything."""
    runs = {}
    for side, agent in (("east", "orion"), ("west", "vega")):
        run = RunRow(
            id=str(uuid.uuid4()),
            org_id=firm.org,
            agent_id=firm.agents[agent],
            task=f"a {side} task",
            workflow_id=f"agent-run-{side}",
            started_by=firm.founder,
            projects=[side],
            created_at=utc_now(),
        )
        services.store.runs.create(run)
        intent = Intent(
            id=str(uuid.uuid4()),
            org_id=firm.org,
            run_id=run.id,
            principal_id=firm.agents[agent],
            tool="email.send",
            projects=(side,),
            payload={"to": f"cfo@{side}.example", "subject": "s", "body": f"{side} secret"},
            cost_cents=0,
            justification="j",
        )
        governance.decide(services.store.governance, intent, utc_now())
        runs[side] = (run, intent)
    ben = {H: firm.associate}
    west_run, west_intent = runs["west"]
    east_run, east_intent = runs["east"]
    # the run view needs Temporal; without it, a readable run answers 503, an unreadable 404
    assert api.get(f"/v1/runs/{west_run.id}", headers=ben).status_code == 404
    assert api.get(f"/v1/runs/{east_run.id}", headers=ben).status_code == 503
    assert api.get(f"/v1/runs/{west_run.id}", headers=_as(firm)).status_code == 503
    r = api.post(
        f"/v1/intents/{west_intent.id}/approve", json={"approver_id": firm.associate}, headers=ben
    )
    assert r.status_code == 404
    trail = api.get(f"/v1/orgs/{firm.org}/audit?verify=true", headers=ben).json()
    assert trail["verification"]["ok"] is True
    text = str(trail["entries"])
    assert "east secret" in text and "west secret" not in text
    assert "west secret" in str(api.get(f"/v1/orgs/{firm.org}/audit", headers=_as(firm)).json())


def test_instants_read_back_whatever_the_servers_time_zone(postgres_url: str) -> None:
    """A PostgreSQL server set to a far time zone must not turn an instant near the
    bounds into one it cannot read back."""
    from adapters.store.store import Store
    from tests.support import TEST_KEYS, make_settings

    for zone in ("Pacific/Kiritimati", "Etc/GMT+12"):
        url = f"{postgres_url}?options={quote(f'-c timezone={zone}', safe='')}"
        store = Store.open(url, TEST_KEYS, migrate_schema=False)
        try:
            svc = wire(store, None, make_settings(), utc_now)
            firm = Firm(svc)
            dev = replace(svc, dev_principal_header=True)  # routes, not proofs, are tested here
            with TestClient(create_app(svc.settings, dev)) as client:
                for field, value in (
                    ("valid_until", "8999-12-31T23:59:59Z"),
                    ("valid_from", "1900-01-01T00:00:00Z"),
                ):
                    body = {
                        "title": "c",
                        "constraint": {"kind": "spend_cap", "limit_cents": 1},
                        "source": "s",
                        field: value,
                    }
                    r = client.post(
                        f"/v1/orgs/{firm.org}/commitments", json=body, headers=_as(firm)
                    )
                    assert r.status_code == 201, r.text
                listed = client.get(f"/v1/orgs/{firm.org}/commitments", headers=_as(firm))
                assert listed.status_code == 200, listed.text
            intent = Intent(
                id=str(uuid.uuid4()),
                org_id=firm.org,
                run_id="r",
                principal_id=firm.agents["orion"],
                tool="email.send",
                projects=("east",),
                payload={"to": "a@client.example", "subject": "s", "body": "b"},
                cost_cents=0,
                justification="j",
            )
            assert governance.decide(store.governance, intent, utc_now()).outcome == "allow"
            assert store.audit.verify(firm.org).ok
        finally:
            store.close()
