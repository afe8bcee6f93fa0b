"""The front door's proofs, attacked: RS256 ID tokens from locally generated keys, and
Slack and Teams webhook signatures."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st
from jwt.algorithms import RSAAlgorithm

from adapters.ingress.oidc import KeySet, OidcVerifier
from adapters.ingress.webhooks import verify_slack, verify_teams
from domain.ingress import Refusal, Unauthenticated

ISSUER = "https://id.harborvale.example"
AUDIENCE = "verletica-api"


def _rsa() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


KEY_A, KEY_B, STRANGER = _rsa(), _rsa(), _rsa()


def _jwk(key: rsa.RSAPrivateKey, kid: str, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    return {**entry, "kid": kid, **extra}


class _Keys:
    """A key set the test can rotate, counting how often it is fetched."""

    def __init__(self, *entries: dict[str, Any]) -> None:
        self.entries = list(entries)
        self.fetches = 0
        self.down = False

    def fetch(self) -> dict[str, Any]:
        self.fetches += 1
        if self.down:
            raise ConnectionError("the issuer is down")
        return {"keys": self.entries}


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "ada-oidc-subject",
        "iat": now,
        "exp": now + 600,
        "jti": "nonce-1",
    }
    claims.update(overrides)
    return {k: v for k, v in claims.items() if v is not None}


def _token(
    key: rsa.RSAPrivateKey = KEY_A,
    kid: str = "a",
    headers: dict[str, Any] | None = None,
    **claims: Any,
) -> str:
    return jwt.encode(
        _claims(**claims), key, algorithm="RS256", headers={"kid": kid, **(headers or {})}
    )


def _verifier(keys: _Keys | None = None, clock: _Clock | None = None) -> OidcVerifier:
    source = keys or _Keys(_jwk(KEY_A, "a"))
    return OidcVerifier(ISSUER, AUDIENCE, KeySet(source, clock=clock or _Clock()))


def _refused(verifier: OidcVerifier, token: str) -> Refusal:
    with pytest.raises(Unauthenticated) as refused:
        verifier.verify(token)
    assert "eyJ" not in str(refused.value), "a refusal never repeats the token"
    return refused.value.reason


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_a_valid_token_proves_its_subject() -> None:
    claims = _verifier().verify(_token())
    assert (claims.issuer, claims.subject, claims.audience) == (
        ISSUER,
        "ada-oidc-subject",
        (AUDIENCE,),
    )
    assert claims.token_id == "nonce-1"


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"exp": int(time.time()) - 3600}, Refusal.EXPIRED),
        ({"nbf": int(time.time()) + 3600}, Refusal.NOT_YET_VALID),
        ({"iat": int(time.time()) + 3600}, Refusal.ISSUED_IN_FUTURE),
        ({"aud": "another-api"}, Refusal.WRONG_AUDIENCE),
        ({"iss": "https://evil.example"}, Refusal.WRONG_ISSUER),
        ({"exp": None}, Refusal.MISSING_CLAIM),
        ({"iat": None}, Refusal.MISSING_CLAIM),
        ({"sub": None}, Refusal.MISSING_CLAIM),
        ({"sub": ""}, Refusal.MISSING_CLAIM),
    ],
)
def test_claims_are_enforced(overrides: dict[str, Any], reason: Refusal) -> None:
    assert _refused(_verifier(), _token(**overrides)) == reason


def test_a_small_clock_skew_is_tolerated() -> None:
    skewed = _token(iat=int(time.time()) + 10, nbf=int(time.time()) + 10)
    assert _verifier().verify(skewed).subject == "ada-oidc-subject"


def test_a_tampered_payload_or_a_stripped_signature_does_not_verify() -> None:
    header, payload, signature = _token().split(".")
    forged = _b64(json.dumps(_claims(sub="the-founder")).encode())
    assert _refused(_verifier(), f"{header}.{forged}.{signature}") == Refusal.BAD_SIGNATURE
    assert _refused(_verifier(), f"{header}.{payload}.") in (
        Refusal.BAD_SIGNATURE,
        Refusal.MALFORMED,
    )
    assert _refused(_verifier(), _token(key=STRANGER)) == Refusal.BAD_SIGNATURE
    assert _refused(_verifier(), "not a token") == Refusal.MALFORMED


def test_alg_none_and_hs256_signed_with_the_public_key_are_refused() -> None:
    payload = _b64(json.dumps(_claims()).encode())
    none = _b64(json.dumps({"alg": "none", "kid": "a", "typ": "JWT"}).encode())
    assert _refused(_verifier(), f"{none}.{payload}.") == Refusal.ALGORITHM
    # The classic confusion: HMAC keyed with the RSA public key the verifier trusts.
    public_pem = KEY_A.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    hs = _b64(json.dumps({"alg": "HS256", "kid": "a", "typ": "JWT"}).encode())
    mac = hmac.new(public_pem, f"{hs}.{payload}".encode(), hashlib.sha256).digest()
    assert _refused(_verifier(), f"{hs}.{payload}.{_b64(mac)}") == Refusal.ALGORITHM
    rs512 = jwt.encode(_claims(), KEY_A, algorithm="RS512", headers={"kid": "a"})
    assert _refused(_verifier(), rs512) == Refusal.ALGORITHM


@pytest.mark.parametrize("field", ["jku", "x5u", "jwk", "x5c"])
def test_a_token_that_brings_its_own_key_is_refused(field: str) -> None:
    value: Any = "https://evil.example/keys"
    if field == "jwk":
        value = _jwk(STRANGER, "a")
    elif field == "x5c":
        value = ["MIIB..."]
    keys = _Keys(_jwk(KEY_A, "a"))
    token = _token(key=STRANGER, headers={field: value})
    assert _refused(_verifier(keys), token) == Refusal.HEADER_KEY
    assert keys.fetches == 0, "nothing is fetched for a token that brings its own key"


@pytest.mark.parametrize(
    "extra",
    [{"use": "enc"}, {"key_ops": ["encrypt"]}, {"alg": "RS512"}],
)
def test_a_key_not_meant_for_rs256_signatures_is_not_used(extra: dict[str, Any]) -> None:
    keys = _Keys(_jwk(KEY_A, "a", **extra))
    assert _refused(_verifier(keys), _token()) == Refusal.KEY_NOT_FOR_SIGNING


def test_keys_rotate_and_unknown_kids_cannot_hammer_the_issuer() -> None:
    keys, clock = _Keys(_jwk(KEY_A, "a")), _Clock()
    verifier = _verifier(keys, clock)
    assert verifier.verify(_token()).subject
    assert keys.fetches == 1
    # The issuer rotates: "b" appears, signed tokens with it verify after one refresh.
    keys.entries = [_jwk(KEY_A, "a"), _jwk(KEY_B, "b")]
    clock.now += 61
    assert verifier.verify(_token(key=KEY_B, kid="b")).subject
    assert keys.fetches == 2
    # Random kids within the minute: refused, and the issuer is not asked again.
    for i in range(20):
        assert _refused(verifier, _token(key=STRANGER, kid=f"x{i}")) == Refusal.UNKNOWN_KEY
    assert keys.fetches == 2
    clock.now += 61
    assert _refused(verifier, _token(key=STRANGER, kid="late")) == Refusal.UNKNOWN_KEY
    assert keys.fetches == 3
    # "a" retired: gone from the set, refused after the next refresh.
    keys.entries = [_jwk(KEY_B, "b")]
    clock.now += 61
    assert _refused(verifier, _token(kid="zz")) == Refusal.UNKNOWN_KEY  # refreshes
    assert _refused(verifier, _token()) == Refusal.UNKNOWN_KEY


def test_an_unreachable_key_set_proves_nothing_and_known_keys_survive_an_outage() -> None:
    keys, clock = _Keys(_jwk(KEY_A, "a")), _Clock()
    keys.down = True
    assert _refused(_verifier(keys, clock), _token()) == Refusal.KEY_SET_UNAVAILABLE
    keys.down = False
    verifier = _verifier(keys, clock)
    assert verifier.verify(_token()).subject
    keys.down = True
    clock.now += 61
    assert _refused(verifier, _token(kid="new")) == Refusal.UNKNOWN_KEY
    assert verifier.verify(_token()).subject  # the cached key still verifies


@settings(max_examples=200, deadline=None)
@given(position=st.integers(min_value=0), replacement=st.sampled_from("ABCDEFabcdef0123456789-_"))
def test_no_edit_of_a_tokens_header_or_claims_verifies(position: int, replacement: str) -> None:
    token = _token()
    header, payload, signature = token.split(".")
    signed = f"{header}.{payload}"
    at = position % len(signed)
    if signed[at] in (".", replacement):
        return
    edited = signed[:at] + replacement + signed[at + 1 :]
    with pytest.raises(Unauthenticated):
        _verifier().verify(f"{edited}.{signature}")


# ---------------------------------------------------------------------------- webhooks
SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BODY = b"token=x&team_id=T1&user_id=U2&command=%2Fverletica&text=summarise+the+kickoff"


def _slack(timestamp: str, body: bytes = BODY, secret: str = SLACK_SECRET) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def test_slack_signatures() -> None:
    now = 1_765_000_000.0
    ts = str(int(now) - 30)
    verify_slack(SLACK_SECRET, ts, BODY, _slack(ts), now)
    cases = [
        (ts, BODY + b"&extra=1", _slack(ts), Refusal.BAD_SIGNATURE),
        (ts, BODY, _slack(ts, secret="another-secret"), Refusal.BAD_SIGNATURE),
        (ts, BODY, "v0=" + "0" * 64, Refusal.BAD_SIGNATURE),
        (ts, BODY, "", Refusal.BAD_SIGNATURE),
        (str(int(now) - 301), BODY, _slack(str(int(now) - 301)), Refusal.STALE),
        (str(int(now) + 301), BODY, _slack(str(int(now) + 301)), Refusal.STALE),
        ("yesterday", BODY, _slack("yesterday"), Refusal.MALFORMED),
    ]
    for timestamp, body, signature, reason in cases:
        with pytest.raises(Unauthenticated) as refused:
            verify_slack(SLACK_SECRET, timestamp, body, signature, now)
        assert refused.value.reason == reason, (timestamp, signature)
        assert SLACK_SECRET not in str(refused.value)


TEAMS_SECRET = base64.b64encode(b"a shared secret of thirty-two b!").decode()
TEAMS_BODY = b'{"type":"message","id":"1485983408511","text":"<at>Verletica</at> status"}'


def _teams(body: bytes, secret: str = TEAMS_SECRET) -> str:
    mac = hmac.new(base64.b64decode(secret), body, hashlib.sha256).digest()
    return "HMAC " + base64.b64encode(mac).decode()


def test_teams_signatures() -> None:
    verify_teams(TEAMS_SECRET, TEAMS_BODY, _teams(TEAMS_BODY))
    other = base64.b64encode(b"another secret entirely, 32 byte").decode()
    cases = [
        (TEAMS_BODY + b" ", _teams(TEAMS_BODY), Refusal.BAD_SIGNATURE),
        (TEAMS_BODY, _teams(TEAMS_BODY, other), Refusal.BAD_SIGNATURE),
        (TEAMS_BODY, _teams(TEAMS_BODY).replace("HMAC", "Bearer"), Refusal.MALFORMED),
        (TEAMS_BODY, "HMAC", Refusal.MALFORMED),
        (TEAMS_BODY, "HMAC not-base64-at-all", Refusal.BAD_SIGNATURE),
    ]
    for body, authorization, reason in cases:
        with pytest.raises(Unauthenticated) as refused:
            verify_teams(TEAMS_SECRET, body, authorization)
        assert refused.value.reason == reason, authorization
