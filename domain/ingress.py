"""What the front door decides: who a request proves it comes from, or why it proves
nothing. Every refusal carries a machine-readable reason (for the HTTP answer and the
audit record) and never the token, secret or body that was refused."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from domain.model import Frozen


class Refusal(StrEnum):
    """Why a request proved nothing."""

    MALFORMED = "malformed"
    ALGORITHM = "algorithm_not_allowed"
    HEADER_KEY = "key_in_header"
    UNKNOWN_KEY = "unknown_key"
    KEY_NOT_FOR_SIGNING = "key_not_for_signing"
    BAD_SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    ISSUED_IN_FUTURE = "issued_in_future"
    WRONG_ISSUER = "wrong_issuer"
    WRONG_AUDIENCE = "wrong_audience"
    MISSING_CLAIM = "missing_claim"
    STALE = "stale_timestamp"
    KEY_SET_UNAVAILABLE = "key_set_unavailable"
    UNKNOWN_SUBJECT = "unknown_subject"
    NOT_A_PERSON = "not_an_active_human"
    NOT_CONFIGURED = "not_configured"
    REPLAYED = "replayed"
    OVER_BUDGET = "over_budget"


class Unauthenticated(Exception):
    """A request that proves nothing: ``reason`` says why (no secret in it)."""

    def __init__(self, reason: Refusal, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class TokenClaims(Frozen):
    """What a verified ID token says of its bearer."""

    issuer: str
    subject: str
    audience: tuple[str, ...]
    expires_at: int
    issued_at: int
    token_id: str | None = None
    """``jti``: the nonce a replay check remembers."""


class TokenVerifier(Protocol):
    """Verifies a bearer ID token (see :mod:`adapters.ingress.oidc`)."""

    def verify(self, token: str) -> TokenClaims:
        """The token's claims, or :class:`Unauthenticated` with the reason."""
        ...
