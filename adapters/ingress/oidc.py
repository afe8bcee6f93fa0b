"""OIDC bearer tokens: RS256 only, verified against the issuer's key set (JWKS).

PyJWT does the cryptography; this module pins what it may accept:

- the token is three base64url segments whose header and claims are JSON objects with
  no name twice and no ``NaN``/``Infinity``; anything else is malformed;
- the algorithm is RS256, named in the token's header and pinned in the call, so
  ``alg: none`` and HS256 signed with the public key (the RS/HS confusion) are refused;
- a header naming critical extensions (``crit``) is refused: this verifier understands
  none (RFC 7515 §4.1.11);
- keys come only from the configured key set, selected by ``kid``: a token that brings
  its own (``jku``, ``x5u``, ``jwk``, ``x5c``) is refused before anything is fetched;
- a key set entry is used only if it is an RSA public key that, where it says so, is for
  signatures (``use: sig``), allows ``verify`` and names RS256, and that is strong enough
  (:mod:`adapters.ingress.oidc_keys`: 2048 bits or more, an odd exponent of 3 or more,
  no ROCA fingerprint); any other entry is skipped, and logged, and the rest still work;
- ``iss``, ``aud``, ``exp``, ``iat`` and ``sub`` are required, ``nbf`` honoured, all
  with a small leeway, and each must have its type (RFC 7519): the times JSON numbers,
  ``aud`` a string or a list of strings, ``iss``, ``sub``, ``jti``, ``nonce`` strings;
- an unknown ``kid`` refreshes the key set (the issuer rotated its keys), at most once a
  minute, so that random ``kid`` values cannot make this process hammer the issuer;
- whatever else fails while a token is read is a refusal (``malformed``), never an error.
"""

from __future__ import annotations

import binascii
import ipaddress
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey, RSAPublicNumbers
from jwt.exceptions import (
    ExpiredSignatureError,
    ImmatureSignatureError,
    InvalidAlgorithmError,
    InvalidAudienceError,
    InvalidIssuerError,
    InvalidSignatureError,
    InvalidTokenError,
    MissingRequiredClaimError,
)
from jwt.utils import base64url_decode

from adapters.ingress.oidc_keys import weakness
from domain.ingress import Refusal, TokenClaims, Unauthenticated

log = logging.getLogger(__name__)

ALGORITHM = "RS256"
KEYS_IN_HEADER = frozenset({"jku", "x5u", "jwk", "x5c"})
REQUIRED = ("iss", "aud", "exp", "iat", "sub")
NUMERIC_DATES = ("exp", "nbf", "iat")
STRINGS = ("iss", "sub", "jti", "nonce")
LATEST_DATE = 253_402_300_799
"""9999-12-31T23:59:59Z: the last NumericDate a date can hold (the nonce store keeps a
token's nonce until it expires)."""
PRIVATE_PARTS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth"})
"""Members of a JWK that only a private key has."""


def shown(value: object, limit: int = 40) -> str:
    """``value`` for a refusal's detail: its repr, cut to ``limit`` characters (a ``kid``
    or claim comes from whoever sent the token)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


class KeySource(Protocol):
    """Where the issuer's key set comes from."""

    def fetch(self) -> dict[str, Any]:
        """The JWKS document (``{"keys": [...]}``)."""
        ...


class UrlKeys:
    """A key set served over HTTPS (the issuer's ``jwks_uri``)."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        self.url = url
        self._timeout = timeout

    def fetch(self) -> dict[str, Any]:
        response = httpx.get(self.url, timeout=self._timeout, follow_redirects=False)
        response.raise_for_status()
        document: dict[str, Any] = response.json()
        return document


class FileKeys:
    """A key set in a file (an issuer without discovery, or a test)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fetch(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        return document


def key_source(spec: str) -> KeySource:
    """``VERLETICA_OIDC_JWKS``: an ``https://`` URL (``http://`` only on a loopback
    address: a local issuer), or a file path."""
    if spec.startswith("http://"):
        host = httpx.URL(spec).host
        if host != "localhost" and not _loopback(host):
            raise ValueError("an issuer's key set is fetched over https (http: loopback only)")
        return UrlKeys(spec)
    if spec.startswith("https://"):
        return UrlKeys(spec)
    return FileKeys(Path(spec))


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refusal_of(entry: dict[str, Any]) -> str | None:
    """Why a key set entry may not verify RS256 signatures, or None."""
    if entry.get("kty") != "RSA":
        return f"key type {shown(entry.get('kty'))} is not RSA"
    if "use" in entry and entry["use"] != "sig":
        return f"key use {shown(entry['use'])} is not sig"
    if "key_ops" in entry:
        ops = entry["key_ops"]
        if not isinstance(ops, list) or "verify" not in ops:
            return "key_ops does not allow verify"
    if "alg" in entry and entry["alg"] != ALGORITHM:
        return f"key algorithm {shown(entry['alg'])} is not {ALGORITHM}"
    return None


def _uint(entry: dict[str, Any], member: str) -> int:
    """A JWK member holding an unsigned integer (base64url, big-endian)."""
    value = entry.get(member)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{member} is not a base64url string")
    return int.from_bytes(base64url_decode(value), "big")


def load_key(entry: dict[str, Any]) -> RSAPublicKey:
    """The RSA public key of a key set entry, or :class:`Unauthenticated` saying why it
    may not verify RS256 signatures (``key_not_for_signing``, ``weak_key``)."""
    problem = _refusal_of(entry)
    if problem is not None:
        raise Unauthenticated(Refusal.KEY_NOT_FOR_SIGNING, problem)
    if PRIVATE_PARTS & set(entry):
        # whoever published it has given the signing key away: it proves nothing
        raise Unauthenticated(Refusal.WEAK_KEY, "the key set publishes a private key")
    try:
        n, e = _uint(entry, "n"), _uint(entry, "e")
    except (ValueError, binascii.Error) as exc:
        raise Unauthenticated(Refusal.KEY_NOT_FOR_SIGNING, f"unreadable key: {exc}") from exc
    weak = weakness(n, e)
    if weak is not None:
        raise Unauthenticated(Refusal.WEAK_KEY, weak)
    return RSAPublicNumbers(e, n).public_key()


class KeySet:
    """The issuer's signing keys by ``kid``, refreshed when an unknown one is asked for
    (at most once every ``min_refresh`` seconds) and when the set is older than
    ``max_age`` seconds, so that a key the issuer retired stops verifying."""

    def __init__(
        self,
        source: KeySource,
        min_refresh: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_age: float = 3600.0,
    ) -> None:
        self._source = source
        self._min_refresh = min_refresh
        self._max_age = max_age
        self._clock = clock
        self._keys: dict[str, Any] = {}
        self._refused: dict[str, tuple[Refusal, str]] = {}
        self._fetched_at: float | None = None
        self._lock = threading.Lock()

    def key(self, kid: str) -> Any:
        """The public key named ``kid``; :class:`Unauthenticated` when there is none."""
        with self._lock:
            unknown = kid not in self._keys and kid not in self._refused
            if (unknown and self._may_refresh()) or self._stale():
                self._refresh()
            if kid in self._refused:
                reason, why = self._refused[kid]
                raise Unauthenticated(reason, f"the issuer's key {shown(kid)} is refused: {why}")
            if kid not in self._keys:
                raise Unauthenticated(
                    Refusal.UNKNOWN_KEY, f"no key {shown(kid)} in the issuer's set"
                )
            return self._keys[kid]

    def _stale(self) -> bool:
        last = self._fetched_at
        return last is not None and self._clock() - last >= self._max_age

    def _may_refresh(self) -> bool:
        last = self._fetched_at
        # with no key yet, an issuer that was not up a moment ago is asked again soon
        wait = self._min_refresh if self._keys else min(self._min_refresh, 1.0)
        return last is None or self._clock() - last >= wait

    def _refresh(self) -> None:
        self._fetched_at = self._clock()
        try:
            document = self._source.fetch()
            entries = document["keys"]
            if not isinstance(entries, list):
                raise TypeError("keys is not a list")
        except Exception as exc:  # noqa: BLE001 - a key set we cannot read proves nothing
            if not self._keys:
                raise Unauthenticated(
                    Refusal.KEY_SET_UNAVAILABLE, f"the issuer's key set: {type(exc).__name__}"
                ) from exc
            return  # keep the keys we have
        keys: dict[str, Any] = {}
        refused: dict[str, tuple[Refusal, str]] = {}
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str):
                log.warning("the issuer's key set has an entry without a kid: skipped")
                continue
            kid = entry["kid"]
            try:
                keys[kid] = load_key(entry)
                continue
            except Unauthenticated as exc:
                refused[kid] = (exc.reason, exc.detail)
            except Exception as exc:  # noqa: BLE001 - one bad entry spoils no other key
                refused[kid] = (
                    Refusal.KEY_NOT_FOR_SIGNING,
                    f"unreadable key: {type(exc).__name__}",
                )
            keys.pop(kid, None)  # a kid named twice, once refused, is refused
            if self._refused.get(kid) != refused[kid]:
                log.warning("the issuer's key %s is skipped: %s", shown(kid), refused[kid][1])
        self._keys, self._refused = keys, refused


class OidcVerifier:
    """Verifies ID tokens of one issuer for one audience."""

    def __init__(self, issuer: str, audience: str, keys: KeySet, leeway_seconds: int = 30) -> None:
        self.issuer = issuer
        self.audience = audience
        self._keys = keys
        self._leeway = leeway_seconds

    def verify(self, token: str) -> TokenClaims:
        """The token's claims, or :class:`Unauthenticated` with the reason."""
        try:
            return self._verify(token)
        except Unauthenticated:
            raise
        except Exception as exc:  # noqa: BLE001 - a token that cannot be read proves nothing
            raise Unauthenticated(
                Refusal.MALFORMED, f"the token could not be read ({type(exc).__name__})"
            ) from exc

    def _verify(self, token: str) -> TokenClaims:
        header, claims = _parts(token)
        if header.get("alg") != ALGORITHM:
            raise Unauthenticated(
                Refusal.ALGORITHM, f"algorithm {shown(header.get('alg'))} is not {ALGORITHM}"
            )
        if "crit" in header:
            raise Unauthenticated(
                Refusal.CRITICAL_EXTENSION,
                f"the token names critical extensions ({shown(header['crit'])}); "
                "this verifier understands none",
            )
        brought = sorted(KEYS_IN_HEADER & set(header))
        if brought:
            raise Unauthenticated(Refusal.HEADER_KEY, f"the token brings its own key: {brought}")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise Unauthenticated(Refusal.MALFORMED, "the token names no key (kid)")
        problem = claim_type_problem(claims)
        if problem is not None:
            raise Unauthenticated(Refusal.INVALID_CLAIM, problem)
        key = self._keys.key(kid)
        try:
            jwt.decode(
                token,
                key,
                algorithms=[ALGORITHM],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self._leeway,
                options={"require": list(REQUIRED)},
            )
        except ExpiredSignatureError as exc:
            raise Unauthenticated(Refusal.EXPIRED, "the token has expired") from exc
        except ImmatureSignatureError as exc:
            # PyJWT says which: "(iat)" for a token issued in the future, else nbf
            reason = Refusal.ISSUED_IN_FUTURE if "(iat)" in str(exc) else Refusal.NOT_YET_VALID
            raise Unauthenticated(reason, str(exc)) from exc
        except InvalidAudienceError as exc:
            raise Unauthenticated(
                Refusal.WRONG_AUDIENCE, "the token is for another audience"
            ) from exc
        except InvalidIssuerError as exc:
            raise Unauthenticated(Refusal.WRONG_ISSUER, "the token is from another issuer") from exc
        except MissingRequiredClaimError as exc:
            raise Unauthenticated(Refusal.MISSING_CLAIM, str(exc)) from exc
        except InvalidSignatureError as exc:
            raise Unauthenticated(Refusal.BAD_SIGNATURE, "the signature does not verify") from exc
        except InvalidAlgorithmError as exc:
            raise Unauthenticated(Refusal.ALGORITHM, str(exc)) from exc
        except InvalidTokenError as exc:
            raise Unauthenticated(Refusal.MALFORMED, type(exc).__name__) from exc
        # the claims checked above are the ones PyJWT verified: the same bytes, parsed
        # the same way (no name twice, so no parser can pick another value)
        subject = claims["sub"]
        if not subject:
            raise Unauthenticated(Refusal.MISSING_CLAIM, "the token names no subject")
        audience = claims["aud"]
        return TokenClaims(
            issuer=claims["iss"],
            subject=subject,
            audience=(audience,) if isinstance(audience, str) else tuple(audience),
            expires_at=int(claims["exp"]),
            issued_at=int(claims["iat"]),
            token_id=claims.get("jti"),
            nonce=claims.get("nonce"),
        )


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise ValueError(f"{shown(twice)} is named twice")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _object(segment: str, what: str) -> dict[str, Any]:
    """A token segment as a JSON object, strictly (RFC 7515 §5.2, RFC 8259)."""
    try:
        raw = base64url_decode(segment)
    except (binascii.Error, ValueError) as exc:
        raise Unauthenticated(Refusal.MALFORMED, f"the token's {what} is not base64url") from exc
    try:
        value = json.loads(raw, object_pairs_hook=_unique, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise Unauthenticated(
            Refusal.MALFORMED, f"the token's {what} is not a JSON object: {exc}"
        ) from exc
    if not isinstance(value, dict):
        raise Unauthenticated(Refusal.MALFORMED, f"the token's {what} is not a JSON object")
    return value


def _parts(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and the claims of a compact JWS, not yet verified."""
    segments = token.split(".")
    if len(segments) != 3:
        raise Unauthenticated(Refusal.MALFORMED, "not a signed JWT (three segments)")
    return _object(segments[0], "header"), _object(segments[1], "claims")


def claim_type_problem(claims: dict[str, Any]) -> str | None:
    """Why a registered claim does not have its type (RFC 7519 §4.1), or None: the times
    are JSON numbers (not strings, not booleans) between 1970 and 9999, ``aud`` a string
    or a non-empty list of strings, ``iss``, ``sub``, ``jti`` and ``nonce`` strings."""
    for name in NUMERIC_DATES:
        if name not in claims:
            continue
        value = claims[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{name} is not a NumericDate (a JSON number): {shown(value)}"
        if not (math.isfinite(value) and 0 <= value <= LATEST_DATE):
            return f"{name} is not a NumericDate between 1970 and 9999"
    for name in STRINGS:
        if name in claims and not isinstance(claims[name], str):
            return f"{name} is not a string: {shown(claims[name])}"
    if "aud" in claims:
        aud = claims["aud"]
        if not isinstance(aud, str) and not (
            isinstance(aud, list) and aud and all(isinstance(a, str) for a in aud)
        ):
            return f"aud is neither a string nor a list of strings: {shown(aud)}"
    return None
