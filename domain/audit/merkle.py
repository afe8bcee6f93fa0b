"""A Merkle tree over an organization's chain, hashed as RFC 6962 / RFC 9162 say.

Leaf ``i`` is the ``i``-th entry (sequence ``i + 1``); its leaf hash is
SHA-256(0x00 ‖ the entry's 32-byte hash). An interior node is SHA-256(0x01 ‖ left ‖ right).
The entry hash already covers the entry's whole content and its link to the one before,
so the tree adds what a chain cannot give: a root that a signed checkpoint can name, an
inclusion proof of one entry in ``log n`` hashes, and a consistency proof that a later
tree extends an earlier one (nothing before it was changed, removed or reordered).

The tree is kept incrementally (:class:`Frontier`, the roots of the perfect subtrees of
the tree so far: at most one per bit of its size). Proofs are built by a caller who can
say the hash of any complete subtree (``subtree(level, index)``): the store keeps some
levels and recomputes the rest from entry hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The root of the empty tree (RFC 9162 §2.1.1)."""

Subtree = Callable[[int, int], bytes]
"""``subtree(level, index)``: the hash of the complete subtree of ``2**level`` leaves that
starts at leaf ``index * 2**level``."""


def leaf_hash(entry_hash: bytes) -> bytes:
    """The leaf hash of an entry whose hash is ``entry_hash`` (32 bytes)."""
    return hashlib.sha256(b"\x00" + entry_hash).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an interior node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


@dataclass
class Frontier:
    """The perfect subtrees of a tree of ``size`` leaves, largest (leftmost) first: enough
    to append a leaf and to compute the root, and nothing more (``log2(size)`` hashes)."""

    size: int = 0
    hashes: list[bytes] | None = None

    def __post_init__(self) -> None:
        if self.hashes is None:
            self.hashes = []
        if len(self.hashes) != self.size.bit_count():
            raise ValueError(
                f"a tree of {self.size} leaves has {self.size.bit_count()} perfect subtrees, "
                f"not {len(self.hashes)}"
            )

    def append(self, leaf: bytes, made: Callable[[int, int, bytes], None] | None = None) -> None:
        """Append a leaf hash. ``made(level, index, hash)`` hears of each complete subtree
        above the leaves that the append completes (a store keeps some of them)."""
        stack = self.hashes
        assert stack is not None
        node = leaf
        size = self.size
        level = 0
        while size & 1:
            node = node_hash(stack.pop(), node)
            size >>= 1
            level += 1
            if made is not None:
                made(level, size, node)
        stack.append(node)
        self.size += 1

    def root(self) -> bytes:
        """The tree's root hash."""
        stack = self.hashes
        assert stack is not None
        if not stack:
            return EMPTY_ROOT
        node = stack[-1]
        for left in reversed(stack[:-1]):
            node = node_hash(left, node)
        return node

    def encode(self) -> str:
        """The frontier as text (its hashes in hex, concatenated) for a database column."""
        assert self.hashes is not None
        return "".join(h.hex() for h in self.hashes)

    @classmethod
    def decode(cls, size: int, text: str) -> Frontier:
        """The frontier of ``size`` leaves from :meth:`encode`'s text."""
        if len(text) % (2 * HASH_SIZE):
            raise ValueError("a frontier is whole hashes")
        raw = bytes.fromhex(text)
        hashes = [raw[i : i + HASH_SIZE] for i in range(0, len(raw), HASH_SIZE)]
        return cls(size, hashes)

    def copy(self) -> Frontier:
        """An independent copy."""
        assert self.hashes is not None
        return Frontier(self.size, list(self.hashes))


def root_of(leaves: Iterable[bytes]) -> bytes:
    """The root of the tree whose leaf hashes are ``leaves``."""
    frontier = Frontier()
    for leaf in leaves:
        frontier.append(leaf)
    return frontier.root()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def range_hash(start: int, end: int, subtree: Subtree) -> bytes:
    """MTH of leaves ``[start, end)``, where ``start`` is aligned to the range's left
    subtree as every range in RFC 9162's proofs is: from complete subtrees only."""
    n = end - start
    if n <= 0:
        raise ValueError("an empty range has no hash here")
    if n & (n - 1) == 0 and start % n == 0:
        level = n.bit_length() - 1
        return subtree(level, start >> level)
    k = _split(n)
    return node_hash(range_hash(start, start + k, subtree), range_hash(start + k, end, subtree))


def inclusion_proof(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """PATH(index, D[0:size]) of RFC 9162 §2.1.3.1: the audit path of leaf ``index``."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    proof: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            proof.append(range_hash(start + k, end, subtree))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtree))
            start += k
    proof.reverse()  # from the leaf's sibling up
    return proof


def consistency_proof(old: int, new: int, subtree: Subtree) -> list[bytes]:
    """PROOF(old, D[0:new]) of RFC 9162 §2.1.4.1: what shows that the tree of ``new``
    leaves extends the tree of ``old``."""
    if not 0 < old <= new:
        raise ValueError(f"no consistency proof from {old} to {new}")
    if old == new:
        return []
    proof: list[bytes] = []
    start, end, whole = 0, new, True
    m = old
    while True:
        n = end - start
        if m == n:
            if not whole:
                proof.append(range_hash(start, end, subtree))
            break
        k = _split(n)
        if m <= k:
            proof.append(range_hash(start + k, end, subtree))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtree))
            start += k
            m -= k
            whole = False
    proof.reverse()
    return proof


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes | None:
    """The root that ``proof`` leads to from ``leaf`` at ``index`` (RFC 9162 §2.1.3.2), or
    None when the proof has the wrong shape for that index and size."""
    if not 0 <= index < size:
        return None
    fn, sn = index, size - 1
    node = leaf
    for sibling in proof:
        if len(sibling) != HASH_SIZE or sn == 0:
            return None
        if fn & 1 or fn == sn:
            node = node_hash(sibling, node)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            node = node_hash(node, sibling)
        fn >>= 1
        sn >>= 1
    return node if sn == 0 else None


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> bool:
    """Whether ``proof`` shows leaf hash ``leaf`` at ``index`` in the tree of ``size``
    leaves whose root is ``root``."""
    return root_from_inclusion(index, size, leaf, proof) == root


def verify_consistency(
    old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether ``proof`` shows the tree of ``new`` leaves (``new_root``) extends the tree of
    ``old`` leaves (``old_root``): RFC 9162 §2.1.4.2."""
    if not 0 <= old <= new:
        return False
    if old == new:
        return not proof and old_root == new_root
    if old == 0:
        return not proof  # the empty tree is a prefix of every tree
    if any(len(p) != HASH_SIZE for p in proof):
        return False
    path = list(proof)
    if old & (old - 1) == 0:  # a power of two: the old root is the first node of the path
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root
