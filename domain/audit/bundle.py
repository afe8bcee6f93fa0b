"""What leaves the database: an export of a chain, the proof of one entry, and their
verification by someone who has only these files and the log's public keys.

Neither needs the database, the network, nor any secret. The HMAC signatures of entries
(made with the audit key, a secret) cannot be checked here and are not needed: every
entry under a signed checkpoint is bound to it by the Merkle tree.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from domain.audit.chain import GENESIS_HASH, AuditEntry, entry_body, entry_hash
from domain.audit.checkpoint import NoteError, parse_note
from domain.audit.merkle import leaf_hash, root_from_inclusion
from domain.audit.tree import LogKeys, Signed, TreeWalk, read_checkpoints
from domain.canonical import canonical_json
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
    """That the tree of a checkpoint extends an earlier tree of the same chain."""

    old_size: int
    old: str | None = None
    """The earlier checkpoint's signed note, when the log still keeps it (else the one
    asking holds it)."""
    new: str
    """The later checkpoint's signed note."""
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


EXPORT_FORMAT = "verletica-audit-export/1"


def export_bytes(bundle: Bundle) -> bytes:
    """The export as a file: a header line (canonical JSON: the format, origin, entry
    count, checkpoints, anchored checkpoint and public keys), then each entry's canonical
    body on a line of its own: the very bytes its hash covers after the previous hash, so
    that checking it is hashing the file in one pass."""
    header = {
        "format": EXPORT_FORMAT,
        "origin": bundle.origin,
        "entries": len(bundle.entries),
        "checkpoints": bundle.checkpoints,
        "anchored": bundle.anchored,
        "keys": bundle.keys,
    }
    lines = [canonical_json(header), *(_entry_line(e) for e in bundle.entries)]
    return b"\n".join(lines) + b"\n"


def _entry_line(entry: AuditEntry) -> bytes:
    """An entry's canonical bytes; an entry RFC 8785 cannot write (a number past 2**53,
    put there by someone who edited the row) is written as it is, for the verifier to
    find that it does not hash to its place."""
    try:
        return canonical_json(entry.body())
    except ValueError:
        return json.dumps(entry.body(), sort_keys=True, separators=(",", ":")).encode()


def _header(data: bytes) -> tuple[dict[str, Any], list[bytes]]:
    """The export's header and its entry lines; :class:`ValueError` saying what is wrong."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise ValueError("the file is empty")
    if lines[0].endswith(b"\r"):
        raise ValueError("the file's line endings were changed (CRLF): convert them back to LF")
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):
        raise ValueError("the first line is not a Verletica export's header") from None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not a Verletica export (format {EXPORT_FORMAT})")
    checkpoints, anchored = header.get("checkpoints"), header.get("anchored")
    if not isinstance(header.get("origin"), str) or not isinstance(checkpoints, list):
        raise ValueError("the header names no origin or no checkpoints")
    if not all(isinstance(c, str) for c in checkpoints) or not (
        anchored is None or isinstance(anchored, str)
    ):
        raise ValueError("a checkpoint in the header is not a signed note")
    return header, lines[1:]


def of_log(origin: str, notes: Sequence[str]) -> list[str]:
    """The ``notes`` of the log ``origin`` (a kept file, the anchor's, holds every
    organization's); a note that cannot be read is kept, to be refused by name."""
    kept = []
    for note in notes:
        try:
            if parse_note(note).checkpoint().origin != origin:
                continue
        except NoteError:
            pass
        kept.append(note)
    return kept


def verify_export(data: bytes, keys: LogKeys, trusted: Sequence[str] = ()) -> Finding:
    """Check an export file with the public ``keys`` only (see :func:`verify_bundle`).

    One pass hashes each line after the hash before it and holds the tree to every
    signed checkpoint; only when that fails is the file read entry by entry, to say
    which entry, which range or which checkpoint is wrong."""
    try:
        header, lines = _header(data)
    except ValueError as e:
        return Finding(ok=False, entries=0, covered=0, problem=str(e))
    origin: str = header["origin"]
    trusted = of_log(origin, trusted)
    if not lines:
        return Finding(ok=False, entries=0, covered=0, problem="the export holds no entries")
    anchored = [header["anchored"]] if header["anchored"] else []
    found, problem = read_checkpoints(origin, [*header["checkpoints"], *trusted, *anchored], keys)
    if problem is not None:
        return Finding(ok=False, entries=len(lines), covered=0, problem=problem)
    walk = TreeWalk([f.checkpoint for f in found])
    add, sha256 = walk.add, hashlib.sha256
    prev = GENESIS_HASH.encode("ascii")
    for line in lines:
        hashed = sha256(prev + line).hexdigest()
        if add(hashed) is not None:
            break
        prev = hashed.encode("ascii")
    else:
        problem = walk.finish()
        covered = min(max((f.checkpoint.size for f in found), default=0), len(lines))
        if problem is None and covered == len(lines) and header.get("entries") == len(lines):
            return Finding(ok=True, entries=len(lines), covered=covered)
    return _diagnose(origin, lines, found, header.get("entries"))


def _diagnose(origin: str, lines: list[bytes], found: list[Signed], count: object) -> Finding:
    """The first thing wrong with an export whose one-pass check failed, entry by entry."""
    entries = len(lines)
    org = origin.rpartition("/")[2]
    walk = TreeWalk([f.checkpoint for f in found])
    prev = GENESIS_HASH
    expected = 1
    for number, line in enumerate(lines, start=1):
        problem = None
        try:
            body = json.loads(line)
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            problem = "the line is not an entry (JSON object)"
        elif body.get("seq") != expected:
            seq = body.get("seq")
            problem = (
                f"entries {expected} to {seq - 1} are missing"
                if isinstance(seq, int) and seq > expected
                else f"expected entry {expected}, found {seq!r} (reordered or repeated)"
            )
        elif body.get("org_id") != org:
            problem = f"the entry belongs to organization {body.get('org_id')}"
        elif body.get("prev_hash") != prev:
            # The sequence runs on, so the entry before does not hash to the link this one
            # holds: that entry was edited (or this one's link was).
            problem = (
                f"the entry does not hash to the link entry {number} holds: it was edited "
                f"(or entry {number}'s link was)"
            )
            number -= 1
        if problem is not None:
            return Finding(ok=False, entries=entries, covered=0, problem=problem, at=number)
        hashed = hashlib.sha256(prev.encode("ascii") + line).hexdigest()
        problem = walk.add(hashed)
        if problem is not None:
            return Finding(ok=False, entries=entries, covered=0, problem=problem, at=walk.good + 1)
        prev, expected = hashed, expected + 1
    problem = walk.finish()
    covered = min(max((f.checkpoint.size for f in found), default=0), entries)
    if problem is None and covered < entries:
        # An export is checkpointed whole: entries no signature covers could be anyone's.
        problem = (
            f"entries {covered + 1} to {entries} are under no signed checkpoint: "
            "nothing tells them from forged ones"
        )
        return Finding(ok=False, entries=entries, covered=covered, problem=problem, at=covered + 1)
    if problem is None and count != entries:
        problem = f"the header says {count} entries, the file has {entries}"
    return Finding(ok=problem is None, entries=entries, covered=covered, problem=problem)


def verify_bundle(bundle: Bundle, keys: LogKeys, trusted: Sequence[str] = ()) -> Finding:
    """Check ``bundle`` with the public ``keys`` only, as its export file is checked.
    ``trusted`` are checkpoints the verifier kept from before (the anchor file's, a
    witness's, an earlier export's): the chain must still hold the trees they sign, so a
    truncation or a rollback below any of them, or a second tree of their size, is found."""
    return verify_export(export_bytes(bundle), keys, trusted)


def verify_inclusion_proof(
    proof: InclusionProof, keys: LogKeys, trusted: Sequence[str] = ()
) -> str | None:
    """Why ``proof`` does not show its entry in a tree signed by one of ``keys``; None
    when it does. ``trusted`` checkpoints the verifier kept are read with the proof's:
    its checkpoint may not be signed by a key retired before theirs, nor name another
    tree of their size."""
    try:
        origin = parse_note(proof.checkpoint).checkpoint().origin
    except NoteError as e:
        return f"the checkpoint cannot be read: {e}"
    found, problem = read_checkpoints(origin, [proof.checkpoint, *of_log(origin, trusted)], keys)
    if problem is not None:
        return problem
    checkpoint = parse_note(proof.checkpoint).checkpoint()
    entry = proof.entry
    if origin.rpartition("/")[2] != entry.org_id:
        return "the checkpoint is of another organization's chain"
    if checkpoint.size != proof.tree_size:
        return f"the proof is for a tree of {proof.tree_size}, the checkpoint of {checkpoint.size}"
    try:
        hashed = entry_hash(entry.prev_hash, entry_body(entry))
    except ValueError as e:  # a number RFC 8785 cannot write: not an entry we signed
        return f"the entry cannot be hashed canonically: {e}"
    if hashed != entry.entry_hash:
        return "the entry's hash does not match its content"
    try:
        path = [bytes.fromhex(h) for h in proof.hashes]
    except ValueError:
        return "the proof's hashes are not hex"
    leaf = leaf_hash(bytes.fromhex(entry.entry_hash))
    if root_from_inclusion(entry.seq - 1, proof.tree_size, leaf, path) != checkpoint.root:
        return "the proof does not lead from the entry to the checkpoint's root"
    return None
