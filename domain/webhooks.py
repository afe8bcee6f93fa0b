"""Webhook posts: the body a receiver gets and the signature that proves it is ours.

A post is ``POST <target url>`` with a canonical JSON body (RFC 8785) naming the
organization, the intent (also the ``Idempotency-Key`` header: a retried post is the
same post), the event and the agent's body text. ``X-Verletica-Timestamp`` is the Unix
time of the attempt; ``X-Verletica-Signature`` is ``sha256=`` and the hex HMAC-SHA256,
keyed with the target's secret, of ``<timestamp>.<body bytes>``. A receiver recomputes
it, compares in constant time, and refuses a timestamp far from its clock.
"""

from __future__ import annotations

import hashlib
import hmac

from pydantic import Field, SecretStr

from domain.canonical import canonical_json
from domain.organization.contracts import Frozen

SIGNATURE_HEADER = "X-Verletica-Signature"
TIMESTAMP_HEADER = "X-Verletica-Timestamp"
IDEMPOTENCY_HEADER = "Idempotency-Key"


def post_body(org_id: str, intent_id: str, event: str, body: str) -> bytes:
    """The bytes posted for an intent."""
    return canonical_json({"org_id": org_id, "intent_id": intent_id, "event": event, "body": body})


def signature(secret: bytes, timestamp: int, body: bytes) -> str:
    """``sha256=<hex>`` of HMAC-SHA256(secret, ``<timestamp>.`` + body)."""
    mac = hmac.new(secret, f"{timestamp}.".encode("ascii") + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def verify(secret: bytes, timestamp: int, body: bytes, header: str) -> bool:
    """Whether ``header`` signs ``body`` at ``timestamp`` with ``secret`` (constant time)."""
    return hmac.compare_digest(signature(secret, timestamp, body), header)


class WebhookTarget(Frozen):
    """A system organizations post to: where, the secret that signs the posts, and the
    organizations whose agents may post there (a target is never shared by default)."""

    url: str
    secret: SecretStr
    org_ids: tuple[str, ...] = Field(min_length=1)

    def serves(self, org_id: str) -> bool:
        """Whether ``org_id``'s agents may post to this target."""
        return org_id in self.org_ids


RETRYABLE_STATUS = frozenset({408, 425, 429})
"""4xx answers that mean "not now" rather than "never"."""


def retryable(status: int) -> bool:
    """Whether a post answered ``status`` may be tried again (5xx, and some 4xx)."""
    return status >= 500 or status in RETRYABLE_STATUS
