"""A local OpenID Connect issuer, for development, the demo and the tests: an RSA key
generated when it starts, its public half published as a JWKS, and RS256 ID tokens
minted for the people it vouches for. The API verifies these tokens exactly as it
verifies Entra's, Okta's or Auth0's (:mod:`adapters.ingress.oidc`); nothing here is
trusted by the verifier except through the published key set.

It is not an identity provider: it asks for no password. It serves on a loopback
address only (see :mod:`api.issuer`), and production refuses it as an issuer.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
import uuid
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
        """The issuer's ``/.well-known/openid-configuration``."""
        return {
            "issuer": self.issuer,
            "jwks_uri": jwks_uri,
            "id_token_signing_alg_values_supported": [ALGORITHM],
            "subject_types_supported": ["public"],
            "response_types_supported": ["id_token"],
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
