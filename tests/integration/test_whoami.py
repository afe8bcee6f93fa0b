"""A bearer ID token proves a person: outside identities linked to human principals,
and ``GET /v1/whoami`` (SQLite and PostgreSQL), with real RS256 tokens from keys made
here and a key set in a file, as an issuer without discovery would give it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.testclient import TestClient
from jwt.algorithms import RSAAlgorithm
from sqlalchemy import text as sql

from adapters.ingress.oidc import FileKeys, KeySet, OidcVerifier
from adapters.store.store import Store
from api.app import create_app
from tests.conftest import Firm
from usecases.context import Ports

ISSUER, AUDIENCE = "https://id.harborvale.example", "verletica-api"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _token(sub: str, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600, **claims}
    return jwt.encode(body, KEY, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture
def door(services: Ports, tmp_path: Path) -> Iterator[TestClient]:
    jwks = tmp_path / "jwks.json"
    entry = {**RSAAlgorithm.to_jwk(KEY.public_key(), as_dict=True), "kid": "k1", "use": "sig"}
    jwks.write_text(json.dumps({"keys": [entry]}))
    verifier = OidcVerifier(ISSUER, AUDIENCE, KeySet(FileKeys(jwks)))
    app = create_app(ports=replace(services, tokens=verifier))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _link(door: TestClient, firm: Firm, principal: str, subject: str) -> Any:
    return door.post(
        f"/v1/orgs/{firm.org}/identities",
        json={"principal_id": principal, "kind": "oidc", "external_id": subject},
        headers={"X-Verletica-Principal": firm.founder},
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
        "malformed": {},
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
    as_ben = {"X-Verletica-Principal": firm.associate}
    refused = door.post(
        f"/v1/orgs/{firm.org}/identities",
        json={"principal_id": firm.associate, "kind": "oidc", "external_id": "x"},
        headers=as_ben,
    )
    assert refused.status_code == 403  # the founder's to configure


def test_no_issuer_configured_proves_nobody(api: TestClient) -> None:
    got = api.get("/v1/whoami", headers={"Authorization": f"Bearer {_token('auth0|ada')}"})
    assert got.status_code == 401 and got.json()["reason"] == "not_configured"


def test_an_identity_repointed_in_the_database_is_caught(
    door: TestClient, firm: Firm, store: Store
) -> None:
    _link(door, firm, firm.associate, "auth0|ben")
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(sql("update identities set principal_id = :p"), {"p": firm.founder})
    assert not store.audit.verify(firm.org).ok  # Ben's sign-in would have made him Ada
