"""The front door's proofs, attacked: RS256 ID tokens from locally generated keys, and
Slack and Teams webhook signatures."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given, settings
from hypothesis import strategies as st
from jwt.algorithms import RSAAlgorithm

from adapters.ingress.channels import verify_slack, verify_teams
from adapters.ingress.oidc import KeySet, OidcVerifier
from domain.ingress import Refusal, Unauthenticated
from tests.oidc_keys import jwk_numbers, jwk_of, roca_key, short_key

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


# ------------------------------------------------------------------ claim types (RFC 7519)
FUTURE = 4_102_444_800  # 2100-01-01


@pytest.mark.parametrize(
    "overrides",
    [
        {"exp": str(FUTURE)},  # the held-out vector: a NumericDate as a string
        {"exp": True},
        {"exp": [FUTURE]},
        {"exp": {"at": FUTURE}},
        {"exp": 10**20},  # past the year 9999
        {"exp": 1e300},
        {"iat": "1700000000"},  # a fixed id: every xdist worker must collect the same tests
        {"iat": False},
        {"nbf": "0"},
        {"nbf": -1},
        {"aud": 7},
        {"aud": [AUDIENCE, 7]},
        {"aud": []},
        {"aud": {"0": AUDIENCE}},
        {"iss": 1},
        {"iss": [ISSUER]},
        {"sub": 42},
        {"sub": ["ada-oidc-subject"]},
        {"jti": 1},
        {"nonce": {"n": 1}},
    ],
    ids=repr,
)
def test_a_correctly_signed_token_with_a_claim_of_the_wrong_type_is_refused(
    overrides: dict[str, Any],
) -> None:
    token = _signed_raw({}, json.dumps(_claims(**overrides)).encode())
    assert _refused(_verifier(), token) == Refusal.INVALID_CLAIM


def test_numeric_dates_may_be_fractional_and_audiences_lists() -> None:
    now = time.time()
    claims = _verifier().verify(
        _token(iat=now - 1.5, nbf=now - 1.25, exp=now + 600.5, aud=["other", AUDIENCE])
    )
    assert claims.audience == ("other", AUDIENCE)
    assert claims.expires_at == int(now + 600.5)


def _json_values() -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False, allow_infinity=False)  # NaN: not JSON (malformed, below)
        | st.text(max_size=20)
        | st.sampled_from([str(FUTURE), ISSUER, AUDIENCE, "ada-oidc-subject", ""])
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=6,
    )


def _typed(name: str, value: Any) -> bool:
    """Whether ``value`` has the type RFC 7519 gives claim ``name``."""
    if name in ("exp", "nbf", "iat"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "aud":
        return isinstance(value, str) or (
            isinstance(value, list) and bool(value) and all(isinstance(a, str) for a in value)
        )
    return isinstance(value, str)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(["exp", "nbf", "iat", "aud", "iss", "sub", "jti", "nonce"]),
    value=_json_values(),
)
def test_any_value_of_any_registered_claim_is_a_proof_or_a_refusal(name: str, value: Any) -> None:
    token = _signed_raw({}, json.dumps(_claims(**{name: value})).encode())
    try:
        claims = _verifier().verify(token)
    except Unauthenticated as refused:
        if value is not None and not _typed(name, value):
            assert refused.reason == Refusal.INVALID_CLAIM, (name, value, refused)
        return
    assert value is None or _typed(name, value), (name, value, claims)


def _signed_raw(header: dict[str, Any], payload: bytes, key: rsa.RSAPrivateKey = KEY_A) -> str:
    """A compact JWS over exactly ``payload`` (what no JWT library would write)."""
    head = _b64(json.dumps({"alg": "RS256", "kid": "a", **header}).encode())
    body = _b64(payload)
    signature = RSAAlgorithm(RSAAlgorithm.SHA256).sign(f"{head}.{body}".encode(), key)
    return f"{head}.{body}.{_b64(signature)}"


def test_a_claim_named_twice_or_a_payload_that_is_no_object_is_malformed() -> None:
    now = int(time.time())
    base = f'"iss":"{ISSUER}","aud":"{AUDIENCE}","iat":{now},"exp":{now + 600}'
    for payload in (
        f'{{{base},"sub":"ben","sub":"the-founder"}}',  # which sub? no parser may choose
        f'{{{base},"sub":"ada","exp":{now + 600}}}',
        f'[{{{base},"sub":"ada"}}]',
        f'{{{base},"sub":"ada","exp":NaN}}',  # not JSON, though Python's json reads it
        f'{{{base},"sub":"ada","nbf":-Infinity}}',
        "null",
        "",
    ):
        assert _refused(_verifier(), _signed_raw({}, payload.encode())) == Refusal.MALFORMED
    twice = _signed_raw({}, f'{{{base},"sub":"ada"}}'.encode()).split(".")
    dup_header = _b64(b'{"alg":"RS256","kid":"a","kid":"b"}')
    assert _refused(_verifier(), f"{dup_header}.{twice[1]}.{twice[2]}") == Refusal.MALFORMED


# ------------------------------------------------------------ critical headers, garbage
@pytest.mark.parametrize(
    "header",
    [
        {"crit": ["urn:example:unknown"], "urn:example:unknown": True},  # the held-out vector
        {"crit": ["exp"]},
        {"crit": ["b64"], "b64": True},
        {"crit": []},
        {"crit": "urn:example:unknown"},
        {"crit": [7]},
    ],
    ids=repr,
)
def test_a_header_naming_critical_extensions_is_refused(header: dict[str, Any]) -> None:
    assert _refused(_verifier(), _token(headers=header)) == Refusal.CRITICAL_EXTENSION


def test_an_unencoded_payload_is_refused() -> None:
    # RFC 7797: b64=false, listed in crit; PyJWT would verify it, nothing here asks for it
    token = jwt.api_jws.encode(
        json.dumps(_claims()).encode(),
        KEY_A,
        algorithm="RS256",
        headers={"kid": "a", "b64": False, "crit": ["b64"]},
        is_payload_detached=False,
    )
    assert _refused(_verifier(), token) in (Refusal.CRITICAL_EXTENSION, Refusal.MALFORMED)


@settings(max_examples=300, deadline=None)
@given(
    extra=st.dictionaries(
        st.sampled_from(["crit", "kid", "alg", "typ", "b64", "cty", "zip", "x5t", "enc", "x"]),
        _json_values(),
        max_size=3,
    )
)
def test_any_header_is_a_proof_or_a_refusal(extra: dict[str, Any]) -> None:
    header = {"kid": "a", **extra}
    try:
        signed = jwt.api_jws.encode(
            json.dumps(_claims()).encode(), KEY_A, algorithm="RS256", headers=header
        )
    except Exception:  # noqa: BLE001 - a header PyJWT will not write: write it by hand
        signed = _signed_raw(extra, json.dumps(_claims()).encode())
    try:
        _verifier().verify(signed)
    except Unauthenticated:
        return
    assert "crit" not in extra and extra.get("kid", "a") == "a"


@settings(max_examples=300, deadline=None)
@given(
    token=st.one_of(
        st.text(max_size=300),
        st.lists(st.text(alphabet='ABCDEFabcdef0123456789-_=.+/!{}"', max_size=60), max_size=5).map(
            ".".join
        ),
        st.lists(_json_values().map(lambda v: _b64(json.dumps(v).encode())), max_size=4).map(
            ".".join
        ),
    )
)
def test_no_string_is_more_than_a_refusal(token: str) -> None:
    with pytest.raises(Unauthenticated):
        _verifier().verify(token)


# ------------------------------------------------------------------------ the key set
def _set(*entries: Any) -> tuple[_Keys, OidcVerifier]:
    keys = _Keys(*entries)
    return keys, _verifier(keys)


def test_a_key_under_2048_bits_is_refused_when_the_set_is_loaded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    short = short_key(1024)
    _, verifier = _set(jwk_of(short, "short"), _jwk(KEY_A, "a"))
    with caplog.at_level(logging.WARNING, logger="adapters.ingress.oidc"):
        assert verifier.verify(_token()).subject  # the good key still proves
    assert "1024 bits" in caplog.text and "'short'" in caplog.text, caplog.text
    with pytest.raises(Unauthenticated) as refused:
        verifier.verify(_token(key=short, kid="short"))
    assert refused.value.reason == Refusal.WEAK_KEY
    assert "1024 bits" in refused.value.detail


def test_a_roca_key_is_refused_when_the_set_is_loaded(caplog: pytest.LogCaptureFixture) -> None:
    roca = roca_key()
    _, verifier = _set(jwk_of(roca, "chip"), _jwk(KEY_A, "a"))
    with caplog.at_level(logging.WARNING, logger="adapters.ingress.oidc"):
        assert verifier.verify(_token()).subject
    assert "ROCA" in caplog.text
    with pytest.raises(Unauthenticated) as refused:
        verifier.verify(_token(key=roca, kid="chip"))
    assert refused.value.reason == Refusal.WEAK_KEY and "ROCA" in refused.value.detail


N_A = KEY_A.public_key().public_numbers().n


def _bad(entry: dict[str, Any], reason: Refusal, why: str) -> Any:
    return pytest.param(entry, reason, id=why)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        _bad(jwk_numbers(N_A, 1, "bad"), Refusal.WEAK_KEY, "e=1, the held-out vector"),
        _bad(jwk_numbers(N_A, 2, "bad"), Refusal.WEAK_KEY, "e=2"),
        _bad(jwk_numbers(N_A, 65536, "bad"), Refusal.WEAK_KEY, "e even"),
        _bad(jwk_numbers(N_A, 0, "bad"), Refusal.WEAK_KEY, "e=0"),
        _bad(jwk_numbers(N_A, N_A + 2, "bad"), Refusal.WEAK_KEY, "e above n"),
        _bad(jwk_numbers(N_A * 2, 65537, "bad"), Refusal.WEAK_KEY, "n even"),
        _bad(jwk_numbers(N_A * 3, 65537, "bad"), Refusal.WEAK_KEY, "n with a small factor"),
        _bad({**_jwk(KEY_B, "bad"), "n": "!!not base64!!"}, Refusal.KEY_NOT_FOR_SIGNING, "n junk"),
        _bad({**_jwk(KEY_B, "bad"), "n": 12345}, Refusal.KEY_NOT_FOR_SIGNING, "n a number"),
        _bad({**_jwk(KEY_B, "bad"), "e": ""}, Refusal.KEY_NOT_FOR_SIGNING, "e empty"),
        _bad(
            {k: v for k, v in _jwk(KEY_B, "bad").items() if k != "n"},
            Refusal.KEY_NOT_FOR_SIGNING,
            "no n",
        ),
        _bad({**_jwk(KEY_B, "bad"), "key_ops": 5}, Refusal.KEY_NOT_FOR_SIGNING, "key_ops 5"),
        _bad({**_jwk(KEY_B, "bad"), "use": ["sig"]}, Refusal.KEY_NOT_FOR_SIGNING, "use a list"),
        _bad({**_jwk(KEY_B, "bad"), "kty": None}, Refusal.KEY_NOT_FOR_SIGNING, "kty null"),
        _bad({**_jwk(KEY_B, "bad"), "d": "AQAB"}, Refusal.WEAK_KEY, "a published private key"),
    ],
)
def test_one_bad_entry_is_skipped_and_every_other_key_keeps_working(
    entry: dict[str, Any], reason: Refusal, caplog: pytest.LogCaptureFixture
) -> None:
    keys, clock = _Keys(entry, _jwk(KEY_A, "a")), _Clock()
    verifier = _verifier(keys, clock)
    with caplog.at_level(logging.WARNING, logger="adapters.ingress.oidc"):
        for _ in range(3):  # the same answer every time: no flipping
            assert verifier.verify(_token()).subject == "ada-oidc-subject"
            assert _refused(verifier, _token(key=KEY_B, kid="bad")) == reason
            clock.now += 3601  # and after every refresh
    assert "'bad' is skipped" in caplog.text
    assert caplog.text.count("'bad' is skipped") == 1, "said once, not at every refresh"


def test_entries_that_are_no_keys_at_all_spoil_nothing() -> None:
    _, verifier = _set(
        "a string",
        7,
        None,
        [],
        {"kty": "RSA"},
        {"kid": 5},
        _jwk(KEY_A, "a"),
    )
    assert verifier.verify(_token()).subject


def test_a_refusal_names_a_long_kid_only_in_part() -> None:
    kid = "k" * 10_000
    with pytest.raises(Unauthenticated) as refused:
        _verifier().verify(_token(key=STRANGER, kid=kid))
    assert refused.value.reason == Refusal.UNKNOWN_KEY
    assert len(refused.value.detail) <= 200 and kid not in refused.value.detail


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
