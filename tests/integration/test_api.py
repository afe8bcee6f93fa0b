"""The HTTP API refuses bad input with clear 4xx answers and never answers 500."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from adapters.store.store import Store
from api.http.app import create_app
from tests.identity import signed_in
from tests.support import Firm, wire
from usecases import organization
from usecases.context import Ports

H = "X-Verletica-Principal"


def test_onboarding_returns_founder_and_fleet(api: TestClient) -> None:
    r = api.post("/v1/orgs", json={"name": "Firm", "founder_email": "f@firm.example"})
    assert r.status_code == 201
    body = r.json()
    kinds = {a["agent_kind"] for a in body["agents"]}
    assert {"planner", "finance", "diagnostic", "research"} <= kinds


@pytest.mark.parametrize(
    "body",
    [
        {"name": "Firm"},
        {"name": "", "founder_email": "f@firm.example"},
        {"name": "Firm", "founder_email": "not-an-email"},
        {"name": "Firm", "founder_email": "f@firm.example", "admin": True},
    ],
)
def test_bad_onboarding_bodies_are_refused(api: TestClient, body: dict[str, Any]) -> None:
    assert api.post("/v1/orgs", json=body).status_code == 422


def test_configuration_is_the_founders(api: TestClient, firm: Firm) -> None:
    as_ben = {H: firm.associate}
    assert (
        api.post(
            f"/v1/orgs/{firm.org}/projects", json={"slug": "north", "name": "N"}, headers=as_ben
        ).status_code
        == 403
    )
    anonymous = api.post(f"/v1/orgs/{firm.org}/projects", json={"slug": "north", "name": "N"})
    assert anonymous.status_code == 401 and anonymous.json()["reason"] == "no_credentials"
    ok = api.post(
        f"/v1/orgs/{firm.org}/projects",
        json={"slug": "north", "name": "N"},
        headers={H: firm.founder},
    )
    assert ok.status_code == 201
    dup = api.post(
        f"/v1/orgs/{firm.org}/projects",
        json={"slug": "north", "name": "N"},
        headers={H: firm.founder},
    )
    assert dup.status_code == 409


def test_an_agent_cannot_act_as_a_human_through_the_api(api: TestClient, firm: Firm) -> None:
    r = api.get(f"/v1/orgs/{firm.org}/audit", headers={H: firm.agents["orion"]})
    assert r.status_code == 403


def test_barriers_must_be_disjoint_and_name_known_projects(api: TestClient, firm: Firm) -> None:
    as_founder = {H: firm.founder}
    overlap = api.post(
        f"/v1/orgs/{firm.org}/barriers",
        json={"name": "w", "groups": [["east"], ["east", "west"]]},
        headers=as_founder,
    )
    assert overlap.status_code == 422
    unknown = api.post(
        f"/v1/orgs/{firm.org}/barriers",
        json={"name": "w", "groups": [["east"], ["mars"]]},
        headers=as_founder,
    )
    assert unknown.status_code == 404


def test_commitments_bind_only_after_one_confirmation(api: TestClient, firm: Firm) -> None:
    as_founder = {H: firm.founder}
    c = api.post(
        f"/v1/orgs/{firm.org}/commitments",
        json={
            "title": "cap",
            "constraint": {"kind": "spend_cap", "limit_cents": 100},
            "source": "letter",
        },
        headers=as_founder,
    ).json()
    assert c["state"] == "extracted"
    assert (
        api.post(f"/v1/commitments/{c['id']}/confirm", headers={H: firm.associate}).status_code
        == 403
    )
    assert (
        api.post(f"/v1/commitments/{c['id']}/confirm", headers=as_founder).json()["state"]
        == "confirmed"
    )
    assert api.post(f"/v1/commitments/{c['id']}/confirm", headers=as_founder).status_code == 409


def test_a_given_reply_is_refused_when_a_real_model_answers(services: Ports, firm: Firm) -> None:
    live = wire(
        services.store,
        None,
        services.settings.model_copy(
            update={"model_provider": "gemini", "gemini_api_key": SecretStr("k")}
        ),
        services.clock,
    )
    with TestClient(create_app(live.settings, live), raise_server_exceptions=False) as client:
        r = client.post(
            f"/v1/orgs/{firm.org}/runs",
            json={"agent_id": firm.agents["orion"], "task": "t", "scripted_reply": "{}"},
            headers=signed_in(live, firm.founder),
        )
    assert r.status_code == 403
    assert "no real model answers" in r.json()["detail"]


def test_unknown_things_are_404(api: TestClient, firm: Firm) -> None:
    assert api.get("/v1/orgs/nope/audit", headers={H: firm.founder}).status_code == 404
    assert api.post("/v1/commitments/nope/confirm", headers={H: firm.founder}).status_code == 404
    assert (
        api.post(
            "/v1/intents/nope/approve",
            json={"approver_id": firm.founder},
            headers={H: firm.founder},
        ).status_code
        == 404
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=15,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    body=JSON,
    path=st.sampled_from(
        ["projects", "staffing", "barriers", "commitments", "memory", "runs", "humans"]
    ),
)
def test_arbitrary_bodies_never_cause_a_server_error(
    api: TestClient, firm: Firm, body: Any, path: str
) -> None:
    r = api.post(f"/v1/orgs/{firm.org}/{path}", json=body, headers={H: firm.founder})
    assert r.status_code < 500, r.text


def test_approvers_speak_only_for_themselves(api: TestClient, firm: Firm) -> None:
    body = {"approver_id": firm.founder}
    forged = api.post("/v1/intents/any/approve", json=body, headers={H: firm.associate})
    assert forged.status_code == 403
    assert api.post("/v1/intents/any/deny", json=body).status_code == 401


def test_runs_are_private_to_their_organization(
    api: TestClient, firm: Firm, services: Ports
) -> None:
    other = organization.onboard(services, "Other", "eve@other.example")
    assert api.get("/v1/runs/none").status_code == 401
    assert api.get("/v1/runs/none", headers={H: other.founder.id}).status_code == 404


def test_onboarding_is_atomic_and_avoids_the_fleets_handles(api: TestClient) -> None:
    r = api.post("/v1/orgs", json={"name": "Firm", "founder_email": "ledger@firm.example"})
    assert r.status_code == 201
    handles = {a["handle"] for a in r.json()["agents"]}
    assert "ledger" in handles
    founder = api.get(
        f"/v1/orgs/{r.json()['org_id']}/principals", headers={H: r.json()["founder_id"]}
    ).json()
    assert any(p["handle"] == "ledger-founder" for p in founder)


def test_memory_records_are_checked(api: TestClient, firm: Firm) -> None:
    as_founder = {H: firm.founder}
    path = f"/v1/orgs/{firm.org}/memory"
    assert (
        api.post(
            path, json={"ref": "birch-cim", "projects": ["west"], "text": "t"}, headers=as_founder
        ).status_code
        == 409
    )
    assert (
        api.post(
            path, json={"ref": "ghost", "projects": ["mars"], "text": "t"}, headers=as_founder
        ).status_code
        == 404
    )
    both = api.post(
        path, json={"ref": "both", "projects": ["east", "west"], "text": "t"}, headers=as_founder
    )
    assert both.status_code == 422


def test_agents_are_never_staffed_across_a_barrier(api: TestClient, firm: Firm) -> None:
    r = api.post(
        f"/v1/orgs/{firm.org}/staffing",
        json={"principal_id": firm.agents["orion"], "project": "west"},
        headers={H: firm.founder},
    )
    assert r.status_code == 409 and "both sides" in r.json()["detail"]
    # a new barrier may not split an agent's existing staffing either
    api.post(
        f"/v1/orgs/{firm.org}/projects",
        json={"slug": "north", "name": "N"},
        headers={H: firm.founder},
    )
    api.post(
        f"/v1/orgs/{firm.org}/staffing",
        json={"principal_id": firm.agents["scout"], "project": "north"},
        headers={H: firm.founder},
    )
    api.post(
        f"/v1/orgs/{firm.org}/staffing",
        json={"principal_id": firm.agents["scout"], "project": "east"},
        headers={H: firm.founder},
    )
    split = api.post(
        f"/v1/orgs/{firm.org}/barriers",
        json={"name": "n", "groups": [["north"], ["east"]]},
        headers={H: firm.founder},
    )
    assert split.status_code == 409 and "scout" in split.json()["detail"]


def test_times_and_windows_are_validated(api: TestClient, firm: Firm) -> None:
    as_founder = {H: firm.founder}
    past = api.post(
        f"/v1/orgs/{firm.org}/staffing",
        json={
            "principal_id": firm.agents["scout"],
            "project": "east",
            "valid_until": "2001-01-01T00:00:00Z",
        },
        headers=as_founder,
    )
    assert past.status_code == 422
    naive = api.post(
        f"/v1/orgs/{firm.org}/staffing",
        json={
            "principal_id": firm.agents["scout"],
            "project": "east",
            "valid_until": "2031-01-01T00:00:00",
        },
        headers=as_founder,
    )
    assert naive.status_code == 422
    inverted = api.post(
        f"/v1/orgs/{firm.org}/commitments",
        json={
            "title": "c",
            "constraint": {"kind": "spend_cap", "limit_cents": 1},
            "source": "s",
            "valid_from": "2030-01-01T00:00:00Z",
            "valid_until": "2029-01-01T00:00:00Z",
        },
        headers=as_founder,
    )
    assert inverted.status_code == 422
    short = api.post(
        f"/v1/orgs/{firm.org}/runs",
        json={"agent_id": firm.agents["orion"], "task": "t", "hold_timeout_seconds": 1},
        headers=as_founder,
    )
    assert short.status_code == 422


def test_runs_without_temporal_are_a_clear_503(api: TestClient, firm: Firm) -> None:
    r = api.post(
        f"/v1/orgs/{firm.org}/runs",
        json={"agent_id": firm.agents["orion"], "task": "t"},
        headers={H: firm.founder},
    )
    assert r.status_code == 503
    assert "Temporal" in r.json()["detail"]


def test_the_memory_read_log_is_the_founders(api: TestClient, firm: Firm, store: Store) -> None:
    store.memory.recall(
        asker_principal_id=firm.agents["vega"],
        org_id=firm.org,
        query="Birch CIM",
        now=firm.svc.clock(),
        on_behalf_of=firm.associate,
    )
    r = api.get(f"/v1/orgs/{firm.org}/memory/reads", headers={H: firm.founder})
    assert r.status_code == 200, r.text
    (read,) = r.json()
    assert (read["asker_id"], read["on_behalf_of"], read["released"], read["outcome"]) == (
        firm.agents["vega"],
        firm.associate,
        [],
        "withheld",
    )
    assert (
        api.get(f"/v1/orgs/{firm.org}/memory/reads", headers={H: firm.associate}).status_code == 403
    )
    assert api.get("/v1/orgs/nope/memory/reads", headers={H: firm.founder}).status_code == 404


def test_memory_query_and_records_through_the_api(api: TestClient, firm: Firm) -> None:
    ben = {H: firm.associate}
    r = api.post(
        f"/v1/orgs/{firm.org}/memory/query", json={"text": "Atlas kickoff", "k": 3}, headers=ben
    )
    assert r.status_code == 200, r.text
    assert [h["view"]["ref"] for h in r.json()["hits"]] == ["atlas-kickoff"]
    assert (
        api.get(f"/v1/orgs/{firm.org}/memory/records/atlas-kickoff", headers=ben).json()["release"]
        == "whole"
    )
    assert api.get(f"/v1/orgs/{firm.org}/memory/records/birch-cim", headers=ben).status_code == 404
    bad = api.post(f"/v1/orgs/{firm.org}/memory/query", json={"text": "x", "k": 99}, headers=ben)
    assert bad.status_code == 422


def test_memory_links_neighbours_and_explanations_through_the_api(
    api: TestClient, firm: Firm
) -> None:
    ada, ben = {H: firm.founder}, {H: firm.associate}
    base = f"/v1/orgs/{firm.org}/memory"
    crossing = {"src": "atlas-kickoff", "dst": "birch-cim", "kind": "relates"}
    assert api.post(f"{base}/links", json=crossing, headers=ada).status_code == 422
    assert api.post(f"{base}/links", json=crossing, headers=ben).status_code == 403
    api.post(
        base, json={"ref": "atlas-brief", "projects": ["east"], "text": "Atlas brief"}, headers=ada
    )
    made = api.post(
        f"{base}/links",
        json={"src": "atlas-brief", "dst": "atlas-kickoff", "kind": "derived_from", "span": [0, 5]},
        headers=ada,
    )
    assert made.status_code == 201, made.text
    explained = api.get(f"{base}/records/atlas-brief/explain", headers=ben).json()
    assert [s["source"] for s in explained["steps"]] == ["Atlas"]
    near = api.get(f"{base}/records/atlas-kickoff/neighbours", headers=ben).json()
    assert [n["view"]["ref"] for n in near["neighbours"]] == ["atlas-brief"]
    assert api.get(f"{base}/records/birch-cim/explain", headers=ben).status_code == 404


def test_procedures_are_versioned_and_gated_through_the_api(api: TestClient, firm: Firm) -> None:
    ada, ben = {H: firm.founder}, {H: firm.associate}
    base = f"/v1/orgs/{firm.org}/memory/procedures"
    for steps in (["Send the agenda."], ["Send the agenda.", "Book the room."]):
        r = api.post(
            base,
            json={"name": "atlas-kickoff-prep", "projects": ["east"], "steps": steps},
            headers=ada,
        )
        assert r.status_code == 201, r.text
    assert r.json() == {"version": 2}
    newest = api.get(f"{base}/atlas-kickoff-prep", headers=ben).json()
    assert (newest["version"], newest["steps"]) == (2, ["Send the agenda.", "Book the room."])
    first = api.get(f"{base}/atlas-kickoff-prep?version=1", headers=ben).json()
    assert first["steps"] == ["Send the agenda."]
    api.post(
        base, json={"name": "birch-close", "projects": ["west"], "steps": ["Close."]}, headers=ada
    )
    assert api.get(f"{base}/birch-close", headers=ben).status_code == 404
    assert (
        api.post(
            base, json={"name": "x", "projects": ["east"], "steps": ["a"]}, headers=ben
        ).status_code
        == 403
    )
    assert (
        api.post(
            base, json={"name": "x", "projects": ["east"], "steps": []}, headers=ada
        ).status_code
        == 422
    )
