"""A witness (C2SP tlog-witness): a second party that cosigns a log's checkpoints once it
has checked that each extends the last one it cosigned for that log.

The witness keeps, per origin, only the size and root of the newest checkpoint it
cosigned. A log that rolls back, or shows it two different trees of one size, gets no
cosignature, and a checkpoint that carries the witness's cosignature is one the witness
saw extend every earlier one. This module holds the protocol's rules; the process that
serves it and keeps its record on disk is ``adapters/witness``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from domain.audit.checkpoint import (
    Checkpoint,
    NoteError,
    SignedNote,
    Signer,
    Verifier,
    cosign,
    parse_note,
)
from domain.audit.merkle import HASH_SIZE, verify_consistency
from domain.audit.tree import LogKeys

MAX_PROOF_LINES = 63
"""The protocol's limit on consistency-proof lines."""
SIZE_CONTENT_TYPE = "text/x.tlog.size"


class WitnessRefusal(Exception):
    """A request the witness does not cosign: the HTTP status the protocol names, and why."""

    def __init__(self, status: int, why: str, body: str | None = None) -> None:
        super().__init__(why)
        self.status = status
        self.why = why
        self.body = body if body is not None else why + "\n"


@dataclass(frozen=True)
class Submission:
    """An ``add-checkpoint`` request: the size the log believes the witness has seen, a
    consistency proof from it, and the signed checkpoint."""

    old: int
    proof: tuple[bytes, ...]
    note: SignedNote
    checkpoint: Checkpoint

    def encode(self) -> bytes:
        """The request body as the protocol writes it."""
        lines = [f"old {self.old}", *(base64.b64encode(h).decode() for h in self.proof)]
        return ("\n".join(lines) + "\n\n" + self.note.render()).encode()


def parse_submission(body: bytes) -> Submission:
    """The request body as a :class:`Submission`; a 400 refusal when it is malformed."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise WitnessRefusal(400, "the request is not UTF-8") from None
    head, sep, note_text = text.partition("\n\n")
    if not sep:
        raise WitnessRefusal(400, "the request has no empty line before its checkpoint")
    lines = head.split("\n")
    first = lines[0]
    size = first.removeprefix("old ")
    if size == first or not size.isdigit() or (size != "0" and size.startswith("0")):
        raise WitnessRefusal(400, "the first line is not 'old <size>'")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise WitnessRefusal(400, f"more than {MAX_PROOF_LINES} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            node = base64.b64decode(line, validate=True)
        except (binascii.Error, ValueError):
            raise WitnessRefusal(400, "a consistency proof line is not base64") from None
        if len(node) != HASH_SIZE:
            raise WitnessRefusal(400, "a consistency proof line is not a hash")
        proof.append(node)
    try:
        note = parse_note(note_text)
        checkpoint = note.checkpoint()
    except NoteError as e:
        raise WitnessRefusal(400, f"the checkpoint cannot be read: {e}") from None
    return Submission(int(size), tuple(proof), note, checkpoint)


@dataclass(frozen=True)
class Seen:
    """The newest checkpoint a witness cosigned for one log."""

    size: int
    root: bytes


def witness(
    submission: Submission,
    logs: Mapping[str, LogKeys],
    seen: Seen | None,
    signer: Signer,
    now: int,
) -> tuple[Seen, str]:
    """Decide a submission as the protocol says (404 unknown log, 403 not signed by it,
    400 an old size past the checkpoint, 409 another old size or another tree of this
    size, 422 a proof that does not verify): the witness's new record for the log and
    its cosignature line; a :class:`WitnessRefusal` otherwise. ``logs`` maps an origin
    prefix to the keys the witness trusts for origins under it."""
    checkpoint = submission.checkpoint
    keys = next((k for prefix, k in logs.items() if checkpoint.origin.startswith(prefix)), None)
    if keys is None:
        raise WitnessRefusal(404, f"unknown log {checkpoint.origin}")
    if keys.rank(submission.note) < 0:
        raise WitnessRefusal(403, "the checkpoint is not signed by a key trusted for its log")
    if submission.old > checkpoint.size:
        raise WitnessRefusal(400, "the old size is past the checkpoint's size")
    known = 0 if seen is None else seen.size
    if submission.old != known:
        raise WitnessRefusal(409, "the old size is not the last cosigned", f"{known}\n")
    if seen is not None and known == checkpoint.size:
        if seen.root != checkpoint.root:
            raise WitnessRefusal(409, "another tree of this size was cosigned", f"{known}\n")
    elif seen is not None and not verify_consistency(
        seen.size, checkpoint.size, seen.root, checkpoint.root, submission.proof
    ):
        raise WitnessRefusal(422, "the consistency proof does not verify")
    elif seen is None and submission.proof:
        raise WitnessRefusal(422, "a proof from the empty tree is empty")
    return Seen(checkpoint.size, checkpoint.root), cosign(checkpoint, signer, now)


class WitnessFailed(RuntimeError):
    """The witness did not cosign. ``misbehaved``: it said the log rolled back or showed
    it another tree (a finding about the log, not an outage)."""

    def __init__(self, why: str, misbehaved: bool = False) -> None:
        super().__init__(why)
        self.misbehaved = misbehaved


class WitnessClient(Protocol):
    """A witness the anchor asks to cosign each checkpoint it anchors."""

    key: Verifier
    """The witness's public key (type 0x04): what its cosignatures are checked with."""

    def cosign(
        self, note: SignedNote, old: int, proof_from: Callable[[int], list[bytes]]
    ) -> SignedNote:
        """``note`` with the witness's cosignature; :class:`WitnessFailed` otherwise."""
        ...
