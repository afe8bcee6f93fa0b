"""The tamper-evident audit chain.

Each entry's hash is SHA-256(previous hash ‖ RFC 8785 canonical entry). The chain
head (last sequence and hash) is kept apart from the entries so that deleting the
newest entry is detected too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import Field

from domain.canonical import canonical_json, sha256_hex
from domain.model import Frozen

GENESIS_HASH = "0" * 64


class AuditDraft(Frozen):
    """An entry before it has a place in the chain."""

    event_key: str
    """Idempotency key: appending the same key twice returns the first entry."""
    actor: str
    intent_id: str | None = None
    decision: str
    stage: str
    rule: str
    payload: dict[str, Any] = Field(default_factory=dict)


class AuditEntry(Frozen):
    """One link of an organization's chain."""

    org_id: str
    seq: int = Field(ge=1)
    at: str
    """UTC time, ISO 8601 with microseconds; hashed as written."""
    event_key: str
    actor: str
    intent_id: str | None
    decision: str
    stage: str
    rule: str
    payload: dict[str, Any]
    prev_hash: str
    entry_hash: str

    def body(self) -> dict[str, Any]:
        """Everything the entry hash covers."""
        return self.model_dump(mode="json", exclude={"entry_hash"})


class ChainHead(Frozen):
    """The newest sequence number and hash of an organization's chain."""

    seq: int = Field(ge=0)
    entry_hash: str = GENESIS_HASH


def entry_hash(prev_hash: str, body: dict[str, Any]) -> str:
    """SHA-256(previous hash ‖ canonical body)."""
    return sha256_hex(prev_hash.encode("ascii") + canonical_json(body))


def link(org_id: str, head: ChainHead, draft: AuditDraft, at: str) -> AuditEntry:
    """The entry that ``draft`` becomes when appended after ``head``."""
    fields: dict[str, Any] = {
        "org_id": org_id,
        "seq": head.seq + 1,
        "at": at,
        **draft.model_dump(mode="json"),
        "prev_hash": head.entry_hash,
    }
    return AuditEntry(**fields, entry_hash=entry_hash(head.entry_hash, fields))


class ChainVerification(Frozen):
    """The result of verifying a chain: ok, or where and why it broke."""

    ok: bool
    entries: int
    head_hash: str
    broken_at: int | None = None
    problem: str | None = None


def _first_break(entries: Iterable[AuditEntry]) -> tuple[int, str, int, str | None]:
    """Walk the chain: (entries seen, last good hash, position of the break, problem)."""
    prev = GENESIS_HASH
    count = 0
    for expected_seq, entry in enumerate(entries, start=1):
        count = expected_seq
        if entry.seq != expected_seq:
            return count, prev, expected_seq, f"expected sequence {expected_seq}, found {entry.seq}"
        if entry.prev_hash != prev:
            return count, prev, expected_seq, "previous-hash link does not match the entry before"
        if entry_hash(prev, entry.body()) != entry.entry_hash:
            return count, prev, expected_seq, "entry hash does not match its content"
        prev = entry.entry_hash
    return count, prev, count + 1, None


def verify_chain(entries: Iterable[AuditEntry], head: ChainHead | None) -> ChainVerification:
    """Check sequence, links and hashes of ``entries`` (in storage order) against ``head``."""
    count, prev, at, problem = _first_break(entries)
    if problem is not None:
        return ChainVerification(
            ok=False, entries=count, head_hash=prev, broken_at=at, problem=problem
        )
    head = head or ChainHead(seq=0)
    if head.seq != count or head.entry_hash != prev:
        return ChainVerification(
            ok=False,
            entries=count,
            head_hash=prev,
            broken_at=min(head.seq, count) + 1,
            problem=f"chain head says {head.seq} entries, the chain has {count}",
        )
    return ChainVerification(ok=True, entries=count, head_hash=prev)
