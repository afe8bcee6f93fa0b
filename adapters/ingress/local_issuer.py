"""A local OpenID Connect issuer, for development, the demo and the tests: an RSA key
generated when it starts, its public half published as a JWKS, and RS256 ID tokens
minted for the people it vouches for. The API verifies these tokens exactly as it
verifies Entra's, Okta's or Auth0's (:mod:`adapters.ingress.oidc`); nothing here is
trusted by the verifier except through the published key set.

It is not an identity provider: it asks for no password. It serves on a loopback
address only (see :mod:`api.local.issuer`), and production refuses it as an issuer.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from adapters.ingress.oidc import ALGORITHM

LOCAL_AUDIENCE = "verletica-local"
KEY_FILE = "local-issuer.pem"
TOKEN_SECONDS = 3600


class LocalIssuer:
    """Mints RS256 ID tokens with one RSA key, named by its ``kid``."""

    def __init__(self, issuer: str, private_key: rsa.RSAPrivateKey, kid: str | None = None):
        self.issuer = issuer
        self._key = private_key
        self.kid = kid or _kid_of(private_key)

    @classmethod
    def generate(cls, issuer: str) -> LocalIssuer:
        """A new issuer with a fresh 2048-bit key."""
        return cls(issuer, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    @classmethod
    def load(cls, issuer: str, path: Path) -> LocalIssuer:
        """The issuer whose key ``save`` wrote to ``path``."""
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ValueError(f"{path} does not hold an RSA key")
        return cls(issuer, key)

    def save(self, path: Path) -> None:
        """Write the private key (mode 0600), replacing an older one in one step."""
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        os.replace(candidate, path)

    def jwks(self) -> dict[str, Any]:
        """The public key set (what ``VERLETICA_OIDC_JWKS`` points at)."""
        entry = json.loads(RSAAlgorithm.to_jwk(self._key.public_key()))
        entry.update({"kid": self.kid, "use": "sig", "alg": ALGORITHM})
        return {"keys": [entry]}

    def discovery(self, jwks_uri: str) -> dict[str, Any]:
        """The issuer's ``/.well-known/openid-configuration``: its keys, and the
        authorization code flow with PKCE (S256) that the web console signs in with."""
        return {
            "issuer": self.issuer,
            "jwks_uri": jwks_uri,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "id_token_signing_alg_values_supported": [ALGORITHM],
            "subject_types_supported": ["public"],
            "response_types_supported": ["code", "id_token"],
            "grant_types_supported": ["authorization_code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }

    def mint(
        self,
        subject: str,
        audience: str = LOCAL_AUDIENCE,
        *,
        seconds: int = TOKEN_SECONDS,
        now: float | None = None,
        claims: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
    ) -> str:
        """An ID token for ``subject``: ``iss``, ``sub``, ``aud``, ``iat``, ``nbf``,
        ``exp`` and a fresh ``jti``; ``claims`` and ``headers`` add or replace, a claim
        given as None is left out (tests use them to make bad tokens)."""
        issued = int(time.time() if now is None else now)
        body: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": audience,
            "iat": issued,
            "nbf": issued,
            "exp": issued + seconds,
            "jti": uuid.uuid4().hex,
        }
        body.update(claims or {})
        body = {k: v for k, v in body.items() if v is not None}  # None: leave the claim out
        return jwt.encode(
            body, self._key, algorithm=ALGORITHM, headers={"kid": self.kid, **(headers or {})}
        )


def _kid_of(key: rsa.RSAPrivateKey) -> str:
    """A stable key id: the RFC 7638 thumbprint of the public key, shortened."""
    numbers = key.public_key().public_numbers()

    def b64(n: int) -> str:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return jwt.utils.base64url_encode(raw).decode("ascii")

    canonical = json.dumps(
        {"e": b64(numbers.e), "kty": "RSA", "n": b64(numbers.n)},
        separators=(",", ":"),
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()[:16]


_VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
CODE_SECONDS = 60
"""How long an authorization code may be redeemed (once)."""


class CodeRefused(ValueError):
    """An authorization code that cannot be redeemed (unknown, used, expired, or its
    client, redirect or PKCE verifier do not match): ``invalid_grant``."""


@dataclass(frozen=True)
class _Grant:
    subject: str
    client_id: str
    redirect_uri: str
    challenge: str
    nonce: str | None
    expires: float


def pkce_challenge(verifier: str) -> str:
    """The S256 code challenge of a PKCE ``verifier`` (RFC 7636)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return jwt.utils.base64url_encode(digest).decode("ascii")


class AuthorizationCodes:
    """Codes the sign-in page issues and the token endpoint redeems: once each, within
    :data:`CODE_SECONDS`, only by the client and redirect they were issued to, and only
    with the PKCE verifier of their challenge. In memory: a restarted issuer forgets
    codes, which costs a person one more sign-in."""

    def __init__(self) -> None:
        self._grants: dict[str, _Grant] = {}
        self._lock = threading.Lock()

    def issue(
        self,
        subject: str,
        *,
        client_id: str,
        redirect_uri: str,
        challenge: str,
        nonce: str | None,
        now: float | None = None,
    ) -> str:
        """A fresh code for ``subject``."""
        code = secrets.token_urlsafe(32)
        issued = time.time() if now is None else now
        with self._lock:
            self._grants = {k: g for k, g in self._grants.items() if g.expires > issued}
            self._grants[code] = _Grant(
                subject, client_id, redirect_uri, challenge, nonce, issued + CODE_SECONDS
            )
        return code

    def redeem(
        self,
        code: str,
        *,
        client_id: str,
        redirect_uri: str,
        verifier: str,
        now: float | None = None,
    ) -> tuple[str, str | None]:
        """The subject and nonce of ``code``, which is spent whatever the outcome."""
        with self._lock:
            grant = self._grants.pop(code, None)
        at = time.time() if now is None else now
        if not _VERIFIER.fullmatch(verifier):
            raise CodeRefused("a PKCE verifier is 43 to 128 of A-Z a-z 0-9 - . _ ~ (RFC 7636)")
        if grant is None or grant.expires <= at:
            raise CodeRefused("unknown, used or expired code")
        if (grant.client_id, grant.redirect_uri) != (client_id, redirect_uri):
            raise CodeRefused("the code was issued to another client or redirect")
        if not secrets.compare_digest(pkce_challenge(verifier), grant.challenge):
            raise CodeRefused("the PKCE verifier does not match the challenge")
        return grant.subject, grant.nonce
