"""The tamper-evident audit chain.

Each entry's hash is SHA-256(previous hash ‖ RFC 8785 canonical entry). The chain
head (last sequence and hash) is kept apart from the entries so that deleting the
newest entry is detected too.

A hash chain alone only shows accidental or partial damage: someone who can write the
database can edit an entry and recompute every later hash with the published formula.
So each entry hash, and the head, is also signed (HMAC-SHA256) with a key that is not
stored in the database. Whoever lacks the key cannot produce a chain that verifies.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from pydantic import Field

from domain.audit.checkpoint import Signer
from domain.audit.tree import LOG_NAME, LogKeys
from domain.canonical import CheckedObject, canonical_json, sha256_hex
from domain.organization.contracts import Frozen

GENESIS_HASH = "0" * 64
MIN_KEY_BYTES = 32


@dataclass(frozen=True)
class ChainKey:
    """A secret that signs audit entries. Kept outside the database (settings, key file)."""

    secret: bytes = field(repr=False)

    key_id: str = field(init=False)
    """A public name for the key: the first 8 hex digits of SHA-256(key)."""

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_KEY_BYTES:
            raise ValueError(f"an audit key needs at least {MIN_KEY_BYTES} bytes")
        key_id = hashlib.sha256(b"verletica-audit-key:" + self.secret).hexdigest()[:8]
        object.__setattr__(self, "key_id", key_id)

    @cached_property
    def signer(self) -> Signer:
        """The Ed25519 key that signs checkpoints while this key signs entries, derived
        from it: one secret to keep outside the database, and a public key that rotates
        forward with it. Its seed is HMAC-SHA256(key, a fixed label), from which nothing
        learns the audit key."""
        seed = hmac.digest(self.secret, b"verletica checkpoint key v1", "sha256")
        return Signer(LOG_NAME, seed)

    def mac(self, message: bytes) -> str:
        """Hex HMAC-SHA256 of ``message``."""
        return hmac.digest(self.secret, message, "sha256").hex()


@dataclass(frozen=True)
class ChainKeys:
    """The key that signs new entries and the retired keys that still verify old ones.

    ``retired`` lists older keys oldest first. A chain may move only forward through the
    keys: once an entry is signed by a newer key, no later entry (nor the head) may be
    signed by an older one, so a retired key that leaks cannot extend or rewrite what a
    newer key has sealed.
    """

    current: ChainKey
    retired: tuple[ChainKey, ...] = ()
    _ranked: dict[str, tuple[int, ChainKey]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ranked: dict[str, tuple[int, ChainKey]] = {}
        for rank, key in enumerate((*self.retired, self.current)):
            ranked.setdefault(key.key_id, (rank, key))
        object.__setattr__(self, "_ranked", ranked)

    @property
    def signer(self) -> Signer:
        """The key that signs new checkpoints (the current key's)."""
        return self.current.signer

    def log_keys(self) -> LogKeys:
        """The public keys of every checkpoint key, oldest first: what a verifier is given."""
        return LogKeys(tuple(k.signer.verifier() for k in (*self.retired, self.current)))

    def _by_id(self, key_id: str) -> ChainKey | None:
        found = self._ranked.get(key_id)
        return None if found is None else found[1]

    def rank(self, signature: str) -> int:
        """How new the key that made ``signature`` is: 0 for the oldest retired key, the
        number of retired keys for the current one, -1 for an unknown key."""
        found = self._ranked.get(signature.partition(":")[0])
        return -1 if found is None else found[0]

    def _sign(self, message: bytes) -> str:
        return f"{self.current.key_id}:{self.current.mac(message)}"

    def _check(self, message: bytes, signature: str) -> bool:
        key_id, _, mac = signature.partition(":")
        key = self._by_id(key_id)
        return key is not None and hmac.compare_digest(key.mac(message), mac)

    def sign_entry(self, entry_hash: str) -> str:
        """``key id:HMAC`` over an entry hash (which covers the org, sequence and link)."""
        return self._sign(b"entry:" + entry_hash.encode("ascii"))

    def entry_signed(self, entry_hash: str, signature: str) -> bool:
        """True when ``signature`` is a known key's signature of ``entry_hash``."""
        return self._check(b"entry:" + entry_hash.encode("ascii"), signature)

    def sign_head(self, org_id: str, seq: int, entry_hash: str) -> str:
        """``key id:HMAC`` over an organization's chain head."""
        return self._sign(_head_message(org_id, seq, entry_hash))

    def head_signed(self, org_id: str, seq: int, entry_hash: str, signature: str) -> bool:
        """True when ``signature`` is a known key's signature of this head."""
        return self._check(_head_message(org_id, seq, entry_hash), signature)


def _head_message(org_id: str, seq: int, entry_hash: str) -> bytes:
    return f"head:{org_id}:{seq}:{entry_hash}".encode()


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
    signature: str = ""
    """``key id:HMAC-SHA256`` of the entry hash, by a key kept outside the database."""

    def body(self) -> dict[str, Any]:
        """Everything the entry hash covers."""
        return entry_body(self)


class ChainLink(Protocol):
    """An entry as the verifier reads it: an :class:`AuditEntry`, or a row as stored
    (verifying a long chain should not build a validated model per entry)."""

    @property
    def org_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def at(self) -> str: ...
    @property
    def event_key(self) -> str: ...
    @property
    def actor(self) -> str: ...
    @property
    def intent_id(self) -> str | None: ...
    @property
    def decision(self) -> str: ...
    @property
    def stage(self) -> str: ...
    @property
    def rule(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def entry_hash(self) -> str: ...
    @property
    def signature(self) -> str: ...


def entry_body(entry: ChainLink) -> dict[str, Any]:
    """Everything an entry's hash covers: all of it but the hash and the signature."""
    body = {
        "org_id": entry.org_id,
        "seq": entry.seq,
        "at": entry.at,
        "event_key": entry.event_key,
        "actor": entry.actor,
        "intent_id": entry.intent_id,
        "decision": entry.decision,
        "stage": entry.stage,
        "rule": entry.rule,
        "payload": entry.payload,
        "prev_hash": entry.prev_hash,
    }
    # The other fields are strings, an integer and None: the body is as plain as its
    # payload (see domain.canonical).
    if type(entry.payload) is CheckedObject and type(entry.seq) is int and 0 <= entry.seq < 2**53:
        return CheckedObject(body)
    return body


class ChainHead(Frozen):
    """The newest sequence number and hash of an organization's chain."""

    seq: int = Field(ge=0)
    entry_hash: str = GENESIS_HASH
    signature: str = ""


def entry_hash(prev_hash: str, body: dict[str, Any]) -> str:
    """SHA-256(previous hash ‖ canonical body)."""
    return sha256_hex(prev_hash.encode("ascii") + canonical_json(body))


def genesis(org_id: str, keys: ChainKeys) -> ChainHead:
    """The signed head of a new, empty chain."""
    return ChainHead(seq=0, signature=keys.sign_head(org_id, 0, GENESIS_HASH))


def link(
    org_id: str, head: ChainHead, draft: AuditDraft, at: str, keys: ChainKeys
) -> tuple[AuditEntry, ChainHead]:
    """The signed entry that ``draft`` becomes when appended after ``head``, and the
    signed head that follows it."""
    fields: dict[str, Any] = {
        "org_id": org_id,
        "seq": head.seq + 1,
        "at": at,
        **draft.model_dump(mode="json"),
        "prev_hash": head.entry_hash,
    }
    hashed = entry_hash(head.entry_hash, fields)
    entry = AuditEntry(**fields, entry_hash=hashed, signature=keys.sign_entry(hashed))
    new_head = ChainHead(
        seq=entry.seq, entry_hash=hashed, signature=keys.sign_head(org_id, entry.seq, hashed)
    )
    return entry, new_head


def entry_problem(entry: ChainLink, keys: ChainKeys) -> str | None:
    """Why ``entry`` on its own cannot be trusted (content or signature), or None."""
    if entry_hash(entry.prev_hash, entry_body(entry)) != entry.entry_hash:
        return "entry hash does not match its content"
    if not keys.entry_signed(entry.entry_hash, entry.signature):
        return "entry signature is missing or not made by a known audit key"
    return None


class ChainVerification(Frozen):
    """The result of verifying a chain: ok, or where and why it broke."""

    ok: bool
    entries: int
    head_hash: str
    broken_at: int | None = None
    problem: str | None = None


def _entry_break(
    org_id: str,
    entry: ChainLink,
    expected_seq: int,
    prev: str,
    keys: ChainKeys,
    newest: int,
    checked: Container[int],
) -> str | None:
    """Why ``entry`` cannot stand at ``expected_seq`` after ``prev``, or None."""
    if entry.seq != expected_seq:
        return f"expected sequence {expected_seq}, found {entry.seq}"
    if entry.prev_hash != prev:
        return "previous-hash link does not match the entry before"
    problem = None if entry.seq in checked else entry_problem(entry, keys)
    if problem is not None:
        return problem
    if keys.rank(entry.signature) < newest:
        return "entry is signed by a key retired before it"
    if entry.org_id != org_id:
        return f"entry belongs to organization {entry.org_id}"
    return None


def _first_break(
    org_id: str,
    entries: Iterable[ChainLink],
    keys: ChainKeys,
    observe: Callable[[ChainLink], None] | None,
    checked: Container[int],
) -> tuple[int, str, int, str | None, int]:
    """Walk the chain: (entries seen, last good hash, position of the break, problem, rank
    of the newest key seen)."""
    prev = GENESIS_HASH
    count = 0
    newest = 0
    for expected_seq, entry in enumerate(entries, start=1):
        count = expected_seq
        problem = _entry_break(org_id, entry, expected_seq, prev, keys, newest, checked)
        if problem is not None:
            return count, prev, expected_seq, problem, newest
        newest = keys.rank(entry.signature)
        if observe is not None:
            observe(entry)
        prev = entry.entry_hash
    return count, prev, count + 1, None, newest


def verify_chain(
    org_id: str,
    entries: Iterable[ChainLink],
    head: ChainHead | None,
    keys: ChainKeys,
    observe: Callable[[ChainLink], None] | None = None,
    checked: Container[int] = frozenset(),
) -> ChainVerification:
    """Check sequence, links, hashes and signatures of ``entries`` (in storage order) and
    the signed ``head``. ``observe`` sees every entry that verified, in order (the
    cross-checks of :mod:`domain.audit.crosscheck` collect what they need this way).

    ``checked`` holds the sequence numbers of entries whose content and signature the
    caller has seen verified before, exactly as they are now (the same stored bytes):
    their hash is not recomputed. Everything else is: their place in the sequence, their
    link to the entry before, their key's rank, their organization, and the head."""
    count, prev, at, problem, newest = _first_break(org_id, entries, keys, observe, checked)
    if problem is not None:
        return ChainVerification(
            ok=False, entries=count, head_hash=prev, broken_at=at, problem=problem
        )
    if head is None:
        return ChainVerification(
            ok=False, entries=count, head_hash=prev, broken_at=1, problem="the chain has no head"
        )
    if head.seq != count or head.entry_hash != prev:
        return ChainVerification(
            ok=False,
            entries=count,
            head_hash=prev,
            broken_at=min(head.seq, count) + 1,
            problem=f"chain head says {head.seq} entries, the chain has {count}",
        )
    if not keys.head_signed(org_id, count, prev, head.signature) or (
        keys.rank(head.signature) < newest
    ):
        return ChainVerification(
            ok=False,
            entries=count,
            head_hash=prev,
            broken_at=count,
            problem="chain head signature is missing or not made by a known audit key",
        )
    return ChainVerification(ok=True, entries=count, head_hash=prev)
