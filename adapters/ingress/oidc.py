"""OIDC bearer tokens: RS256 only, verified against the issuer's key set (JWKS).

PyJWT does the cryptography; this module pins what it may accept:

- the algorithm is RS256, named in the token's header and pinned in the call, so
  ``alg: none`` and HS256 signed with the public key (the RS/HS confusion) are refused;
- keys come only from the configured key set, selected by ``kid``: a token that brings
  its own (``jku``, ``x5u``, ``jwk``, ``x5c``) is refused before anything is fetched;
- a key set entry is used only if it is RSA and, where it says so, is for signatures
  (``use: sig``), allows ``verify`` and names RS256;
- ``iss``, ``aud``, ``exp``, ``iat`` and ``sub`` are required, ``nbf`` honoured, all
  with a small leeway;
- an unknown ``kid`` refreshes the key set (the issuer rotated its keys), at most once a
  minute, so that random ``kid`` values cannot make this process hammer the issuer.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import httpx
import jwt
from jwt.exceptions import (
    DecodeError,
    ExpiredSignatureError,
    ImmatureSignatureError,
    InvalidAlgorithmError,
    InvalidAudienceError,
    InvalidIssuerError,
    InvalidSignatureError,
    InvalidTokenError,
    MissingRequiredClaimError,
    PyJWKError,
)

from domain.ingress import Refusal, TokenClaims, Unauthenticated

ALGORITHM = "RS256"
KEYS_IN_HEADER = frozenset({"jku", "x5u", "jwk", "x5c"})
REQUIRED = ("iss", "aud", "exp", "iat", "sub")


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
        return f"key type {entry.get('kty')!r} is not RSA"
    if "use" in entry and entry["use"] != "sig":
        return f"key use {entry['use']!r} is not sig"
    if "key_ops" in entry and "verify" not in (entry["key_ops"] or ()):
        return "key_ops does not allow verify"
    if "alg" in entry and entry["alg"] != ALGORITHM:
        return f"key algorithm {entry['alg']!r} is not {ALGORITHM}"
    return None


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
        self._refused: dict[str, str] = {}
        self._fetched_at: float | None = None
        self._lock = threading.Lock()

    def key(self, kid: str) -> Any:
        """The public key named ``kid``; :class:`Unauthenticated` when there is none."""
        with self._lock:
            unknown = kid not in self._keys and kid not in self._refused
            if (unknown and self._may_refresh()) or self._stale():
                self._refresh()
            if kid in self._refused:
                raise Unauthenticated(Refusal.KEY_NOT_FOR_SIGNING, self._refused[kid])
            if kid not in self._keys:
                raise Unauthenticated(Refusal.UNKNOWN_KEY, f"no key {kid!r} in the issuer's set")
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
        refused: dict[str, str] = {}
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("kid"), str):
                continue
            problem = _refusal_of(entry)
            if problem is None:
                try:
                    keys[entry["kid"]] = jwt.PyJWK(entry, algorithm=ALGORITHM).key
                    continue
                except (PyJWKError, ValueError, TypeError) as exc:
                    problem = f"unreadable key: {type(exc).__name__}"
            refused[entry["kid"]] = problem
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
            header = jwt.get_unverified_header(token)
        except DecodeError as exc:
            raise Unauthenticated(Refusal.MALFORMED, "not a signed JWT") from exc
        if header.get("alg") != ALGORITHM:
            raise Unauthenticated(
                Refusal.ALGORITHM, f"algorithm {header.get('alg')!r} is not {ALGORITHM}"
            )
        brought = sorted(KEYS_IN_HEADER & set(header))
        if brought:
            raise Unauthenticated(Refusal.HEADER_KEY, f"the token brings its own key: {brought}")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise Unauthenticated(Refusal.MALFORMED, "the token names no key (kid)")
        key = self._keys.key(kid)
        try:
            claims = jwt.decode(
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
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise Unauthenticated(Refusal.MISSING_CLAIM, "the token names no subject")
        audience = claims["aud"]
        return TokenClaims(
            issuer=str(claims["iss"]),
            subject=subject,
            audience=(audience,) if isinstance(audience, str) else tuple(map(str, audience)),
            expires_at=int(claims["exp"]),
            issued_at=int(claims["iat"]),
            token_id=claims.get("jti") if isinstance(claims.get("jti"), str) else None,
            nonce=claims.get("nonce") if isinstance(claims.get("nonce"), str) else None,
        )
