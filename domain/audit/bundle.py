"""What leaves the database: an export of a chain, the proof of one entry, and their
verification by someone who has only these files and the log's public keys.

Neither needs the database, the network, nor any secret. The HMAC signatures of entries
(made with the audit key, a secret) cannot be checked here and are not needed: every
entry under a signed checkpoint is bound to it by the Merkle tree.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from domain.audit.chain import GENESIS_HASH, AuditEntry, entry_body, entry_hash
from domain.audit.checkpoint import Checkpoint, NoteError, parse_note
from domain.audit.merkle import leaf_hash, root_from_inclusion
from domain.audit.tree import LogKeys, Signed, TreeWalk, read_checkpoints
from domain.organization.contracts import Frozen

BUNDLE_FORMAT = "verletica-audit-bundle/1"
PROOF_FORMAT = "verletica-audit-proof/1"


class InclusionProof(Frozen):
    """One entry, where it stands in a tree, and the checkpoint that signs that tree."""

    format: str = PROOF_FORMAT
    entry: AuditEntry
    tree_size: int
    hashes: list[str]
    """The audit path, hex, from the leaf's sibling up (RFC 9162 §2.1.3)."""
    checkpoint: str
    """The signed note of a checkpoint of ``tree_size`` entries."""


class ConsistencyProof(Frozen):
    """That the tree of one checkpoint extends the tree of an earlier one."""

    old: str
    """The earlier checkpoint's signed note."""
    new: str
    hashes: list[str]


class Bundle(Frozen):
    """An organization's chain as exported: its entries in order, every checkpoint of it,
    the newest anchored checkpoint (with its witnesses' cosignatures) and the public keys."""

    format: str = BUNDLE_FORMAT
    origin: str
    entries: list[AuditEntry]
    checkpoints: list[str]
    anchored: str | None = None
    keys: list[str] = Field(default_factory=list)
    """The log's public keys (vkeys), oldest first, as the log published them; a verifier
    checks against the keys it was given, never these."""


class Finding(Frozen):
    """What an offline verification found: ok, or the first thing wrong and where."""

    ok: bool
    entries: int
    """Entries read."""
    covered: int
    """Entries under a checkpoint signed by a given key."""
    problem: str | None = None
    at: int | None = None
    """The first bad entry's sequence number, when the problem is at an entry."""

    def words(self) -> str:
        """One sentence for a person."""
        if self.ok:
            return f"verified: all {self.entries} entries, under checkpoints signed by a given key"
        where = f" (entry {self.at})" if self.at is not None else ""
        return f"NOT verified{where}: {self.problem}"


def _entry_problem(entry: AuditEntry, seq: int, prev: str, org_id: str) -> str | None:
    if entry.seq != seq:
        return (
            f"entries {seq} to {entry.seq - 1} are missing"
            if entry.seq > seq
            else f"expected entry {seq}, found {entry.seq} (reordered or repeated)"
        )
    if entry.org_id != org_id:
        return f"the entry belongs to organization {entry.org_id}"
    if entry.prev_hash != prev:
        return "its previous-hash link does not match the entry before"
    if entry_hash(entry.prev_hash, entry_body(entry)) != entry.entry_hash:
        return "its hash does not match its content"
    return None


def verify_bundle(
    bundle: Bundle, keys: LogKeys, trusted: Sequence[str] = (), org_id: str | None = None
) -> Finding:
    """Check ``bundle`` with the public ``keys`` only. ``trusted`` are checkpoints the
    verifier kept from before (a witness's, an earlier export's): the chain must still
    hold the trees they sign, all of them, so a truncation or a rollback below any of
    them, or a second tree of their size, is found."""
    found, problem = read_checkpoints(
        bundle.origin,
        [*bundle.checkpoints, *trusted, *([bundle.anchored] if bundle.anchored else [])],
        keys,
    )
    if problem is not None:
        return Finding(ok=False, entries=len(bundle.entries), covered=0, problem=problem)
    org = org_id or bundle.origin.rpartition("/")[2]
    walk = TreeWalk([s.checkpoint for s in found])
    prev = GENESIS_HASH
    for seq, entry in enumerate(bundle.entries, start=1):
        problem = _entry_problem(entry, seq, prev, org) or walk.add(entry.entry_hash)
        if problem is not None:
            return Finding(
                ok=False, entries=len(bundle.entries), covered=0, problem=problem, at=seq
            )
        prev = entry.entry_hash
    problem = walk.finish()
    entries = len(bundle.entries)
    covered = min(max((s.checkpoint.size for s in found), default=0), entries)
    if problem is None and covered < entries:
        # An export is checkpointed whole: entries no signature covers could be anyone's.
        problem = (
            f"entries {covered + 1} to {entries} are under no signed checkpoint: "
            "nothing tells them from forged ones"
        )
        return Finding(ok=False, entries=entries, covered=covered, problem=problem, at=covered + 1)
    return Finding(ok=problem is None, entries=entries, covered=covered, problem=problem)


def _signed(origin: str, note: str, keys: LogKeys) -> tuple[Signed | None, str | None]:
    found, problem = read_checkpoints(origin, [note], keys)
    return (found[0] if found else None), problem


def verify_inclusion_proof(proof: InclusionProof, keys: LogKeys) -> str | None:
    """Why ``proof`` does not show its entry in a tree signed by one of ``keys``; None
    when it does."""
    try:
        origin = parse_note(proof.checkpoint).checkpoint().origin
    except NoteError as e:
        return f"the checkpoint cannot be read: {e}"
    signed, problem = _signed(origin, proof.checkpoint, keys)
    if signed is None:
        return problem
    checkpoint: Checkpoint = signed.checkpoint
    entry = proof.entry
    if origin.rpartition("/")[2] != entry.org_id:
        return "the checkpoint is of another organization's chain"
    if checkpoint.size != proof.tree_size:
        return f"the proof is for a tree of {proof.tree_size}, the checkpoint of {checkpoint.size}"
    if entry_hash(entry.prev_hash, entry_body(entry)) != entry.entry_hash:
        return "the entry's hash does not match its content"
    try:
        path = [bytes.fromhex(h) for h in proof.hashes]
    except ValueError:
        return "the proof's hashes are not hex"
    leaf = leaf_hash(bytes.fromhex(entry.entry_hash))
    if root_from_inclusion(entry.seq - 1, proof.tree_size, leaf, path) != checkpoint.root:
        return "the proof does not lead from the entry to the checkpoint's root"
    return None
