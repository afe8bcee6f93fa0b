"""The audit chain in the database: append under the org's head lock, read, verify."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Connection, Row, Text, bindparam, cast, delete, insert, select, update
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.organization_state import stored_configuration
from adapters.store.session import Database
from adapters.store.tables import (
    CONNECTOR_TABLES,
    AuditCheckpointRow,
    AuditEntryRow,
    AuditHeadRow,
    AuditTreeNodeRow,
    DecisionRow,
    IntentRow,
    OrgRow,
    table_of,
)
from domain.audit.bundle import Bundle, ConsistencyProof, InclusionProof
from domain.audit.chain import (
    GENESIS_HASH,
    AuditDraft,
    AuditEntry,
    ChainHead,
    ChainKeys,
    ChainLink,
    ChainVerification,
    link,
    verify_chain,
)
from domain.audit.checkpoint import (
    Checkpoint,
    SignedNote,
    add_signatures,
    parse_note,
    sign_checkpoint,
)
from domain.audit.crosscheck import (
    CONFIGURATION,
    ChainFacts,
    DecisionRecord,
    WriteRecord,
    causes,
)
from domain.audit.merkle import (
    Frontier,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    range_hash,
    root_of,
    verify_consistency,
    verify_inclusion,
)
from domain.audit.ports import AuditError
from domain.audit.tree import (
    CHECKPOINT_EVERY,
    KEPT_LEVELS,
    TreeWalk,
    origin_of,
    read_checkpoints,
)
from domain.canonical import loads_checked
from domain.memory.adapter import MemoryAdapter
from domain.tools import REGISTRY


def lock_head(session: Session, org_id: str) -> ChainHead:
    """Read the org's chain head under a row lock; serialises appends, broker decisions
    and configuration changes of one organization."""
    return lock(session, org_id).head


@dataclass
class LockedHead:
    """An organization's head row, read under its lock at the start of a transaction."""

    head: ChainHead
    poisoned: str | None
    config_seq: int
    tree: str | None = None
    """The tree's frontier as stored; None: a chain from before the tree."""
    checkpoint_size: int = 0


_heads, _entries = table_of(AuditHeadRow), table_of(AuditEntryRow)
_LOCK = (
    select(
        _heads.c.seq,
        _heads.c.entry_hash,
        _heads.c.signature,
        _heads.c.poisoned,
        _heads.c.config_seq,
        _heads.c.tree,
        _heads.c.checkpoint_size,
    )
    .where(_heads.c.org_id == bindparam("org_id"))
    .with_for_update()
)
_RECORDED = select(*_entries.c).where(
    _entries.c.org_id == bindparam("org_id"), _entries.c.event_key == bindparam("event_key")
)
_INSERT_ENTRY = insert(_entries)
_WRITE_HEAD = (
    update(_heads)
    .where(_heads.c.org_id == bindparam("b_org_id"))
    .values(
        seq=bindparam("b_seq"),
        entry_hash=bindparam("b_entry_hash"),
        signature=bindparam("b_signature"),
        config_seq=bindparam("b_config_seq"),
        tree=bindparam("b_tree"),
        checkpoint_size=bindparam("b_checkpoint_size"),
    )
)
_nodes, _checkpoints = table_of(AuditTreeNodeRow), table_of(AuditCheckpointRow)
_INSERT_NODES = insert(_nodes)
_INSERT_CHECKPOINT = insert(_checkpoints)


def lock(session: Session, org_id: str) -> LockedHead:
    """Take the organization's lock and read its head row; :class:`AuditError` when the
    organization has none."""
    row = session.connection().execute(_LOCK, {"org_id": org_id}).first()
    if row is None:
        raise AuditError(f"organization {org_id} has no audit chain")
    head = ChainHead(seq=row.seq, entry_hash=row.entry_hash, signature=row.signature)
    return LockedHead(
        head=head,
        poisoned=row.poisoned,
        config_seq=row.config_seq,
        tree=row.tree,
        checkpoint_size=row.checkpoint_size,
    )


class ChainWriter:
    """Appends to one organization's chain inside a transaction that holds its lock. The
    head is read once, kept here, and written back once by :meth:`flush`: a transaction
    that appends many entries (a batch of decisions) updates the head row once."""

    def __init__(self, session: Session, org_id: str, keys: ChainKeys, locked: LockedHead) -> None:
        self._c = session.connection()
        self.org_id = org_id
        self._keys = keys
        self.head = locked.head
        self.config_seq = locked.config_seq
        self._dirty = False
        self._pending: list[dict[str, Any]] = []
        """Fresh entries not yet written (written together, a statement for all)."""
        self._discarded = False
        self._appended = 0
        """Entries this writer appended (a long gap of them is this transaction's own)."""
        self._nodes: list[dict[str, Any]] = []
        """Tree nodes at kept levels made by this transaction's appends."""
        self.checkpoint_size = locked.checkpoint_size
        self.poisoned = locked.poisoned
        self._stored_tree = locked.tree
        self._tree: Frontier | None = None
        self._last_at: str | None = None

    @property
    def tree(self) -> Frontier:
        """The chain's tree after its newest entry: the stored frontier, or (a chain from
        before the tree, or a frontier that cannot be read) rebuilt from the entry hashes.
        Nothing is signed on its word: see :meth:`checkpoint`."""
        if self._tree is None:
            try:
                if self._stored_tree is None:
                    raise ValueError("a chain from before the tree")
                self._tree = Frontier.decode(self.head.seq, self._stored_tree)
            except ValueError:
                self._tree = self._build_tree()
                self._dirty = True
        return self._tree

    def _keep_node(self, level: int, index: int, node: bytes) -> None:
        if level % KEPT_LEVELS == 0:
            self._nodes.append(
                {"org_id": self.org_id, "level": level, "idx": index, "hash": node.hex()}
            )

    def _build_tree(self) -> Frontier:
        tree = Frontier()
        rows = self._c.execute(
            select(_entries.c.entry_hash)
            .where(_entries.c.org_id == self.org_id, _entries.c.seq <= self.head.seq)
            .order_by(_entries.c.seq)
        )
        self._c.execute(delete(_nodes).where(_nodes.c.org_id == self.org_id))
        for (hashed,) in rows:
            tree.append(leaf_hash(bytes.fromhex(hashed)), self._keep_node)
        if tree.size != self.head.seq:
            raise AuditError(
                f"organization {self.org_id}'s chain has {tree.size} entries under a head of "
                f"{self.head.seq}: verify it before it grows"
            )
        return tree

    def discard(self) -> None:
        """Forget what this writer appended and write nothing more (an append that failed
        in a savepoint: the head must not move past an entry that is not there)."""
        self._pending.clear()
        self._nodes.clear()
        self._dirty = False
        self._discarded = True

    def write_pending(self) -> None:
        """Write the fresh entries appended so far, and the tree nodes they made."""
        if self._pending:
            self._c.execute(_INSERT_ENTRY, self._pending)
            self._pending.clear()
        if self._nodes:
            self._c.execute(_INSERT_NODES, self._nodes)
            self._nodes.clear()

    def recorded(self, event_key: str) -> AuditEntry | None:
        self.write_pending()
        row = self._c.execute(
            _RECORDED, {"org_id": self.org_id, "event_key": event_key}
        ).one_or_none()
        return None if row is None else convert.audit_entry(row)

    def append(self, draft: AuditDraft, now: datetime, fresh: bool = False) -> AuditEntry:
        """Append ``draft``; idempotent by its event key unless the caller knows it is
        ``fresh`` (it has just checked that the event has no entry). A fresh entry is
        written with the next that is not, or by :meth:`flush`."""
        if not fresh:
            existing = self.recorded(draft.event_key)
            if existing is not None:
                return existing
        at = now.isoformat(timespec="microseconds")
        tree = self.tree  # read at the head it was stored with, before the head moves
        entry, self.head = link(self.org_id, self.head, draft, at, self._keys)
        tree.append(leaf_hash(bytes.fromhex(entry.entry_hash)), self._keep_node)
        self._last_at = at
        self._appended += 1
        if fresh:
            self._pending.append(entry.model_dump())
        else:
            self._c.execute(_INSERT_ENTRY, entry.model_dump())
        if draft.stage == CONFIGURATION:
            self.config_seq = entry.seq
        self._dirty = True
        return entry

    def checkpoint(self, now: datetime | None = None) -> SignedNote | None:
        """Cut a signed checkpoint of the tree as it stands, unless the newest one already
        covers every entry, or the broker is poisoned.

        Nothing the database says is signed on its word: the tree at the newest signed
        checkpoint must still have that checkpoint's root, and every entry after it is
        checked (its content hash, its HMAC signature by the audit key, its link and its
        place) and added to that tree here; only the root so computed is signed, and only
        when it is the stored tree's. A database writer without the audit key gets an
        :class:`AuditError`, never a signature."""
        if self.poisoned is not None:
            return None
        size = self.tree.size  # (a rebuilt tree's nodes are written with the pending)
        self.write_pending()
        last = self._c.execute(
            select(_checkpoints.c.size, _checkpoints.c.note)
            .where(_checkpoints.c.org_id == self.org_id)
            .order_by(_checkpoints.c.size.desc())
            .limit(1)
        ).first()
        start = 0 if last is None else int(last.size)
        if start >= size:
            if start > size:
                raise AuditError(
                    f"organization {self.org_id}'s chain has {size} entries, fewer than its "
                    f"newest checkpoint's {start}: it was rolled back"
                )
            return None
        frontier = self._verified_frontier(start, None if last is None else last.note)
        if frontier.size != size or frontier.root() != self.tree.root():
            raise AuditError(
                f"organization {self.org_id}'s stored tree is not the tree of its entries"
            )
        if not self._keys.head_signed(
            self.org_id, self.head.seq, self.head.entry_hash, self.head.signature
        ):
            raise AuditError(f"organization {self.org_id}'s chain head is not signed")
        root = frontier.root()
        note = sign_checkpoint(Checkpoint(origin_of(self.org_id), size, root), self._keys.signer)
        self._c.execute(
            _INSERT_CHECKPOINT,
            {
                "org_id": self.org_id,
                "size": size,
                "root": root.hex(),
                "note": note.render(),
                "at": now or datetime.fromisoformat(self._last_at or self._newest_at()),
            },
        )
        if last is not None:
            self._thin(start)
        self.checkpoint_size = size
        self._dirty = True
        return note

    def _newest_at(self) -> str:
        at = self._c.execute(
            select(_entries.c.at).where(
                _entries.c.org_id == self.org_id, _entries.c.seq == self.head.seq
            )
        ).scalar_one()
        return str(at)

    def _thin(self, previous: int) -> None:
        """Keep checkpoints at least :data:`CHECKPOINT_EVERY` entries apart, and the newest:
        the anchor cuts one a pass, and a year of passes would be a year of signatures to
        check. A checkpoint dropped here stays where it was anchored."""
        before = self._c.execute(
            select(_checkpoints.c.size)
            .where(_checkpoints.c.org_id == self.org_id, _checkpoints.c.size < previous)
            .order_by(_checkpoints.c.size.desc())
            .limit(1)
        ).scalar_one_or_none()
        if before is not None and previous - before < CHECKPOINT_EVERY:
            self._c.execute(
                delete(_checkpoints).where(
                    _checkpoints.c.org_id == self.org_id, _checkpoints.c.size == previous
                )
            )

    def _verified_frontier(self, start: int, note: str | None) -> Frontier:
        """The tree after entry ``start`` (rebuilt from the stored tree and held to the
        signed ``note`` of that size), extended by every entry after it, each verified."""
        frontier = Frontier()
        prev = GENESIS_HASH
        if start:
            signed, problem = read_checkpoints(
                origin_of(self.org_id), [note or ""], self._keys.log_keys()
            )
            if problem is not None:
                raise AuditError(f"organization {self.org_id}'s newest checkpoint: {problem}")
            stored = _StoredTree(self._c, self.org_id)
            hashes, done = [], 0
            for level in range(start.bit_length() - 1, -1, -1):
                if start >> level & 1:
                    hashes.append(stored(level, done >> level))
                    done += 1 << level
            frontier = Frontier(start, hashes)
            if frontier.root() != signed[0].checkpoint.root:
                raise AuditError(
                    f"organization {self.org_id}'s first {start} entries are not the ones its "
                    "newest checkpoint signed"
                )
            row = self._c.execute(
                select(_entries.c.entry_hash, _entries.c.signature).where(
                    _entries.c.org_id == self.org_id, _entries.c.seq == start
                )
            ).first()
            # The entry the next links to must be the signed tree's last leaf: with a kept
            # node at the edge, the frontier above did not read it.
            path = inclusion_proof(start - 1, start, stored) if row is not None else []
            if row is None or not verify_inclusion(
                start - 1, start, leaf_hash(bytes.fromhex(row.entry_hash)), path, frontier.root()
            ):
                raise AuditError(
                    f"organization {self.org_id}'s entry {start} is not the one its newest "
                    "checkpoint signed"
                )
            prev, newest = row.entry_hash, self._keys.rank(row.signature)
        else:
            newest = 0
        rows = self._c.execute(
            select(_entries.c.seq, _entries.c.at, _entries.c.prev_hash, _entries.c.entry_hash)
            .add_columns(_entries.c.signature)
            .where(_entries.c.org_id == self.org_id, _entries.c.seq > start)
            .order_by(_entries.c.seq)
            .execution_options(yield_per=2000)
        )
        keys = self._keys
        for row in rows:
            # Each leaf signed is an entry hash the audit key signed, in its place, linked
            # to the one before, the keys only moving forward. Its content is not hashed
            # again here (that is every verification's work): whatever the rows say, no
            # chain but the key holder's own can pass a verification under this root.
            expected = frontier.size + 1
            problem = (
                f"expected entry {expected}, found {row.seq}"
                if row.seq != expected
                else "previous-hash link does not match the entry before"
                if row.prev_hash != prev
                else "entry signature is missing or not made by a known audit key"
                if not keys.entry_signed(row.entry_hash, row.signature)
                else "entry is signed by a key retired before it"
                if keys.rank(row.signature) < newest
                else None
            )
            if problem is not None:
                raise AuditError(
                    f"organization {self.org_id}'s entry {expected} cannot be signed: {problem}"
                )
            newest = keys.rank(row.signature)
            frontier.append(leaf_hash(bytes.fromhex(row.entry_hash)))
            prev = row.entry_hash
            self._last_at = row.at
        if self._keys.rank(self.head.signature) < newest:
            raise AuditError(
                f"organization {self.org_id}'s chain head is signed by a key retired before "
                "its newest entry's"
            )
        return frontier

    def flush(self, now: datetime | None = None) -> None:
        """Write pending entries, tree nodes and the head row back, if anything was
        appended; a checkpoint too, once :data:`CHECKPOINT_EVERY` entries are past the
        newest (``now`` is its time; the clock's when not given)."""
        if self._discarded:
            return
        self.write_pending()
        # A count checkpoint verifies the entries since the last: bounded here, in the
        # append's transaction. A longer gap (a chain from before the tree) is the anchor's.
        gap = 0 if self._tree is None else self._tree.size - self.checkpoint_size
        if gap >= CHECKPOINT_EVERY and gap - self._appended <= 2 * CHECKPOINT_EVERY:
            self.checkpoint(now)
        if self._dirty:
            head = self.head
            self._c.execute(
                _WRITE_HEAD,
                {
                    "b_org_id": self.org_id,
                    "b_seq": head.seq,
                    "b_entry_hash": head.entry_hash,
                    "b_signature": head.signature,
                    "b_config_seq": self.config_seq,
                    "b_tree": self._stored_tree if self._tree is None else self._tree.encode(),
                    "b_checkpoint_size": self.checkpoint_size,
                },
            )
            self._dirty = False


def append(
    session: Session, org_id: str, draft: AuditDraft, now: datetime, keys: ChainKeys
) -> AuditEntry:
    """Append ``draft`` (idempotent by event key) inside the caller's transaction, signed
    with ``keys``, taking the organization's lock if the caller has not."""
    writer = ChainWriter(session, org_id, keys, lock(session, org_id))
    entry = writer.append(draft, now)
    writer.flush()
    return entry


class _StoredTree:
    """Complete subtrees of an organization's tree, as a proof asks for them: a kept node
    read as stored, any other recomputed from the nearest kept level below (entry hashes
    at the bottom). Whatever is read here is only ever checked against a signed root."""

    def __init__(self, connection: Connection, org_id: str) -> None:
        self._c = connection
        self._org = org_id
        self._bands: dict[tuple[int, int, int], list[bytes]] = {}

    def _band(self, base: int, first: int, count: int) -> list[bytes]:
        key = (base, first, count)
        if key not in self._bands:
            if base == 0:
                rows = self._c.execute(
                    select(_entries.c.entry_hash)
                    .where(
                        _entries.c.org_id == self._org,
                        _entries.c.seq > first,
                        _entries.c.seq <= first + count,
                    )
                    .order_by(_entries.c.seq)
                )
                hashes = [leaf_hash(bytes.fromhex(h)) for (h,) in rows]
            else:
                rows = self._c.execute(
                    select(_nodes.c.hash)
                    .where(
                        _nodes.c.org_id == self._org,
                        _nodes.c.level == base,
                        _nodes.c.idx >= first,
                        _nodes.c.idx < first + count,
                    )
                    .order_by(_nodes.c.idx)
                )
                hashes = [bytes.fromhex(h) for (h,) in rows]
            if len(hashes) != count:
                raise AuditError(
                    f"organization {self._org}'s tree lacks nodes at level {base} "
                    f"from {first}: verify the chain"
                )
            self._bands[key] = hashes
        return self._bands[key]

    def __call__(self, level: int, index: int) -> bytes:
        base = level - level % KEPT_LEVELS
        width = 1 << (level - base)
        return root_of(self._band(base, index * width, width))


def _decisions(s: Session, org_id: str) -> Iterator[DecisionRecord]:
    rows = s.execute(
        select(
            col(DecisionRow.id),
            col(DecisionRow.intent_id),
            col(DecisionRow.outcome),
            col(DecisionRow.stage),
            col(DecisionRow.rule),
            col(DecisionRow.reason),
            col(DecisionRow.reasons),
            col(DecisionRow.audit_seq),
            col(DecisionRow.entry_hash),
        ).where(col(DecisionRow.org_id) == org_id)
    )
    for row in rows:
        yield DecisionRecord(
            row=f"{row.id} (intent {row.intent_id})",
            intent_id=row.intent_id,
            audit_seq=row.audit_seq,
            entry_hash=row.entry_hash,
            outcome=row.outcome,
            stage=row.stage,
            rule=row.rule,
            reason=row.reason,
            reasons=causes(row.reasons),
        )


def _writes(s: Session, org_id: str) -> Iterator[WriteRecord]:
    for system, table in CONNECTOR_TABLES:
        tools = [t for t in REGISTRY.values() if t.system == system]
        required = {p for t in tools for p in t.params}
        params = sorted(required | {p for t in tools for p in t.optional_params})
        t = table_of(table)
        rows = s.connection().execute(
            select(t.c.intent_id, t.c.audit_seq, t.c.entry_hash, *(t.c[p] for p in params)).where(
                t.c.org_id == org_id
            )
        )
        for row in rows:
            yield WriteRecord(
                system=system,
                intent_id=row.intent_id,
                audit_seq=row.audit_seq,
                entry_hash=row.entry_hash,
                # An optional parameter the payload left out is stored as NULL.
                payload={
                    p: row._mapping[p]
                    for p in params
                    if p in required or row._mapping[p] is not None
                },
            )


def _written(s: Session, org_id: str) -> dict[str, str | None]:
    """Intents stored as dispatched, and their operation keys."""
    rows = s.execute(
        select(col(IntentRow.id), col(IntentRow.op_key)).where(
            col(IntentRow.org_id) == org_id, col(IntentRow.dispatched)
        )
    )
    return {r.id: r.op_key for r in rows}


class _Link(NamedTuple):
    """An entry as verification reads it: a :class:`ChainLink` made of plain values."""

    org_id: str
    seq: int
    at: str
    event_key: str
    actor: str
    intent_id: str | None
    decision: str
    stage: str
    rule: str
    payload: dict[str, Any]
    prev_hash: str
    entry_hash: str
    signature: str


# The payload as its stored text: parsed by loads_checked, which notes on the way whether
# the standard library's encoder may canonicalise it.
_ENTRY_COLUMNS = tuple(
    cast(col(AuditEntryRow.payload), Text)
    if name == "payload"
    else col(getattr(AuditEntryRow, name))
    for name in _Link._fields
)
_PAYLOAD_AT = _Link._fields.index("payload")
_SEQ_AT = _Link._fields.index("seq")


def _link(values: Sequence[Any]) -> _Link:
    parsed = list(values)
    parsed[_PAYLOAD_AT] = loads_checked(parsed[_PAYLOAD_AT])
    return _Link(*parsed)


def _row_digest(values: tuple[Any, ...]) -> bytes:
    """A digest of a stored row as read (every column, the payload as its stored text):
    the same digest, the same bytes. ``repr`` quotes each value, so no two different
    rows read the same."""
    return hashlib.sha256(repr(values).encode("utf-8", "surrogatepass")).digest()


VERIFIED_KEPT = 20_000
"""How many verified entries an audit log keeps for the audit page, with the digest of
the row each was read from (a few kilobytes each). Past it, further entries are verified
in full every time."""


class _Verified:
    """Entries this process has verified and listed, by organization and sequence, each
    with the digest of the stored row it was read from. A row that reads back with the
    same digest is the same bytes: its hash and signature need not be recomputed, nor its
    payload parsed again. Any other row is verified in full, so an edit to an old entry is
    found at the very next verification, as before. Kept in memory only: nothing the
    database holds can say an entry was verified."""

    def __init__(self, limit: int = VERIFIED_KEPT) -> None:
        self._limit = limit
        self._entries: dict[tuple[str, int], tuple[bytes, AuditEntry]] = {}
        self._orgs: set[str] = set()
        self._lock = threading.Lock()

    def knows(self, org_id: str) -> bool:
        """Whether any entry of ``org_id`` is kept."""
        return org_id in self._orgs

    def read(
        self, org_id: str, rows: Iterable[Row[Any]], checked: set[int], digests: dict[int, bytes]
    ) -> Iterator[AuditEntry | _Link]:
        """Each row as an entry: the one verified before when its row is unchanged (its
        sequence number added to ``checked``), else parsed (its row's digest put in
        ``digests``, to keep it under once it verifies)."""
        for row in rows:
            values = tuple(row)
            digest = _row_digest(values)
            seq = values[_SEQ_AT]
            known = self._entries.get((org_id, seq))
            if known is not None and known[0] == digest:
                checked.add(seq)
                yield known[1]
            else:
                digests[seq] = digest
                yield _link(values)

    def keep(self, org_id: str, entry: AuditEntry, digest: bytes) -> None:
        """Keep ``entry``, verified, as read from a row of ``digest``."""
        with self._lock:
            if len(self._entries) < self._limit:
                self._entries[(org_id, entry.seq)] = (digest, entry)
                self._orgs.add(org_id)


class AuditLog:
    """Appends to, reads and verifies organizations' chains."""

    def __init__(self, db: Database, keys: ChainKeys, memory: MemoryAdapter) -> None:
        self._db = db
        self._keys = keys
        self._memory = memory
        self._verified = _Verified()

    def append(self, org_id: str, draft: AuditDraft, now: datetime) -> AuditEntry:
        """Append one entry in its own transaction."""
        with self._db.transaction() as s:
            return append(s, org_id, draft, now, self._keys)

    def entries(
        self, org_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[AuditEntry]:
        """Entries in sequence order."""
        with self._db.read() as s:
            query = (
                select(AuditEntryRow)
                .where(col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.seq) > after_seq)
                .order_by(col(AuditEntryRow.seq))
            )
            if limit is not None:
                query = query.limit(limit)
            return [convert.audit_entry(r) for r in s.execute(query).scalars()]

    def of_intent(self, org_id: str, intent_id: str) -> list[AuditEntry]:
        """The entries about one intent, in sequence order (an indexed read)."""
        with self._db.read() as s:
            rows = s.execute(
                select(AuditEntryRow)
                .where(
                    col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.intent_id) == intent_id
                )
                .order_by(col(AuditEntryRow.seq))
            ).scalars()
            return [convert.audit_entry(r) for r in rows]

    def head(self, org_id: str) -> ChainHead | None:
        """The org's chain head, or None for an unknown org."""
        with self._db.read() as s:
            row = s.get(AuditHeadRow, org_id)
            return (
                None
                if row is None
                else ChainHead(seq=row.seq, entry_hash=row.entry_hash, signature=row.signature)
            )

    def verify(self, org_id: str, anchored: str | None = None) -> ChainVerification:
        """Recompute every hash, link and signature of the org's chain, compare it with its
        signed head, and check that every decision and connector row names its entry; then
        its tree against every stored checkpoint and against ``anchored`` (the newest
        checkpoint kept outside the database), which it must still contain."""
        return self._verify(org_id, None, anchored)

    def verified_entries(
        self, org_id: str, anchored: str | None = None
    ) -> tuple[ChainVerification, list[AuditEntry]]:
        """:meth:`verify`, and the entries it verified (all of them, when it breaks).

        The entries are the ones this log keeps for its next verification, shared by every
        caller: read them, never change them (a changed payload would be what the next
        verification cross-checks)."""
        kept: list[AuditEntry] = []
        result = self._verify(org_id, kept, anchored)
        if not result.ok:
            kept = self.entries(org_id)  # it may have stopped at a break: list it whole
        return result, kept

    def _verify(
        self, org_id: str, kept: list[AuditEntry] | None, anchored: str | None
    ) -> ChainVerification:
        with self._db.read() as s:
            # Plain rows, streamed: a long chain is neither held in memory at once nor
            # turned into validated models one by one.
            entries = s.execute(
                select(*_ENTRY_COLUMNS)
                .where(col(AuditEntryRow.org_id) == org_id)
                .order_by(col(AuditEntryRow.seq))
                .execution_options(yield_per=2000)
            )
            head_row = s.get(AuditHeadRow, org_id)
            walk, tree_problem, newest_size = self._tree_walk(s, org_id, anchored)
            head = (
                None
                if head_row is None
                else ChainHead(
                    seq=head_row.seq, entry_hash=head_row.entry_hash, signature=head_row.signature
                )
            )
            facts = ChainFacts(_decisions(s, org_id), _writes(s, org_id))
            checked: set[int] = set()
            digests: dict[int, bytes] = {}
            # What the audit page verified is kept for its next view; a verification that
            # lists nothing (the worker's, the command line's) adds nothing to it.
            links: Iterable[AuditEntry | _Link] = (
                self._verified.read(org_id, entries, checked, digests)
                if kept is not None or self._verified.knows(org_id)
                else map(_link, entries)
            )

            tree_break: list[tuple[int, str]] = []

            def observe(link: ChainLink) -> None:  # ``link`` verified
                facts.observe(link)
                problem = walk.add(link.entry_hash)
                if problem is not None and not tree_break:
                    tree_break.append((link.seq, problem))
                if kept is None:
                    return
                entry = AuditEntry(**link._asdict()) if isinstance(link, _Link) else link
                assert isinstance(entry, AuditEntry)
                digest = digests.pop(entry.seq, None)
                if digest is not None:
                    self._verified.keep(org_id, entry, digest)
                kept.append(entry)

            result = verify_chain(org_id, links, head, self._keys, observe, checked)
            if not result.ok:
                return result
            if tree_problem is None and tree_break:
                at, tree_problem = tree_break[0]
                return result.model_copy(
                    update={"ok": False, "broken_at": at, "problem": tree_problem}
                )
            tree_problem = tree_problem or walk.finish()
            if tree_problem is None and head_row is not None and head_row.tree is not None:
                if head_row.tree != walk.tree.encode():
                    tree_problem = "the stored tree is not the tree of the chain"
                elif head_row.checkpoint_size != newest_size:
                    tree_problem = (
                        f"the head names a checkpoint of {head_row.checkpoint_size} entries, "
                        f"the newest stored is of {newest_size}"
                    )
            if tree_problem is not None:
                return result.model_copy(
                    update={"ok": False, "broken_at": result.entries + 1, "problem": tree_problem}
                )
            disagreement = facts.problem(
                _written(s, org_id), stored_configuration(s, org_id, self._memory)
            )
            if disagreement is None:
                return result
            at, problem = disagreement
            return result.model_copy(update={"ok": False, "broken_at": at, "problem": problem})

    def _tree_walk(
        self, s: Session, org_id: str, anchored: str | None
    ) -> tuple[TreeWalk, str | None, int]:
        """A walk that holds the chain to its stored checkpoints and to ``anchored``, and
        the problem with those checkpoints themselves, if any."""
        origin = origin_of(org_id)
        notes = s.execute(
            select(col(AuditCheckpointRow.note)).where(col(AuditCheckpointRow.org_id) == org_id)
        ).scalars()
        log_keys = self._keys.log_keys()
        found, problem = read_checkpoints(origin, notes, log_keys)
        trusted = None
        if anchored is not None and problem is None:
            held, problem = read_checkpoints(origin, [anchored], log_keys)
            if problem is not None:
                problem = f"the anchored checkpoint: {problem}"
            else:
                trusted = held[0].checkpoint
                newest = max((f.rank for f in found), default=-1)
                if held[0].rank > newest and found:
                    problem = "the anchored checkpoint is signed by a newer key than any stored"
        newest_size = max((f.checkpoint.size for f in found), default=0)
        return TreeWalk([f.checkpoint for f in found], trusted), problem, newest_size

    def checkpoint(self, org_id: str, now: datetime) -> SignedNote | None:
        """Cut a checkpoint of the org's tree now, if the newest does not cover every entry
        (a chain from before the tree gets its tree first); None when nothing is new."""
        with self._db.transaction() as s:
            writer = ChainWriter(s, org_id, self._keys, lock(s, org_id))
            note = writer.checkpoint(now)
            writer.flush(now)
            return note

    def checkpoints(self, org_id: str, since: int = 0) -> list[str]:
        """The org's checkpoints of more than ``since`` entries, as signed notes, by size."""
        with self._db.read() as s:
            return list(
                s.execute(
                    select(col(AuditCheckpointRow.note))
                    .where(
                        col(AuditCheckpointRow.org_id) == org_id,
                        col(AuditCheckpointRow.size) > since,
                    )
                    .order_by(col(AuditCheckpointRow.size))
                ).scalars()
            )

    def newest_checkpoint(self, org_id: str) -> str | None:
        """The org's newest checkpoint (a signed note), or None before the first."""
        with self._db.read() as s:
            return s.execute(
                select(col(AuditCheckpointRow.note))
                .where(col(AuditCheckpointRow.org_id) == org_id)
                .order_by(col(AuditCheckpointRow.size).desc())
                .limit(1)
            ).scalar_one_or_none()

    def add_cosignature(self, org_id: str, size: int, lines: Sequence[str]) -> None:
        """Add witnesses' cosignature lines to the stored checkpoint of ``size``."""
        with self._db.transaction() as s:
            row = s.get(AuditCheckpointRow, (org_id, size))
            if row is None:  # thinned meanwhile: the anchored note carries the cosignature
                return
            note = add_signatures(parse_note(row.note), lines)
            row.note = note.render()

    def _newest_signed(self, s: Session, org_id: str, now: datetime) -> tuple[int, str]:
        """In a transaction holding the org's lock: cut a checkpoint if the newest does
        not cover every entry, and return the newest (size, signed note)."""
        writer = ChainWriter(s, org_id, self._keys, lock(s, org_id))
        writer.checkpoint(now)
        writer.flush(now)
        newest = s.execute(
            select(col(AuditCheckpointRow.size), col(AuditCheckpointRow.note))
            .where(col(AuditCheckpointRow.org_id) == org_id)
            .order_by(col(AuditCheckpointRow.size).desc())
            .limit(1)
        ).first()
        if newest is None:
            raise AuditError(f"organization {org_id}'s chain has no checkpoint yet")
        return int(newest.size), str(newest.note)

    def inclusion(self, org_id: str, seq: int, now: datetime) -> InclusionProof:
        """The proof that entry ``seq`` is in the org's newest checkpoint (cut now when
        the entry is newer than it), read in the transaction that holds the lock."""
        with self._db.transaction() as s:
            size, note = self._newest_signed(s, org_id, now)
            if not 1 <= seq <= size:
                raise AuditError(f"organization {org_id}'s chain has no entry {seq}")
            row = s.get(AuditEntryRow, (org_id, seq))
            assert row is not None
            path = inclusion_proof(seq - 1, size, _StoredTree(s.connection(), org_id))
            return InclusionProof(
                entry=convert.audit_entry(row),
                tree_size=size,
                hashes=[h.hex() for h in path],
                checkpoint=note,
            )

    def consistency(self, org_id: str, old: int, new: int) -> ConsistencyProof:
        """The proof that the org's checkpoint of ``new`` entries extends its tree of
        ``old`` (any earlier size: a checkpoint someone kept may have been thinned from the
        table since; they hold its note)."""
        if not 0 < old <= new:
            raise AuditError(f"no consistency proof from {old} to {new} entries")
        with self._db.read() as s:
            notes = {
                r.size: r.note
                for r in s.execute(
                    select(col(AuditCheckpointRow.size), col(AuditCheckpointRow.note)).where(
                        col(AuditCheckpointRow.org_id) == org_id,
                        col(AuditCheckpointRow.size).in_((old, new)),
                    )
                )
            }
            if new not in notes:
                raise AuditError(f"organization {org_id} has no checkpoint of {new} entries")
            path = consistency_proof(old, new, _StoredTree(s.connection(), org_id))
            return ConsistencyProof(
                old_size=old,
                old=notes.get(old),
                new=notes[new],
                hashes=[h.hex() for h in path],
            )

    def consistency_path(self, org_id: str, old: int, new: int) -> list[bytes]:
        """The consistency proof from ``old`` entries to ``new``, from the stored tree."""
        with self._db.read() as s:
            return consistency_proof(old, new, _StoredTree(s.connection(), org_id))

    def export(self, org_id: str, now: datetime, anchored: str | None = None) -> Bundle:
        """The org's chain as a bundle for a verifier offline: a checkpoint cut first
        (under the lock, briefly), then the entries up to it and the checkpoints read in a
        snapshot of their own. Entries up to a checkpoint never change, so an append
        meanwhile changes nothing read; the newest note is kept as cut (a later cut may
        thin it from the table)."""
        with self._db.transaction() as s:
            size, newest = self._newest_signed(s, org_id, now)
        with self._db.read() as s:
            rows = s.execute(
                select(AuditEntryRow)
                .where(col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.seq) <= size)
                .order_by(col(AuditEntryRow.seq))
                .execution_options(yield_per=2000)
            ).scalars()
            entries = [convert.audit_entry(r) for r in rows]
            notes = s.execute(
                select(col(AuditCheckpointRow.note))
                .where(
                    col(AuditCheckpointRow.org_id) == org_id,
                    col(AuditCheckpointRow.size) < size,
                )
                .order_by(col(AuditCheckpointRow.size))
            ).scalars()
            return Bundle(
                origin=origin_of(org_id),
                entries=entries,
                checkpoints=[*notes, newest],
                anchored=anchored,
                keys=self.log_keys(),
            )

    def log_keys(self) -> list[str]:
        """The public keys (vkeys) that sign checkpoints, oldest first."""
        return [v.vkey() for v in self._keys.log_keys().verifiers]

    def org_ids(self) -> list[str]:
        """Every organization with a chain."""
        with self._db.read() as s:
            return sorted(s.execute(select(col(AuditHeadRow.org_id))).scalars())

    def extends(self, org_id: str, anchored: str | None, newest: str) -> str | None:
        """Why the org's stored tree and its ``newest`` checkpoint do not extend the
        ``anchored`` checkpoint, or None when they do: the tree as stored still has the
        anchored root at the anchored size, and a consistency proof from it to ``newest``
        verifies."""
        notes = [newest] if anchored is None else [anchored, newest]
        _, problem = read_checkpoints(origin_of(org_id), notes, self._keys.log_keys())
        if problem is not None:
            return problem
        if anchored is None:
            return None
        old, new = (parse_note(n).checkpoint() for n in (anchored, newest))
        if new.size < old.size:
            return (
                f"the chain's newest checkpoint covers {new.size} entries, fewer than the "
                f"{old.size} anchored: it was rolled back"
            )
        try:
            with self._db.read() as s:
                head = s.get(AuditHeadRow, org_id)
                if head is None:
                    return f"the chain is gone (the anchor holds {old.size} entries of it)"
                if head.seq < old.size:
                    return (
                        f"the chain has {head.seq} entries, fewer than the {old.size} "
                        "anchored: it was rolled back"
                    )
                tree = _StoredTree(s.connection(), org_id)
                if range_hash(0, old.size, tree) != old.root:
                    return (
                        f"the chain's first {old.size} entries are not the ones anchored: "
                        "they were rewritten (a split view)"
                    )
                path = consistency_proof(old.size, new.size, tree)
        except AuditError as e:
            return f"{e} (the anchor holds {old.size} entries)"
        if not verify_consistency(old.size, new.size, old.root, new.root, path):
            return f"the tree of {new.size} entries does not extend the {old.size} anchored"
        return None

    def verify_all(self) -> dict[str, ChainVerification]:
        """Verify every organization's chain; used when a worker starts its broker. An
        organization is known by its row, its head or any of its entries, so removing
        one of these does not hide the others."""
        with self._db.read() as s:
            org_ids = (
                set(s.execute(select(col(OrgRow.id))).scalars())
                | set(s.execute(select(col(AuditHeadRow.org_id))).scalars())
                | set(s.execute(select(col(AuditEntryRow.org_id)).distinct()).scalars())
            )
        return {org_id: self.verify(org_id) for org_id in sorted(org_ids)}
