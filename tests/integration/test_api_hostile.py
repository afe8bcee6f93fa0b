"""Hostile input at the HTTP door: oversized bodies, wrong content types, bytes that are
not UTF-8, deeply nested JSON and unknown fields each get a 4xx with a reason; never a
5xx, never a hung request."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from temporalio.testing import WorkflowEnvironment

from adapters.store.store import Store
from api.http.app import MAX_BODY_BYTES, create_app
from domain.organization.kinds import IdentityKind
from tests.support import Firm, make_settings, utc_now, wire
from usecases import commitments


def _memory(firm: Firm) -> tuple[str, dict[str, str]]:
    return f"/v1/orgs/{firm.org}/memory", {"X-Verletica-Principal": firm.founder}


def test_an_oversized_body_is_a_413(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    huge = json.dumps({"ref": "x", "projects": ["east"], "text": "a" * MAX_BODY_BYTES})
    got = api.post(url, content=huge, headers={**headers, "Content-Type": "application/json"})
    assert got.status_code == 413 and "bytes" in got.json()["detail"]


def test_a_body_that_lies_about_its_length_or_streams_past_the_limit_is_refused(
    api: TestClient, firm: Firm
) -> None:
    url, headers = _memory(firm)

    def chunks() -> object:
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"a" * 65536

    got = api.post(url, content=chunks(), headers={**headers, "Content-Type": "application/json"})
    assert got.status_code == 413


def test_a_wrong_content_type_is_a_415(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    body = json.dumps({"ref": "x", "projects": ["east"], "text": "hello"})
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "application/xml"):
        got = api.post(url, content=body, headers={**headers, "Content-Type": ctype})
        assert got.status_code == 415, ctype
        assert "application/json" in got.json()["detail"]


def test_bytes_that_are_not_utf8_are_a_4xx(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    body = b'{"ref": "x", "projects": ["east"], "text": "caf\xe9"}'
    got = api.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
    assert 400 <= got.status_code < 500


def test_deeply_nested_json_is_a_4xx(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    for depth in (100, 5000, 100_000):
        body = "[" * depth + "]" * depth
        got = api.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
        assert 400 <= got.status_code < 500, depth


def test_unknown_fields_are_a_422(api: TestClient, firm: Firm) -> None:
    url, headers = _memory(firm)
    got = api.post(
        url, json={"ref": "x", "projects": ["east"], "text": "hi", "admin": True}, headers=headers
    )
    assert got.status_code == 422 and "admin" in json.dumps(got.json())


# ------------------------------------------------------------------ issue 19, point 26
def _founder(firm: Firm) -> dict[str, str]:
    return {"X-Verletica-Principal": firm.founder}


def test_linking_an_identity_refuses_unknown_fields_and_nul_on_every_database(
    api: TestClient, firm: Firm
) -> None:
    url = f"/v1/orgs/{firm.org}/identities"
    good = {"principal_id": firm.associate, "kind": "oidc", "external_id": "okta|ben"}
    for body in (
        {**good, "admin": True},
        {**good, "external_id": "okta|ben\x00"},
        {**good, "principal_id": f"{firm.associate}\x00"},
    ):
        got = api.post(url, json=body, headers=_founder(firm))
        assert got.status_code == 422, (body, got.status_code, got.text)
    assert firm.svc.directory.identity(IdentityKind.OIDC, "okta|ben") is None
    made = api.post(url, json=good, headers=_founder(firm))
    assert made.status_code == 201, made.text


def _leaks(text: str) -> list[str]:
    """What a refusal must never show: pydantic's internals and a library's URL."""
    markers = ("pydantic", "errors.pydantic.dev", "https://", "input_value", "input_type")
    markers += ("validation error for", "[type=")
    return [m for m in markers if m in text]


@pytest.mark.parametrize(
    "window",
    [
        {"valid_from": "2027-06-01T00:00:00Z", "valid_until": "2027-01-01T00:00:00Z"},
        {"valid_until": "2001-01-01T00:00:00Z"},  # before now, where the window starts
    ],
)
def test_an_inverted_commitment_window_is_a_plain_422(
    api: TestClient, firm: Firm, window: dict[str, str]
) -> None:
    body = {
        "title": "Spend cap",
        "constraint": {"kind": "spend_cap", "limit_cents": 300_000},
        "source": "engagement letter",
        "projects": ["east"],
        **window,
    }
    got = api.post(f"/v1/orgs/{firm.org}/commitments", json=body, headers=_founder(firm))
    assert got.status_code == 422, got.text
    assert _leaks(got.text) == [], got.text
    assert "Value error" not in got.text
    # the record the server was building (its id, organization, times) is not shown
    assert firm.org not in got.text and "datetime" not in got.text and "tzinfo" not in got.text
    assert "valid_until must come after" in got.text
    detail = got.json()["detail"]
    assert len(detail if isinstance(detail, str) else detail[0]["msg"]) <= 200
    assert commitments.commitments(firm.svc, firm.org, firm.founder) == []


@pytest.mark.parametrize(
    "template",
    [
        "/v1/orgs/{org}/memory/records/{id}",
        "/v1/orgs/{org}/memory/records/{id}/explain",
        "/v1/orgs/{org}/memory/procedures/{id}",
        "/v1/runs/{id}",
        "/v1/commitments/{id}/reject",
        "/v1/orgs/{id}/projects",
    ],
)
def test_a_refusal_never_repeats_an_unknown_id_whole(
    api: TestClient, firm: Firm, template: str
) -> None:
    unknown = "z" * 5000
    path = template.format(org=firm.org, id=unknown)
    if template.endswith("/reject"):
        got = api.post(path, json={"reason": "no"}, headers=_founder(firm))
    else:
        got = api.get(path, headers=_founder(firm))
    assert got.status_code in (404, 422), (path[:80], got.status_code, got.text[:300])
    _bounded(got.json()["detail"], unknown)


def _bounded(detail: Any, unknown: str) -> None:
    """A refusal's detail: a message of at most 200 characters, or FastAPI's list of
    errors, neither repeating ``unknown`` whole."""
    text = detail if isinstance(detail, str) else json.dumps(detail)
    assert unknown not in text
    if isinstance(detail, str):
        assert len(detail) <= 200, detail


def test_an_unknown_field_with_a_long_name_is_not_repeated_whole(
    api: TestClient, firm: Firm
) -> None:
    name = "y" * 5000
    url, headers = _memory(firm)
    got = api.post(
        url, json={"ref": "x", "projects": ["east"], "text": "hi", name: 1}, headers=headers
    )
    assert got.status_code == 422
    _bounded(got.json()["detail"], name)


async def test_an_unknown_graph_or_deliberation_is_not_repeated_whole(
    temporal_env: WorkflowEnvironment, store: Store
) -> None:
    services = wire(store, temporal_env.client, make_settings(), utc_now)
    firm = Firm(services)
    app = create_app(ports=replace(services, dev_principal_header=True))
    unknown = "z" * 5000
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            for path in (f"/v1/graphs/{unknown}", f"/v1/deliberations/{unknown}"):
                got = await http.get(path, headers=_founder(firm))
                assert got.status_code in (404, 422, 503), (got.status_code, got.text[:300])
                _bounded(got.json()["detail"], unknown)
