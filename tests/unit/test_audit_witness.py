"""The witness's rules (C2SP tlog-witness): it cosigns a checkpoint only when it extends the
last one it cosigned for that log, and says why not in the protocol's status codes."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit.checkpoint import (
    COSIGNATURE_V1,
    Checkpoint,
    Signer,
    add_signatures,
    cosigned,
    sign_checkpoint,
)
from domain.audit.merkle import consistency_proof, leaf_hash, root_of
from domain.audit.tree import LogKeys
from domain.audit.witness import (
    Seen,
    Submission,
    WitnessRefusal,
    parse_submission,
    witness,
)

LOG = Signer("verletica-audit", hashlib.sha256(b"log").digest())
OTHER = Signer("verletica-audit", hashlib.sha256(b"mallory").digest())
WITNESS = Signer("verletica-witness", hashlib.sha256(b"witness").digest())
ORIGIN = "verletica-audit/org-1"
LOGS = {"verletica-audit/": LogKeys((LOG.verifier(),))}


def _leaves(n: int, salt: bytes = b"") -> list[bytes]:
    return [leaf_hash(hashlib.sha256(salt + str(i).encode()).digest()) for i in range(n)]


def _submission(leaves: list[bytes], old: int, signer: Signer = LOG) -> Submission:
    def subtree(level: int, index: int) -> bytes:
        return root_of(leaves[index << level : (index + 1) << level])

    checkpoint = Checkpoint(ORIGIN, len(leaves), root_of(leaves))
    note = sign_checkpoint(checkpoint, signer)
    proof = tuple(consistency_proof(old, len(leaves), subtree)) if old else ()
    return parse_submission(Submission(old, proof, note, checkpoint).encode())


def test_a_growing_log_is_cosigned_at_every_step_and_the_cosignature_verifies() -> None:
    leaves = _leaves(40)
    seen: Seen | None = None
    for size in (1, 2, 7, 8, 9, 33, 40):
        submission = _submission(leaves[:size], 0 if seen is None else seen.size)
        seen, line = witness(submission, LOGS, seen, WITNESS, 1_800_000_000)
        signed = add_signatures(submission.note, [line.rstrip("\n")])
        assert cosigned(signed, WITNESS.verifier(kind=COSIGNATURE_V1)) == 1_800_000_000
    assert seen == Seen(40, root_of(leaves))


def _refused(submission: Submission, seen: Seen | None) -> int:
    with pytest.raises(WitnessRefusal) as refused:
        witness(submission, LOGS, seen, WITNESS, 1)
    return refused.value.status


def test_each_refusal_has_the_protocols_status() -> None:
    leaves = _leaves(20)
    seen = Seen(10, root_of(leaves[:10]))
    assert _refused(_submission(leaves[:5], 0), seen) == 409  # rolled back below the witness
    with pytest.raises(WitnessRefusal) as conflict:
        witness(_submission(leaves[:5], 0), LOGS, seen, WITNESS, 1)
    assert conflict.value.body == "10\n"  # the size it cosigned, for the log to retry
    assert _refused(_submission(leaves, 0, OTHER), seen) == 403
    other = _leaves(20, b"rewritten")
    assert _refused(_submission(other, 10), seen) == 422  # a rewritten past
    assert _refused(_submission(other[:10], 10), seen) == 409  # another tree of its size
    unknown = _submission(leaves, 10)
    foreign = Submission(
        unknown.old,
        unknown.proof,
        sign_checkpoint(Checkpoint("someone-else/log", 20, root_of(leaves)), LOG),
        Checkpoint("someone-else/log", 20, root_of(leaves)),
    )
    assert _refused(foreign, seen) == 404
    too_old = Submission(30, unknown.proof, unknown.note, unknown.checkpoint)
    assert _refused(too_old, seen) == 400


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"old 1\n",
        b"old x\n\nx\n",
        b"old 01\n\n",
        b"new 1\n\n",
        b"old 1\n!!!!\n\n",
        b"old 1\n" + b"AAAA\n" + b"\n",
        b"\xff\xfe",
        b"old 0\n" + b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n" * 64 + b"\n",
    ],
)
def test_a_malformed_submission_is_a_bad_request(body: bytes) -> None:
    with pytest.raises(WitnessRefusal) as refused:
        parse_submission(body)
    assert refused.value.status == 400


@given(st.binary(max_size=300))
def test_any_bytes_are_a_submission_or_a_bad_request(body: bytes) -> None:
    try:
        parse_submission(body)
    except WitnessRefusal as refused:
        assert refused.status == 400


@settings(max_examples=150)
@given(
    st.lists(
        st.tuples(st.integers(min_value=1, max_value=70), st.booleans(), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_the_witness_never_cosigns_a_tree_that_does_not_extend_what_it_cosigned(
    steps: list[tuple[int, bool, bool]],
) -> None:
    """Random sizes, some of them rewritten histories, some claiming a wrong old size: the
    sequence of trees it cosigns is always append-only (each a prefix of the next)."""
    honest = _leaves(70)
    forged = _leaves(70, b"forged")
    seen: Seen | None = None
    cosigned_trees: list[list[bytes]] = []
    for size, rewrite, lie in steps:
        tree = (forged if rewrite else honest)[:size]
        old = 0 if seen is None else seen.size
        if lie:
            old = max(0, min(size, old - 1))
        try:
            submission = _submission(tree, old if old <= size else 0)
        except ValueError:  # no proof from a size past the tree: the log cannot ask
            continue
        try:
            seen, _ = witness(submission, LOGS, seen, WITNESS, 1)
        except WitnessRefusal:
            continue
        cosigned_trees.append(tree)
    for before, after in zip(cosigned_trees, cosigned_trees[1:], strict=False):
        assert after[: len(before)] == before
