"""A bearer ID token proves a person: outside identities linked to human principals,
and ``GET /v1/whoami`` (SQLite and PostgreSQL), with real RS256 tokens from the tests'
local issuer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text as sql

from adapters.store.store import Store
from api.http.app import create_app
from tests.identity import signed_in
from tests.support import TEST_AUDIENCE, TEST_ISSUER, Firm
from usecases.context import Ports


def _token(sub: str, **claims: Any) -> str:
    return TEST_ISSUER.mint(sub, TEST_AUDIENCE, claims=claims)


@pytest.fixture
def door(services: Ports) -> Iterator[TestClient]:
    """The API as deployed: bearer tokens only, no development header."""
    with TestClient(create_app(ports=services), raise_server_exceptions=False) as client:
        yield client


def _link(door: TestClient, firm: Firm, principal: str, subject: str) -> Any:
    return door.post(
        f"/v1/orgs/{firm.org}/identities",
        json={"principal_id": principal, "kind": "oidc", "external_id": subject},
        headers=signed_in(firm.svc, firm.founder),
    )


def test_a_linked_subject_proves_its_principal(door: TestClient, firm: Firm) -> None:
    assert _link(door, firm, firm.founder, "auth0|ada").status_code == 201
    me = door.get("/v1/whoami", headers={"Authorization": f"Bearer {_token('auth0|ada')}"})
    assert me.status_code == 200 and me.json()["id"] == firm.founder


def test_what_proves_nobody_is_a_401_with_its_reason(door: TestClient, firm: Firm) -> None:
    _link(door, firm, firm.founder, "auth0|ada")
    cases = {
        "unknown_subject": {"Authorization": f"Bearer {_token('auth0|mallory')}"},
        "expired": {"Authorization": f"Bearer {_token('auth0|ada', exp=int(time.time()) - 99)}"},
        "wrong_audience": {"Authorization": f"Bearer {_token('auth0|ada', aud='other')}"},
        "no_credentials": {},
        "malformed": {"Authorization": "Basic YWRhOnNlY3JldA=="},
    }
    for reason, headers in cases.items():
        got = door.get("/v1/whoami", headers=headers)
        assert got.status_code == 401, reason
        assert got.json()["reason"] == reason
        assert "eyJ" not in got.text and got.headers["www-authenticate"].startswith("Bearer")


def test_only_an_active_human_signs_in_and_an_identity_proves_one(
    door: TestClient, firm: Firm
) -> None:
    assert _link(door, firm, firm.agents["orion"], "svc|orion").status_code == 422
    assert _link(door, firm, firm.associate, "auth0|ben").status_code == 201
    assert _link(door, firm, firm.founder, "auth0|ben").status_code == 409
    as_ben = signed_in(firm.svc, firm.associate)
    refused = door.post(
        f"/v1/orgs/{firm.org}/identities",
        json={"principal_id": firm.associate, "kind": "oidc", "external_id": "x"},
        headers=as_ben,
    )
    assert refused.status_code == 403  # the founder's to configure


def test_no_issuer_configured_proves_nobody(services: Ports) -> None:
    app = create_app(ports=replace(services, tokens=None))
    with TestClient(app, raise_server_exceptions=False) as client:
        got = client.get("/v1/whoami", headers={"Authorization": f"Bearer {_token('auth0|ada')}"})
    assert got.status_code == 401 and got.json()["reason"] == "not_configured"


def test_an_identity_repointed_in_the_database_is_caught(
    door: TestClient, firm: Firm, store: Store
) -> None:
    _link(door, firm, firm.associate, "auth0|ben")
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(sql("update identities set principal_id = :p"), {"p": firm.founder})
    assert not store.audit.verify(firm.org).ok  # Ben's sign-in would have made him Ada
