"""The chain's Merkle tree against RFC 9162's definitions written out literally."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit.merkle import (
    EMPTY_ROOT,
    Frontier,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    range_hash,
    root_of,
    verify_consistency,
    verify_inclusion,
)


def _leaves(n: int) -> list[bytes]:
    return [leaf_hash(hashlib.sha256(str(i).encode()).digest()) for i in range(n)]


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _mth(d: list[bytes]) -> bytes:
    """MTH(D[n]), RFC 9162 §2.1.1, over leaf hashes."""
    if not d:
        return EMPTY_ROOT
    if len(d) == 1:
        return d[0]
    k = _k(len(d))
    return node_hash(_mth(d[:k]), _mth(d[k:]))


def _path(m: int, d: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]), RFC 9162 §2.1.3.1."""
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return [*_path(m, d[:k]), _mth(d[k:])]
    return [*_path(m - k, d[k:]), _mth(d[:k])]


def _subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    """SUBPROOF(m, D[n], b), RFC 9162 §2.1.4.1."""
    n = len(d)
    if m == n:
        return [] if b else [_mth(d)]
    k = _k(n)
    if m <= k:
        return [*_subproof(m, d[:k], b), _mth(d[k:])]
    return [*_subproof(m - k, d[k:], False), _mth(d[:k])]


def _subtree_of(d: list[bytes]):  # type: ignore[no-untyped-def]
    def subtree(level: int, index: int) -> bytes:
        width = 1 << level
        assert (index + 1) * width <= len(d), "a proof asked for a subtree past the tree"
        return _mth(d[index * width : (index + 1) * width])

    return subtree


sizes = st.integers(min_value=1, max_value=300)


@given(sizes)
def test_the_kept_frontier_has_the_root_of_the_rfc_definition(n: int) -> None:
    d = _leaves(n)
    assert root_of(d) == _mth(d)
    frontier = Frontier()
    made: dict[tuple[int, int], bytes] = {}
    for leaf in d:
        frontier.append(leaf, lambda level, i, h: made.__setitem__((level, i), h))
    again = Frontier.decode(n, frontier.encode())
    assert again.root() == _mth(d)
    for (level, i), h in made.items():  # every completed subtree it reports is the real one
        assert h == _mth(d[i << level : (i + 1) << level])
    assert len(made) == n - n.bit_count()  # one per interior node of the perfect subtrees


@given(sizes, st.data())
def test_inclusion_proofs_are_the_rfc_path_and_verify(n: int, data: st.DataObject) -> None:
    d = _leaves(n)
    m = data.draw(st.integers(min_value=0, max_value=n - 1))
    proof = inclusion_proof(m, n, _subtree_of(d))
    assert proof == _path(m, d)
    root = _mth(d)
    assert verify_inclusion(m, n, d[m], proof, root)
    # the same proof shows nothing else
    assert not verify_inclusion(m, n, leaf_hash(b"\x00" * 32), proof, root)
    if n > 1:
        assert not verify_inclusion((m + 1) % n, n, d[m], proof, root) or d[m] == d[(m + 1) % n]
        assert not verify_inclusion(m, n, d[m], proof[:-1], root)
        assert not verify_inclusion(m, n, d[m], [*proof, proof[0]], root)


@given(sizes, st.data())
def test_consistency_proofs_are_the_rfc_subproof_and_verify(n: int, data: st.DataObject) -> None:
    d = _leaves(n)
    m = data.draw(st.integers(min_value=1, max_value=n))
    proof = consistency_proof(m, n, _subtree_of(d))
    assert proof == _subproof(m, d, True)
    assert verify_consistency(m, n, _mth(d[:m]), _mth(d), proof)


@given(sizes, st.data())
def test_a_tree_that_rewrote_its_past_has_no_consistency_proof(n: int, data: st.DataObject) -> None:
    d = _leaves(n)
    m = data.draw(st.integers(min_value=1, max_value=n))
    changed = data.draw(st.integers(min_value=0, max_value=n - 1))
    forged = list(d)
    forged[changed] = leaf_hash(b"forged" + bytes(26))
    proof = consistency_proof(m, n, _subtree_of(forged))
    # the forged tree cannot be shown to extend the old one when it changed the old part
    if changed < m:
        assert not verify_consistency(m, n, _mth(d[:m]), _mth(forged), proof)
    else:
        assert verify_consistency(m, n, _mth(d[:m]), _mth(forged), proof)


@settings(max_examples=300)
@given(
    st.integers(min_value=0, max_value=70),
    st.integers(min_value=0, max_value=70),
    st.lists(st.binary(min_size=32, max_size=32), max_size=8),
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=32, max_size=32),
)
def test_verifiers_refuse_rather_than_fail_on_arbitrary_input(
    a: int, b: int, proof: list[bytes], r1: bytes, r2: bytes
) -> None:
    assert verify_consistency(a, b, r1, r2, proof) in (True, False)
    assert verify_inclusion(a, b, r1, proof, r2) in (True, False)


def test_sizes_outside_the_tree_are_refused() -> None:
    d = _leaves(4)
    with pytest.raises(ValueError):
        inclusion_proof(4, 4, _subtree_of(d))
    with pytest.raises(ValueError):
        consistency_proof(5, 4, _subtree_of(d))
    with pytest.raises(ValueError):
        Frontier(3, [b"x" * 32])  # three leaves are two perfect subtrees
    with pytest.raises(ValueError):
        range_hash(2, 2, _subtree_of(d))
    assert not verify_consistency(3, 2, _mth(d[:3]), _mth(d[:2]), [])
    assert verify_consistency(0, 4, EMPTY_ROOT, _mth(d), [])
    assert not verify_consistency(2, 2, _mth(d[:2]), _mth(d[:2]), [d[0]])
