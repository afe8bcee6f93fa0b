"""What the front door decides: who a request proves it comes from, or why it proves
nothing. Every refusal carries a machine-readable reason (for the HTTP answer and the
audit record) and never the token, secret or body that was refused."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Literal, Protocol

from pydantic import Field

from domain.organization.contracts import Frozen, as_utc


class Refusal(StrEnum):
    """Why a request proved nothing."""

    MALFORMED = "malformed"
    ALGORITHM = "algorithm_not_allowed"
    HEADER_KEY = "key_in_header"
    UNKNOWN_KEY = "unknown_key"
    KEY_NOT_FOR_SIGNING = "key_not_for_signing"
    WEAK_KEY = "weak_key"
    """The issuer's key named by the token is too weak to prove anything (under 2048
    bits, a public exponent below 3 or even, the ROCA fingerprint, a published private
    key): it was skipped when the key set was loaded."""
    CRITICAL_EXTENSION = "critical_extension"
    """The token's header names critical extensions (``crit``), which nothing here
    understands (RFC 7515 §4.1.11)."""
    BAD_SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    ISSUED_IN_FUTURE = "issued_in_future"
    WRONG_ISSUER = "wrong_issuer"
    WRONG_AUDIENCE = "wrong_audience"
    MISSING_CLAIM = "missing_claim"
    INVALID_CLAIM = "invalid_claim"
    """A registered claim without its type (RFC 7519: ``exp`` a string, ``aud`` a number…)."""
    STALE = "stale_timestamp"
    KEY_SET_UNAVAILABLE = "key_set_unavailable"
    UNKNOWN_SUBJECT = "unknown_subject"
    NOT_A_PERSON = "not_an_active_human"
    SIGNED_IN_BEFORE = "signed_in_before_return"
    """The token was issued before the person was last suspended or brought back."""
    NOT_CONFIGURED = "not_configured"
    REPLAYED = "replayed"
    MISSING_NONCE = "missing_nonce"
    OVER_BUDGET = "over_budget"
    NO_CREDENTIALS = "no_credentials"


MAX_DETAIL = 200
"""The most characters a refusal's detail holds: it often names what the request sent."""


class Unauthenticated(Exception):
    """A request that proves nothing: ``reason`` says why (no secret in it), ``detail``
    in at most :data:`MAX_DETAIL` characters."""

    def __init__(self, reason: Refusal, detail: str) -> None:
        if len(detail) > MAX_DETAIL:
            detail = f"{detail[: MAX_DETAIL - 1]}…"
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail
        self.org_id: str | None = None
        self.principal_id: str | None = None
        """Who was refused, once their identity is proven (a replay, a budget)."""


class TokenClaims(Frozen):
    """What a verified ID token says of its bearer."""

    issuer: str
    subject: str
    audience: tuple[str, ...]
    expires_at: int
    issued_at: int
    token_id: str | None = None
    """``jti``: the nonce a replay check remembers."""
    nonce: str | None = None
    """``nonce``: binds a token from the authorization code flow to the sign-in that
    asked for it (the web console checks it)."""


class ConsoleSignIn(Frozen):
    """How the web console signs people in: the OIDC issuer's authorization code flow
    with PKCE, as a public client (or a confidential one, with its secret), and the key
    that signs its session cookies."""

    issuer: str
    """Where its discovery document lives (``{issuer}/.well-known/openid-configuration``)."""
    client_id: str
    """The console's client id at the issuer: the audience its ID tokens carry."""
    client_secret: str | None = Field(default=None, repr=False)
    session_key: bytes = Field(repr=False)


class TokenVerifier(Protocol):
    """Verifies a bearer ID token (see :mod:`adapters.ingress.oidc`)."""

    def verify(self, token: str) -> TokenClaims:
        """The token's claims, or :class:`Unauthenticated` with the reason."""
        ...


class BudgetCeilings(Frozen):
    """What the front door lets principals and organizations spend per period: acting
    requests, and model spend reserved by the runs they start (0: nothing)."""

    period: Literal["hour", "day"] = "hour"
    requests_per_principal: int = Field(default=600, ge=0)
    requests_per_org: int = Field(default=3000, ge=0)
    model_cents_per_principal: int = Field(default=20_000, ge=0)
    model_cents_per_org: int = Field(default=100_000, ge=0)
    model_cents_per_run: int = Field(default=5, ge=0)
    """What starting a run reserves of the model spend ceilings: an estimate of one model
    call, until runs are charged the tokens they spend."""

    def period_of(self, now: datetime) -> str:
        """The budget period ``now`` falls in (``2026-12-01T08`` or ``2026-12-01``)."""
        now = as_utc(now)
        return now.strftime("%Y-%m-%dT%H" if self.period == "hour" else "%Y-%m-%d")


class RefusedRequest(Frozen):
    """A request the front door refused, as recorded: never its token, secret or body."""

    at: datetime
    channel: str
    """``api``, ``slack``, ``teams``, ``whoami``."""
    reason: Refusal
    detail: str
    path: str = ""
    org_id: str | None = None
    principal_id: str | None = None


class FrontDoor(Protocol):
    """What the front door remembers in the database, shared by every API process."""

    def first_use(self, channel: str, nonce: str, expires_at: datetime, now: datetime) -> None:
        """Remember ``nonce``; :class:`Unauthenticated` (replayed) when seen before."""
        ...

    def charge(
        self,
        org_id: str,
        principal_id: str,
        now: datetime,
        ceilings: BudgetCeilings,
        *,
        requests: int = 1,
        model_cents: int = 0,
    ) -> None:
        """Count ``requests`` (and reserve ``model_cents``), or :class:`Unauthenticated`
        (over budget) with nothing counted."""
        ...

    def refused(self, request: RefusedRequest) -> None:
        """Record a refusal."""
        ...

    def refusals(self, limit: int = 100, org_id: str | None = None) -> list[RefusedRequest]:
        """The newest refusals (of ``org_id``, when given), newest first."""
        ...


class ChannelSignature(Protocol):
    """Verifies a channel's webhook signature (Slack, Teams: see
    :mod:`adapters.ingress.channels`)."""

    def verify(self, headers: Mapping[str, str], body: bytes, now: datetime) -> None:
        """:class:`Unauthenticated` with the reason when the signature does not hold
        (``headers`` are lower-cased)."""
        ...


LINK_CODE_SECONDS = 10 * 60
"""How long a chat link code may be sent from the chat account it links."""


class LinkCode(Frozen):
    """What a chat link code says: who signed in and asked for it, for which channel,
    until when. It proves the person asked; sent from a chat account, it proves that
    account is theirs (only they could see the code: their console sign-in showed it)."""

    org_id: str
    principal_id: str
    channel: str
    expires: int
    """Seconds since the epoch."""
    nonce: str = Field(pattern=r"^[0-9a-f]{8,32}$")
    """Random: two codes asked in one second differ (each is spent once)."""


def _mac(key: bytes, body: str) -> str:
    return hmac.new(key, f"verletica chat link\x00{body}".encode(), hashlib.sha256).hexdigest()[:20]


def link_code(key: bytes, code: LinkCode) -> str:
    """The code a person sends from their chat account: ``{org}.{principal}.{channel}.
    {expires}.{nonce}.{mac}``, the MAC keyed with the console's session key (nobody can make or
    alter one without it)."""
    body = f"{code.org_id}.{code.principal_id}.{code.channel}.{code.expires}.{code.nonce}"
    return f"{body}.{_mac(key, body)}"


def read_link_code(key: bytes, text: str, now: datetime) -> LinkCode | None:
    """The code ``text`` is, while its MAC holds and it has not expired; None for
    anything else (a typo, a forgery, a stale code)."""
    parts = text.strip().split(".")
    if len(parts) != 6 or not parts[3].isdigit():
        return None
    body, mac = ".".join(parts[:5]), parts[5]
    if not hmac.compare_digest(mac, _mac(key, body)):
        return None
    org_id, principal_id, channel, expires, nonce = parts[:5]
    if int(expires) < as_utc(now).timestamp():
        return None
    return LinkCode(
        org_id=org_id, principal_id=principal_id, channel=channel, expires=int(expires), nonce=nonce
    )
