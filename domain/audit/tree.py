"""Checkpoints over an organization's chain, and checking a chain against them.

A checkpoint names an organization's tree (origin, size, root) and is signed with
Ed25519 by the log's key (:mod:`domain.audit.checkpoint`). Whoever holds a checkpoint
can tell, from the entries alone and the public key, whether the chain they are shown is
the one that was signed: same entries at that size (nothing edited, inserted, reordered
or recomputed), and not fewer (nothing truncated or rolled back).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.audit.checkpoint import Checkpoint, NoteError, SignedNote, Verifier, parse_note
from domain.audit.merkle import Frontier, leaf_hash

LOG_NAME = "verletica-audit"
"""The checkpoint key's name, and the first part of every origin."""
KEPT_LEVELS = 8
"""The store keeps the tree's nodes at every eighth level (one per 256 entries, one per
65,536 …); a proof recomputes the rest from at most 255 hashes a level band."""
CHECKPOINT_EVERY = 1024
"""Entries after which an append cuts a checkpoint in its own transaction. A signature
costs ≈ 50 µs: per 1,024 entries it is lost in the append's cost, and a checkpoint row
per thousand entries keeps the table small. Quieter organizations are checkpointed by
the anchor, on its interval (``VERLETICA_ANCHOR_SECONDS``), whichever comes first."""


def origin_of(org_id: str) -> str:
    """The checkpoint origin of an organization's chain."""
    return f"{LOG_NAME}/{org_id}"


@dataclass(frozen=True)
class LogKeys:
    """The public keys that sign checkpoints, oldest first: the newest is the current one.

    Keys move only forward: once a checkpoint is signed by a key, a later checkpoint
    signed only by an older one is refused (a retired key that leaked cannot extend what
    its successor signed)."""

    verifiers: tuple[Verifier, ...]

    def rank(self, note: SignedNote) -> int:
        """The position of the newest key that signed ``note``; -1 when none did."""
        for rank in range(len(self.verifiers) - 1, -1, -1):
            if note.signed_by(self.verifiers[rank]):
                return rank
        return -1


@dataclass(frozen=True)
class Signed:
    """A checkpoint, its note, and the rank of the key that signed it."""

    checkpoint: Checkpoint
    note: SignedNote
    rank: int


def read_checkpoints(
    origin: str, notes: Iterable[str], keys: LogKeys
) -> tuple[list[Signed], str | None]:
    """The checkpoints among ``notes`` (as written), in size order, and the first problem
    with them: unparseable, another log's, not signed by a given key, signed by a key
    retired before a smaller checkpoint's, or two different trees of one size."""
    found: list[Signed] = []
    for text in notes:
        try:
            note = parse_note(text)
            checkpoint = note.checkpoint()
        except NoteError as e:
            return found, f"a checkpoint cannot be read: {e}"
        if checkpoint.origin != origin:
            return found, f"a checkpoint is of another log ({checkpoint.origin})"
        rank = keys.rank(note)
        if rank < 0:
            return found, f"the checkpoint of size {checkpoint.size} is not signed by a given key"
        found.append(Signed(checkpoint, note, rank))
    found.sort(key=lambda s: s.checkpoint.size)
    newest = -1
    for before, signed in zip([None, *found], found, strict=False):
        if before is not None and before.checkpoint.size == signed.checkpoint.size:
            if before.checkpoint.root != signed.checkpoint.root:
                return found, (
                    f"two different trees of size {signed.checkpoint.size} are signed "
                    "(a split view)"
                )
        if signed.rank < newest:
            return found, (
                f"the checkpoint of size {signed.checkpoint.size} is signed by a key retired "
                "before a smaller checkpoint was signed"
            )
        newest = max(newest, signed.rank)
    return found, None


class TreeWalk:
    """Recomputes a chain's tree as its entry hashes are read in order, and holds it to
    every checkpoint at that checkpoint's size."""

    def __init__(self, checkpoints: Sequence[Checkpoint], trusted: Checkpoint | None = None):
        due = {c.size: c.root for c in checkpoints if c.size > 0}
        self._labels: dict[int, str] = {c.size: "checkpoint" for c in checkpoints}
        if trusted is not None and trusted.size > 0:
            if due.get(trusted.size, trusted.root) != trusted.root:
                self._early = (
                    f"the anchored checkpoint of size {trusted.size} and the stored one differ "
                    "(a split view)"
                )
            due[trusted.size] = trusted.root
            self._labels[trusted.size] = "anchored checkpoint"
        self._due = due
        self._sizes = sorted(due)
        self._next = 0
        self.tree = Frontier()
        self.good = 0
        """The size of the newest checkpoint the entries so far matched."""

    _early: str | None = None

    def add(self, entry_hash: str) -> str | None:
        """Add the next entry's hash; the problem at this size, if a checkpoint disagrees."""
        tree = self.tree
        tree.append(leaf_hash(bytes.fromhex(entry_hash)))
        sizes = self._sizes
        if self._next < len(sizes) and sizes[self._next] == tree.size:
            self._next += 1
            if tree.root() != self._due[tree.size]:
                return (
                    f"entries {self.good + 1} to {tree.size} are not the ones its "
                    f"{self._labels[tree.size]} of {tree.size} signed (one of them was changed, "
                    "inserted, removed or reordered, and the hashes after it recomputed)"
                )
            self.good = tree.size
        return None

    def finish(self) -> str | None:
        """After the last entry: the problem if a checkpoint covers entries the chain no
        longer has (truncated, or rolled back)."""
        if self._early is not None:
            return self._early
        if self._next < len(self._sizes):
            size = self._sizes[-1]
            return (
                f"the {self._labels[size]} covers {size} entries but the chain has "
                f"{self.tree.size}: entries were removed or the chain was rolled back"
            )
        return None
