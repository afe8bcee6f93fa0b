"""Approval proofs: what makes a human's approve or deny unforgeable.

The API signs every decision it sends to a run with a key that only Verletica's
processes hold (settings, never the database): the signature covers the run, the
intent, its digest, the approver the token proved, the verdict, the reason, the time
and the hold it answers (that hold's audit entry: seq and hash, its rule and evidence).
The broker verifies it before anything else, so a signal typed in the Temporal UI, or
sent with the Temporal CLI by someone who can reach the cluster, names an approver but
proves nothing, and is refused on the record. A genuine proof answers one hold once: it
is spent by the review that reads it (on the record, in the review's transaction), and
a copy of it taken from the run's history and sent again is refused (``proof_spent``),
as is one whose hold has changed since it was signed (``hold_changed``).

Keys rotate like the audit keys: the current key signs, retired keys still verify, so
a decision signed just before a rotation (and an open hold, which holds no proof) is
unaffected.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pydantic import Field

from domain.canonical import canonical_json
from domain.organization.contracts import Frozen, UtcInstant, as_utc

MIN_APPROVAL_KEY_BYTES = 32
PROOF_PURPOSE = "verletica-approval-v2"
"""v2 covers the hold answered; a v1 proof (no hold) no longer verifies."""
MAX_PROOF_AGE = timedelta(days=1)
"""How long a signed decision stays good. A run's worker may be down for a while between
the API signing and the broker reviewing; past this the human decides again."""
CLOCK_SKEW = timedelta(minutes=1)
"""How far in the future (another process's clock) a proof's time may lie."""


UNPROVEN = frozenset(
    {"missing_proof", "unknown_proof_key", "forged_proof", "proof_in_future", "stale_proof"}
)
"""The rules of :func:`refusal`: a request refused for one of them proved nothing, so it
spends no proof."""


class HeldDecision(Frozen):
    """The hold a human's decision answers: its entry in the audit chain and what it
    showed them (why it held, what it rested on)."""

    audit_seq: int = Field(ge=0)
    entry_hash: str = Field(max_length=64)
    rule: str = Field(max_length=500)
    evidence: tuple[str, ...] = Field(default=(), max_length=500)


class ApprovalProof(Frozen):
    """The API's signature over one human decision (see :func:`sign`)."""

    key_id: str = Field(pattern=r"^[0-9a-f]{1,64}$")
    signed_at: UtcInstant
    """Aware and within the calendar's range, or the proof does not decode: a time typed
    into a forged signal can never make the check itself fail."""
    signature: str = Field(pattern=r"^[0-9a-f]{64}$")
    """HMAC-SHA-256, hex."""


@dataclass(frozen=True)
class ApprovalKey:
    """A secret that signs approval proofs."""

    secret: bytes = field(repr=False)
    key_id: str = field(init=False)
    """A public name: the first 8 hex digits of SHA-256 of a purpose prefix and the key."""

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_APPROVAL_KEY_BYTES:
            raise ValueError(f"an approval key needs at least {MIN_APPROVAL_KEY_BYTES} bytes")
        key_id = hashlib.sha256(b"verletica-approval-key:" + self.secret).hexdigest()[:8]
        object.__setattr__(self, "key_id", key_id)


@dataclass(frozen=True)
class ApprovalKeys:
    """The key that signs and the retired keys that still verify."""

    current: ApprovalKey
    retired: tuple[ApprovalKey, ...] = ()

    def by_id(self, key_id: str) -> ApprovalKey | None:
        for key in (self.current, *self.retired):
            if key.key_id == key_id:
                return key
        return None


@dataclass(frozen=True)
class Decided:
    """The fields a proof covers."""

    run_id: str
    intent_id: str
    intent_digest: str
    approver_id: str
    verdict: str
    reason: str
    hold: HeldDecision | None
    """The hold answered; None only in a request that names none (refused as unbound)."""


def _message(decided: Decided, signed_at: datetime) -> bytes:
    return canonical_json(
        {
            "purpose": PROOF_PURPOSE,
            "run_id": decided.run_id,
            "intent_id": decided.intent_id,
            "intent_digest": decided.intent_digest,
            "approver_id": decided.approver_id,
            "verdict": decided.verdict,
            "reason": decided.reason,
            "hold": None if decided.hold is None else decided.hold.model_dump(mode="json"),
            "signed_at": as_utc(signed_at).isoformat(),
        }
    )


def sign(keys: ApprovalKeys, decided: Decided, now: datetime) -> ApprovalProof:
    """The current key's proof of ``decided`` at ``now``."""
    mac = hmac.digest(keys.current.secret, _message(decided, now), "sha256").hex()
    return ApprovalProof(key_id=keys.current.key_id, signed_at=as_utc(now), signature=mac)


def refusal(
    keys: ApprovalKeys, decided: Decided, proof: ApprovalProof | None, now: datetime
) -> tuple[str, str] | None:
    """Why ``proof`` does not prove ``decided`` at ``now`` (a rule and a reason), or None
    when it does."""
    if proof is None:
        return "missing_proof", "the decision carries no proof: send it through the API"
    key = keys.by_id(proof.key_id)
    if key is None:
        return "unknown_proof_key", f"no approval key {proof.key_id!r}"
    expected = hmac.digest(key.secret, _message(decided, proof.signed_at), "sha256").hex()
    # As bytes: comparing str refuses non-ASCII text with an exception, not a False.
    if not hmac.compare_digest(expected.encode(), proof.signature.encode()):
        return "forged_proof", "the proof does not match this decision"
    signed_at = as_utc(proof.signed_at)
    if signed_at > as_utc(now) + CLOCK_SKEW:
        return "proof_in_future", "the proof is dated in the future"
    if as_utc(now) - signed_at > MAX_PROOF_AGE:
        return "stale_proof", "the proof is older than a day: decide again"
    return None
