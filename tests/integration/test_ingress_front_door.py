"""The front door, attacked through the HTTP API (SQLite and PostgreSQL): every route
that reads or acts needs a proof; bad tokens, replays and spent budgets are refused with
their reason, recorded without the credential, and change nothing; the development
header is honoured only where it was asked for."""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jwt.algorithms import RSAAlgorithm

from adapters.ingress.local_issuer import LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.store.store import Store
from api.http.app import create_app
from domain.ingress import BudgetCeilings, Refusal
from tests.identity import signed_in
from tests.oidc_keys import jwk_numbers, roca_key, short_key
from tests.support import (
    TEST_AUDIENCE,
    TEST_ISSUER,
    TEST_KEYS,
    Firm,
    StaticKeys,
    make_settings,
    wire,
)
from usecases.context import Ports
from worker.settings import Settings

OPEN = {("GET", "/healthz"), ("GET", "/v1/whoami"), ("POST", "/v1/ingress/slack")}
OPEN |= {("POST", "/v1/ingress/teams"), ("GET", "/v1/audit/keys")}
"""Routes with a proof of their own (a token checked in the route, a channel signature),
and the audit log's public keys, which are published for anyone to verify with."""


@pytest.fixture
def door(services: Ports) -> Iterator[TestClient]:
    """The API as deployed: bearer tokens only."""
    with TestClient(create_app(ports=services), raise_server_exceptions=False) as client:
        yield client


def _projects(firm: Firm) -> set[str]:
    return {p.slug for p in firm.svc.directory.projects(firm.org)}


def _b64(data: dict[str, Any]) -> str:
    raw = json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def test_every_route_that_reads_or_acts_needs_a_proof(door: TestClient, firm: Firm) -> None:
    checked = 0
    for template, operations in door.get("/openapi.json").json()["paths"].items():
        for method in (m.upper() for m in operations):
            if (method, template) in OPEN:
                continue
            path = re.sub(r"\{[a-z_]+\}", "x", template.replace("{org_id}", firm.org))
            for headers in ({}, {"X-Verletica-Principal": firm.founder}):
                got = door.request(method, path, json={}, headers=headers)
                assert got.status_code == 401, (method, path, got.text)
                assert got.json()["reason"] == "no_credentials"
            checked += 1
    assert checked >= 25  # every organization route, onboarding included


def _bad_tokens(firm: Firm) -> dict[str, str]:
    """Tokens the door must refuse, by the reason it must give."""
    subject = f"sub-{firm.founder}"
    signed_in(firm.svc, firm.founder)  # link the subject
    good = TEST_ISSUER.mint(subject, TEST_AUDIENCE)
    head, body, _ = good.split(".")
    claims = jwt.decode(good, options={"verify_signature": False})
    tampered = _b64({**claims, "sub": f"sub-{firm.associate}"})
    public_pem = TEST_ISSUER._key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    stranger = LocalIssuer.generate(TEST_ISSUER.issuer)
    now = int(time.time())
    return {
        "expired": TEST_ISSUER.mint(subject, TEST_AUDIENCE, now=now - 7200),
        "not_yet_valid": TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims={"nbf": now + 600}),
        "issued_in_future": TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims={"iat": now + 600}),
        "wrong_audience": TEST_ISSUER.mint(subject, "someone-else"),
        "wrong_issuer": TEST_ISSUER.mint(
            subject, TEST_AUDIENCE, claims={"iss": "https://evil.example"}
        ),
        "unknown_key": stranger.mint(subject, TEST_AUDIENCE),
        "bad_signature": f"{head}.{tampered}.{good.split('.')[2]}",
        "malformed": f"{head}.{body}",
        "algorithm_not_allowed": jwt.encode(claims, None, algorithm="none"),
        "key_in_header": TEST_ISSUER.mint(
            subject, TEST_AUDIENCE, headers={"jku": "https://evil.example/jwks.json"}
        ),
        "missing_claim": TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims={"sub": ""}),
        # correctly signed, but a NumericDate as a string (RFC 7519: a number)
        "invalid_claim": TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims={"exp": "4102444800"}),
        "invalid_claim/aud": TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims={"aud": [7]}),
        # correctly signed, with an extension the verifier must understand and does not
        "critical_extension": TEST_ISSUER.mint(
            subject,
            TEST_AUDIENCE,
            headers={"crit": ["urn:example:unknown"], "urn:example:unknown": True},
        ),
        "unknown_subject": TEST_ISSUER.mint("sub-mallory", TEST_AUDIENCE),
        # HS256 keyed with the issuer's public key: the RS/HS confusion
        "algorithm_not_allowed/hs256": _hs256(claims, public_pem, TEST_ISSUER.kid),
        "bad_signature/stripped": f"{head}.{body}.",
    }


def _hs256(claims: dict[str, Any], key: bytes, kid: str) -> str:
    header = _b64({"alg": "HS256", "typ": "JWT", "kid": kid})
    payload = _b64(claims)
    import hashlib
    import hmac

    mac = hmac.new(key, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def test_bad_tokens_are_refused_with_their_reason_and_change_nothing(
    door: TestClient, firm: Firm
) -> None:
    before = _projects(firm)
    for reason, token in _bad_tokens(firm).items():
        got = door.post(
            f"/v1/orgs/{firm.org}/projects",
            json={"slug": "north", "name": "North"},
            headers={"Authorization": f"Bearer {token}", "X-Verletica-Nonce": uuid.uuid4().hex},
        )
        assert got.status_code == 401, (reason, got.text)
        assert got.json()["reason"] == reason.split("/")[0], (reason, got.text)
        assert token not in got.text
    assert _projects(firm) == before
    store = firm.svc.front_door
    assert store is not None
    logged = store.refusals(limit=100)
    assert len(logged) >= len(_bad_tokens(firm))
    assert not any("eyJ" in r.detail or "eyJ" in r.path for r in logged)
    assert {r.split("/")[0] for r in _bad_tokens(firm)} <= {r.reason.value for r in logged}


def test_a_valid_token_acts_once_per_nonce(door: TestClient, firm: Firm) -> None:
    headers = signed_in(firm.svc, firm.founder)
    ok = door.post(
        f"/v1/orgs/{firm.org}/projects", json={"slug": "n1", "name": "N"}, headers=headers
    )
    assert ok.status_code == 201, ok.text
    again = door.post(
        f"/v1/orgs/{firm.org}/projects", json={"slug": "n2", "name": "N"}, headers=headers
    )
    assert again.status_code == 401 and again.json()["reason"] == "replayed"
    assert "n2" not in _projects(firm)
    # reads are not acts: the same headers read as often as they like
    for _ in range(3):
        assert door.get(f"/v1/orgs/{firm.org}/projects", headers=headers).status_code == 200
    # without a nonce header, the token's jti is the nonce: the token acts once
    token_only = {"Authorization": headers["Authorization"]}
    first = door.post(
        f"/v1/orgs/{firm.org}/projects", json={"slug": "n3", "name": "N"}, headers=token_only
    )
    assert first.status_code == 201
    second = door.post(
        f"/v1/orgs/{firm.org}/projects", json={"slug": "n4", "name": "N"}, headers=token_only
    )
    assert second.json()["reason"] == "replayed"
    no_jti = TEST_ISSUER.mint(f"sub-{firm.founder}", TEST_AUDIENCE, claims={"jti": None})
    bare = door.post(
        f"/v1/orgs/{firm.org}/projects",
        json={"slug": "n5", "name": "N"},
        headers={"Authorization": f"Bearer {no_jti}"},
    )
    assert bare.status_code == 401 and bare.json()["reason"] == "missing_nonce"
    refused = {r.reason for r in door.app.state.ports.front_door.refusals(org_id=firm.org)}  # type: ignore[attr-defined]
    assert {Refusal.REPLAYED, Refusal.MISSING_NONCE} <= refused


def test_a_nonce_replayed_to_another_api_process_is_refused(
    services: Ports, firm: Firm, db_url: str
) -> None:
    """Two API processes (two stores, two apps) over one database."""
    other_store = Store.open(db_url, TEST_KEYS, migrate_schema=False)
    other = wire(other_store, None, make_settings(), services.clock)
    headers = signed_in(firm.svc, firm.founder)
    body = {"slug": "twice", "name": "Twice"}
    with (
        TestClient(create_app(ports=services), raise_server_exceptions=False) as first,
        TestClient(create_app(ports=other), raise_server_exceptions=False) as second,
    ):
        assert first.post(f"/v1/orgs/{firm.org}/projects", json=body, headers=headers).is_success
        replayed = second.post(
            f"/v1/orgs/{firm.org}/projects", json={**body, "slug": "thrice"}, headers=headers
        )
    other_store.close()
    assert replayed.status_code == 401 and replayed.json()["reason"] == "replayed"
    assert "thrice" not in _projects(firm)


def test_a_spent_budget_is_refused_before_anything_happens(services: Ports, firm: Firm) -> None:
    ceilings = BudgetCeilings(
        period="hour",
        requests_per_principal=2,
        requests_per_org=3,
        model_cents_per_principal=10,
        model_cents_per_org=10,
        model_cents_per_run=25,
    )
    app = create_app(ports=replace(services, budgets=ceilings))
    with TestClient(app, raise_server_exceptions=False) as client:

        def add(who: str, slug: str) -> Any:
            return client.post(
                f"/v1/orgs/{firm.org}/projects",
                json={"slug": slug, "name": slug},
                headers=signed_in(firm.svc, who),
            )

        assert add(firm.founder, "b1").status_code == 201
        assert add(firm.founder, "b2").status_code == 201
        spent = add(firm.founder, "b3")
        assert spent.status_code == 401 and spent.json()["reason"] == "over_budget"
        assert "b3" not in _projects(firm)
        # a run reserves more model spend than the ceiling: refused, nothing recorded
        run = client.post(
            f"/v1/orgs/{firm.org}/runs",
            json={"agent_id": firm.agents["orion"], "task": "Send the agenda."},
            headers=signed_in(firm.svc, firm.associate),
        )
        assert run.status_code == 401 and run.json()["reason"] == "over_budget", run.text
    with firm.svc.store.db.transaction() as s:  # type: ignore[attr-defined]
        from sqlalchemy import text

        assert s.execute(text("select count(*) from runs")).scalar_one() == 0


def test_a_rotated_issuer_key_is_followed(services: Ports, firm: Firm) -> None:
    old, new = TEST_ISSUER, LocalIssuer.generate(TEST_ISSUER.issuer)
    keys = StaticKeys(old.jwks())
    verifier = OidcVerifier(old.issuer, TEST_AUDIENCE, KeySet(keys, min_refresh=0, max_age=0))
    signed_in(firm.svc, firm.founder)
    subject = f"sub-{firm.founder}"
    app = create_app(ports=replace(services, tokens=verifier))
    with TestClient(app, raise_server_exceptions=False) as client:

        def me(issuer: LocalIssuer) -> Any:
            token = issuer.mint(subject, TEST_AUDIENCE)
            return client.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})

        assert me(old).status_code == 200
        assert me(new).json()["reason"] == "unknown_key"  # not published yet
        keys.document = {"keys": old.jwks()["keys"] + new.jwks()["keys"]}  # rotation starts
        assert me(new).status_code == 200 and me(old).status_code == 200
        keys.document = new.jwks()  # the old key retired
        assert me(new).status_code == 200
        assert me(old).json()["reason"] == "unknown_key"


def test_the_development_header_is_honoured_only_where_asked(services: Ports, firm: Firm) -> None:
    dev = create_app(ports=replace(services, dev_principal_header=True))
    as_ada = {"X-Verletica-Principal": firm.founder}
    with TestClient(dev, raise_server_exceptions=False) as client:
        assert client.get(f"/v1/orgs/{firm.org}/projects", headers=as_ada).status_code == 200
    with TestClient(dev, base_url="http://203.0.113.7", raise_server_exceptions=False) as far:
        refused = far.get(f"/v1/orgs/{firm.org}/projects", headers=as_ada)
        assert refused.status_code == 401 and "loopback" in refused.json()["detail"]
    with pytest.raises(ValueError, match="refused in production"):
        Settings(
            environment="production",
            database_url="postgresql://x@127.0.0.1/x",
            audit_key=TEST_KEYS.current.secret.hex(),
            approval_key=bytes(range(50, 82)).hex(),
            dev_principal_header=True,
        )
    exposed = create_app(
        make_settings(api_host="0.0.0.0"), replace(services, dev_principal_header=True)
    )
    with pytest.raises(RuntimeError, match="binds 0.0.0.0"), TestClient(exposed):
        pass


def test_founding_an_organization_links_the_founders_sign_in(door: TestClient) -> None:
    body = {"name": "North & Co", "founder_email": "nia@north.example"}
    assert door.post("/v1/orgs", json=body).json()["reason"] == "no_credentials"
    token = TEST_ISSUER.mint("okta|nia", TEST_AUDIENCE)
    headers = {"Authorization": f"Bearer {token}"}
    made = door.post("/v1/orgs", json=body, headers=headers)
    assert made.status_code == 201, made.text
    me = door.get("/v1/whoami", headers=headers).json()
    assert me["id"] == made.json()["founder_id"]
    again = door.post("/v1/orgs", json=body, headers=headers)
    assert again.status_code == 409  # one sign-in proves one principal


def test_weak_keys_in_the_issuers_set_prove_nothing_and_spoil_no_other_key(
    services: Ports, firm: Firm
) -> None:
    short = LocalIssuer(TEST_ISSUER.issuer, short_key(1024), kid="short")
    chip = LocalIssuer(TEST_ISSUER.issuer, roca_key(), kid="chip")
    anyone = jwk_numbers(TEST_ISSUER._key.public_key().public_numbers().n, 1, "e1")
    document = {
        "keys": [
            *short.jwks()["keys"],
            anyone,  # public exponent 1: PyJWT refused to build the whole set (500s)
            *chip.jwks()["keys"],
            {"kid": "junk", "kty": "RSA", "n": 5},
            *TEST_ISSUER.jwks()["keys"],
        ]
    }
    verifier = OidcVerifier(TEST_ISSUER.issuer, TEST_AUDIENCE, KeySet(StaticKeys(document)))
    signed_in(firm.svc, firm.founder)
    subject = f"sub-{firm.founder}"
    app = create_app(ports=replace(services, tokens=verifier))
    with TestClient(app, raise_server_exceptions=False) as client:

        def me(issuer: LocalIssuer, kid: str | None = None) -> Any:
            headers = {"kid": kid} if kid else None
            token = issuer.mint(subject, TEST_AUDIENCE, headers=headers)
            return client.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})

        for _ in range(2):  # the same answers every time (it flipped between 500 and 401)
            assert me(TEST_ISSUER).status_code == 200
            for weak, kid, why in (
                (short, None, "1024 bits"),
                (chip, None, "ROCA"),
                (TEST_ISSUER, "e1", "exponent 1"),
            ):
                got = me(weak, kid)
                assert got.status_code == 401, got.text
                assert got.json()["reason"] == "weak_key" and why in got.json()["detail"]
            junk = me(TEST_ISSUER, "junk")
            assert junk.status_code == 401 and junk.json()["reason"] == "key_not_for_signing"
    store = firm.svc.front_door
    assert store is not None
    assert sum(r.reason.value == "weak_key" for r in store.refusals(limit=100)) == 6


def _raw_token(claims: dict[str, Any], header: dict[str, Any]) -> str:
    """A token of ``TEST_ISSUER`` over exactly these claims and header (what PyJWT would
    refuse to write: an ``iss`` that is a number, say)."""
    head = _b64({"alg": "RS256", "typ": "JWT", "kid": TEST_ISSUER.kid, **header})
    body = _b64(claims)
    signer = RSAAlgorithm(RSAAlgorithm.SHA256)
    signature = signer.sign(f"{head}.{body}".encode(), TEST_ISSUER._key)
    return f"{head}.{body}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**66), max_value=2**66)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=5,
)


def test_any_claim_or_header_mutation_is_a_proof_or_a_recorded_refusal(
    door: TestClient, firm: Firm
) -> None:
    signed_in(firm.svc, firm.founder)
    store = firm.svc.front_door
    assert store is not None
    answers: list[int] = []

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        claims=st.dictionaries(
            st.sampled_from(["exp", "nbf", "iat", "aud", "iss", "sub", "jti", "nonce"]),
            _VALUES,
            max_size=2,
        ),
        header=st.dictionaries(st.sampled_from(["crit", "b64", "typ", "x"]), _VALUES, max_size=1),
    )
    def check(claims: dict[str, Any], header: dict[str, Any]) -> None:
        now = int(time.time())
        base = {"iss": TEST_ISSUER.issuer, "aud": TEST_AUDIENCE, "sub": f"sub-{firm.founder}"}
        base |= {"iat": now, "exp": now + 600, "jti": uuid.uuid4().hex}
        token = _raw_token({**base, **claims}, header)
        before = len(store.refusals(limit=1000))
        got = door.get("/v1/whoami", headers={"Authorization": f"Bearer {token}"})
        answers.append(got.status_code)
        assert got.status_code in (200, 401), (claims, header, got.status_code, got.text)
        if got.status_code == 401:
            assert len(store.refusals(limit=1000)) == before + 1, "a refusal is on the record"

    check()
    assert 401 in answers
