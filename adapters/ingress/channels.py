"""Channel webhook signatures: Slack (v0) and Microsoft Teams outgoing webhooks.

Both are HMAC-SHA256 over the raw body, compared in constant time (the standard
library's ``hmac``; nothing hand-rolled):

- Slack signs ``v0:{X-Slack-Request-Timestamp}:{body}`` with the app's signing secret
  and sends ``X-Slack-Signature: v0=<hex>``; a timestamp more than five minutes away
  from now is refused, so that a captured request cannot be sent again later;
- Teams signs the body with the base64-decoded shared secret and sends
  ``Authorization: HMAC <base64>``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping
from datetime import datetime

from domain.ingress import Refusal, Unauthenticated

SLACK_TOLERANCE_SECONDS = 300


def verify_slack(secret: str, timestamp: str, body: bytes, signature: str, now: float) -> None:
    """Refuse (:class:`Unauthenticated`) a Slack request whose signature does not hold."""
    try:
        sent_at = int(timestamp)
    except ValueError as exc:
        raise Unauthenticated(Refusal.MALFORMED, "the Slack timestamp is not a number") from exc
    if abs(now - sent_at) > SLACK_TOLERANCE_SECONDS:
        raise Unauthenticated(Refusal.STALE, "the Slack timestamp is more than 5 minutes off")
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    expected = "v0=" + hmac.new(secret.encode("utf-8"), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode("ascii"), signature.encode("utf-8", "replace")):
        raise Unauthenticated(Refusal.BAD_SIGNATURE, "the Slack signature does not verify")


def verify_teams(secret_b64: str, body: bytes, authorization: str) -> None:
    """Refuse (:class:`Unauthenticated`) a Teams request whose HMAC does not hold."""
    scheme, _, sent = authorization.strip().partition(" ")
    if scheme != "HMAC" or not sent.strip():
        raise Unauthenticated(Refusal.MALFORMED, "expected 'Authorization: HMAC <base64>'")
    try:
        key = base64.b64decode(secret_b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("the Teams secret is not base64") from exc
    expected = base64.b64encode(hmac.new(key, body, hashlib.sha256).digest())
    if not hmac.compare_digest(expected, sent.strip().encode("ascii", "replace")):
        raise Unauthenticated(Refusal.BAD_SIGNATURE, "the Teams HMAC does not verify")


class SlackSignature:
    """Slack's v0 request signature with the app's signing secret."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def verify(self, headers: Mapping[str, str], body: bytes, now: datetime) -> None:
        """Refuse a Slack request whose signature or timestamp does not hold."""
        timestamp = headers.get("x-slack-request-timestamp")
        signature = headers.get("x-slack-signature")
        if not timestamp or not signature:
            raise Unauthenticated(
                Refusal.MALFORMED, "X-Slack-Request-Timestamp and X-Slack-Signature are required"
            )
        verify_slack(self._secret, timestamp, body, signature, now.timestamp())


class TeamsSignature:
    """A Teams outgoing webhook's HMAC with its security token."""

    def __init__(self, secret_b64: str) -> None:
        base64.b64decode(secret_b64, validate=True)  # a wrong setting fails at start-up
        self._secret = secret_b64

    def verify(self, headers: Mapping[str, str], body: bytes, now: datetime) -> None:
        """Refuse a Teams request whose HMAC does not hold."""
        authorization = headers.get("authorization")
        if not authorization:
            raise Unauthenticated(Refusal.MALFORMED, "expected 'Authorization: HMAC <base64>'")
        verify_teams(self._secret, body, authorization)
