"""Signed notes, transparency-log checkpoints and witness cosignatures (Ed25519).

Three C2SP specifications, read at C2SP/C2SP commit 5ba5ee8 (2026-07-22):

* c2sp.org/signed-note: a UTF-8 text ending in a newline, a blank line, then one or
  more signature lines ``— <key name> base64(4-byte key ID ‖ signature)``;
* c2sp.org/tlog-checkpoint: a note whose text is the origin, the tree size and the
  base64 root hash, one per line, then optional extension lines;
* c2sp.org/tlog-cosignature: a witness's timestamped Ed25519 signature on a checkpoint
  (signature type 0x04, ``cosignature/v1``).

Key strings are those of Go's ``golang.org/x/mod/sumdb/note``: a verifier key (vkey)
``<name>+<hex key ID>+base64(type ‖ public key)`` and a signer key (skey)
``PRIVATE+KEY+<name>+<hex key ID>+base64(0x01 ‖ seed)``, so keys and notes made here
open there, and the other way round.

Parsing is strict and says why (:class:`NoteError`); verifying never raises: a line that
cannot be decoded, a wrong key ID or a bad signature is simply not a valid signature.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ED25519 = 0x01
"""Signature type of a plain Ed25519 note signature (c2sp.org/signed-note)."""

COSIGNATURE_V1 = 0x04
"""Signature type of a timestamped Ed25519 checkpoint cosignature (c2sp.org/tlog-cosignature)."""

MAX_SIGNATURES = 100
"""The most signature lines a note may carry.

The spec asks verifiers for a limit of at least 16 ("Verifiers SHOULD apply a maximum
limit ... but MUST accept at least up to 16 signatures"); 100 is Go's, so every note Go
opens opens here too."""

MAX_TIMESTAMP = 2**63 - 1
"""A cosignature timestamp "MUST NOT exceed 2^63 - 1" (tlog-cosignature, Format)."""

MAX_TREE_SIZE = 2**64 - 1
"""The largest tree size: RFC 6962 counts leaves in a uint64, as the Go parsers do."""

SIGNATURE_PREFIX = "\u2014 "
"""Every signature line starts with an em dash (U+2014) and a space."""

COSIGNATURE_HEADER = "cosignature/v1"
"""The first line of the message an Ed25519 cosignature signs: domain separation."""

_SEED_BYTES = 32
_PUBLIC_BYTES = 32
_SIGNATURE_BYTES = 64
_KEY_ID_BYTES = 4
_TIMESTAMP_BYTES = 8
_ROOT_BYTES = 32
# Go rejects a signature line whose payload is shorter than a key ID and one byte.
_MIN_PAYLOAD_BYTES = _KEY_ID_BYTES + 1

# Unicode's White_Space property: exactly what Go's unicode.IsSpace reports, so a key
# name valid here is valid in Go. (str.isspace differs: it also counts U+001C..U+001F.)
_UNICODE_SPACES = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_HEX_DIGITS = frozenset("0123456789abcdef")

# Encodings of the Ed25519 points of small order, sign bit cleared (libsodium's
# ge25519_has_small_order list). Such a "public key" has no secret behind it and makes
# one signature verify for many messages (OpenSSL accepts an all-zero signature on some
# texts under the all-zero key), so a signature by it would bind nothing. No seed
# derives one: only a made-up key can be one.
_SMALL_ORDER_KEYS = frozenset(
    bytes.fromhex(encoded)
    for encoded in (
        "00" * 32,
        "01" + "00" * 31,
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ec" + "ff" * 30 + "7f",
        "ed" + "ff" * 30 + "7f",
        "ee" + "ff" * 30 + "7f",
    )
)
_DECIMAL_DIGITS = frozenset("0123456789")


class NoteError(ValueError):
    """A note, key or checkpoint that cannot be parsed (says why)."""


# --- encodings ----------------------------------------------------------------------------


def _utf8(text: str) -> bytes | None:
    """``text`` as UTF-8, or None when it holds lone surrogates (not valid UTF-8)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def _b64decode(text: str) -> bytes | None:
    """Standard, padded base64 (RFC 4648 §4), or None.

    Only the canonical encoding is accepted (the one the encoder writes, with zero pad
    bits): otherwise two different lines could carry the same signature, and flipping an
    unused bit would leave a signature that still verifies.
    """
    if not text or not _B64_ALPHABET.issuperset(text):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    return raw if _b64encode(raw) == text else None


def _b64encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _has_control(text: str) -> bool:
    """Whether ``text`` has an ASCII control character other than newline."""
    return any(ch < " " and ch != "\n" for ch in text)


def _text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a note text, or None when it can.

    signed-note, Format: the text ends in a newline, is valid UTF-8, and has no ASCII
    control character but newline. Empty lines are allowed ("The note text MAY contain
    empty lines"): the signatures start after the *last* blank line.
    """
    if not text.endswith("\n"):
        return "the note text must end in a newline"
    if _utf8(text) is None:
        return "the note is not valid UTF-8"
    if _has_control(text):
        return "the note has a control character other than newline"
    return None


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a key name, or None when it can.

    signed-note, Format: "Key names MUST be non-empty and MUST NOT contain any Unicode
    spaces or plus (U+002B) characters". A control character could never appear in a
    signature line either, so it is refused here rather than at signing time.
    """
    if not name:
        return "a key name must not be empty"
    if "+" in name:
        return f"a key name must not contain '+': {name!r}"
    if any(ch in _UNICODE_SPACES for ch in name):
        return f"a key name must not contain spaces: {name!r}"
    if _utf8(name) is None or _has_control(name):
        return f"a key name must be printable UTF-8: {name!r}"
    return None


def _key_id(name: str, kind: int, public: bytes) -> bytes:
    """SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4].

    signed-note, Signatures (and "Ed25519 signatures" for type 0x01); tlog-cosignature,
    Format, for type 0x04. The type byte keeps one key's IDs apart across types.
    """
    digest = hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([kind]) + public).digest()
    return digest[:_KEY_ID_BYTES]


def _hex_key_id(text: str) -> bytes | None:
    """The 8 lowercase hex digits of a key ID (signed-note, Conventions), or None."""
    if len(text) != 2 * _KEY_ID_BYTES or not _HEX_DIGITS.issuperset(text):
        return None
    return bytes.fromhex(text)


def _split_line(line: str) -> tuple[str, bytes, bytes] | None:
    """A signature line (without its newline) as (key name, key ID, signature), or None.

    signed-note, Format: em dash, space, key name, space, base64 of at least key ID and
    one byte. The name ends at the first space, as in Go, so a name with a space makes
    the rest fail as base64.
    """
    if not line.startswith(SIGNATURE_PREFIX):
        return None
    name, space, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
    if not space or _name_problem(name) is not None:
        return None
    payload = _b64decode(encoded)
    if payload is None or len(payload) < _MIN_PAYLOAD_BYTES:
        return None
    return name, payload[:_KEY_ID_BYTES], payload[_KEY_ID_BYTES:]


def _line_problem(line: str) -> str | None:
    """Why ``line`` (without its newline) cannot be a signature line, or None."""
    if "\n" in line:
        return "a signature line must be a single line"
    if not line.startswith(SIGNATURE_PREFIX):
        return f"a signature line must start with an em dash and a space: {line[:40]!r}"
    if _has_control(line) or _utf8(line) is None:
        return "a signature line must be printable UTF-8"
    if _split_line(line) is None:
        return f"a malformed signature line: {line[:60]!r}"
    return None


def _one_line(line: str) -> str:
    """``line`` without the one newline it may end in."""
    return line[:-1] if line.endswith("\n") else line


def _cosigned_message(timestamp: int, text: str) -> bytes:
    """The message an Ed25519 cosignature signs.

    tlog-cosignature, "Ed25519 signed message": the header line ``cosignature/v1``, the
    line ``time <timestamp>`` (decimal, no leading zeros), then "the whole note body of
    the cosigned checkpoint (including the final newline, but not including any
    signature lines)" — so extension lines are signed too.
    """
    return f"{COSIGNATURE_HEADER}\ntime {timestamp}\n{text}".encode()


def _signature_line(name: str, key_id: bytes, signature: bytes) -> str:
    return f"{SIGNATURE_PREFIX}{name} {_b64encode(key_id + signature)}\n"


# --- keys ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verifier:
    """A public key that checks note signatures: plain Ed25519 (type 0x01) or, for a
    witness, timestamped Ed25519 checkpoint cosignatures (type 0x04)."""

    name: str
    public: bytes
    kind: int = ED25519

    key_id: bytes = field(init=False)
    """The 4-byte key ID a signature line by this key starts with."""

    _key: Ed25519PublicKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problem = _name_problem(self.name)
        if problem is not None:
            raise NoteError(problem)
        if self.kind not in (ED25519, COSIGNATURE_V1):
            raise NoteError(f"unsupported signature type {self.kind:#04x}")
        if not isinstance(self.public, bytes) or len(self.public) != _PUBLIC_BYTES:
            raise NoteError(f"an Ed25519 public key is {_PUBLIC_BYTES} bytes")
        if self.public[:-1] + bytes([self.public[-1] & 0x7F]) in _SMALL_ORDER_KEYS:
            raise NoteError("a public key of small order verifies forged signatures")
        object.__setattr__(self, "key_id", _key_id(self.name, self.kind, self.public))
        object.__setattr__(self, "_key", Ed25519PublicKey.from_public_bytes(self.public))

    @classmethod
    def from_vkey(cls, vkey: str) -> Verifier:
        """Parse ``<name>+<hex key ID>+base64(type ‖ public key)`` (signed-note, Verifier
        keys). The key ID must be the one the name, type and key give."""
        name, plus, rest = vkey.partition("+")
        hex_id, plus2, encoded = rest.partition("+")
        if not plus or not plus2:
            raise NoteError("a verifier key is <name>+<key ID>+<key>")
        problem = _name_problem(name)
        if problem is not None:
            raise NoteError(problem)
        key_id = _hex_key_id(hex_id)
        if key_id is None:
            raise NoteError(f"a key ID is 8 lowercase hex digits, not {hex_id!r}")
        material = _b64decode(encoded)
        if material is None or len(material) != 1 + _PUBLIC_BYTES:
            raise NoteError("a verifier key's material is base64(type ‖ 32-byte key)")
        verifier = cls(name, material[1:], material[0])
        if not hmac.compare_digest(verifier.key_id, key_id):
            raise NoteError(f"the key ID {hex_id} does not match the key")
        return verifier

    def vkey(self) -> str:
        """This key as a verifier key string."""
        material = _b64encode(bytes([self.kind]) + self.public)
        return f"{self.name}+{self.key_id.hex()}+{material}"

    def verify(self, text: str, line: str) -> bool:
        """Whether ``line`` (one signature line, with or without its newline) is a valid
        signature by this key on the note text ``text``. Never raises.

        A cosignature key (type 0x04) also requires ``text`` to be a checkpoint: the spec
        defines cosignatures on checkpoints only.
        """
        return self._timestamp(text, line) is not None

    def _timestamp(self, text: str, line: str) -> int | None:
        """None unless ``line`` verifies; else the cosignature's timestamp (0 for a plain
        Ed25519 signature, which has none)."""
        split = _split_line(_one_line(line))
        message = _utf8(text)
        if split is None or message is None or _text_problem(text) is not None:
            return None
        name, key_id, payload = split
        if name != self.name or not hmac.compare_digest(key_id, self.key_id):
            return None
        timestamp = 0
        if self.kind == COSIGNATURE_V1:
            # tlog-cosignature, Format: payload = u64 timestamp (big-endian) ‖ signature.
            if len(payload) != _TIMESTAMP_BYTES + _SIGNATURE_BYTES or not _is_checkpoint(text):
                return None
            timestamp = int.from_bytes(payload[:_TIMESTAMP_BYTES], "big")
            if timestamp > MAX_TIMESTAMP:
                return None
            message = _cosigned_message(timestamp, text)
            payload = payload[_TIMESTAMP_BYTES:]
        elif len(payload) != _SIGNATURE_BYTES:
            return None
        try:
            self._key.verify(payload, message)
        except InvalidSignature:
            return None
        return timestamp


@dataclass(frozen=True)
class Signer:
    """An Ed25519 private key under a name: it signs notes (type 0x01) and, as a witness,
    cosigns checkpoints (type 0x04, see :func:`cosign`)."""

    name: str
    seed: bytes = field(repr=False)
    """The 32-byte Ed25519 private key seed (RFC 8032). Secret."""

    key_id: bytes = field(init=False)
    """The key ID of this key's plain Ed25519 signatures (type 0x01)."""

    public: bytes = field(init=False)
    """The 32-byte Ed25519 public key."""

    _key: Ed25519PrivateKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problem = _name_problem(self.name)
        if problem is not None:
            raise NoteError(problem)
        if not isinstance(self.seed, bytes) or len(self.seed) != _SEED_BYTES:
            raise NoteError(f"an Ed25519 seed is {_SEED_BYTES} bytes")
        key = Ed25519PrivateKey.from_private_bytes(self.seed)
        public = key.public_key().public_bytes_raw()
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "public", public)
        object.__setattr__(self, "key_id", _key_id(self.name, ED25519, public))

    @classmethod
    def generate(cls, name: str) -> Signer:
        """A new random key named ``name``."""
        return cls(name, Ed25519PrivateKey.generate().private_bytes_raw())

    @classmethod
    def from_skey(cls, skey: str) -> Signer:
        """Parse ``PRIVATE+KEY+<name>+<hex key ID>+base64(0x01 ‖ seed)`` (Go's signer key).
        The key ID must be the one of the public key the seed derives."""
        parts = skey.split("+", 4)
        if len(parts) != 5 or parts[0] != "PRIVATE" or parts[1] != "KEY":
            raise NoteError("a signer key is PRIVATE+KEY+<name>+<key ID>+<key>")
        _, _, name, hex_id, encoded = parts
        key_id = _hex_key_id(hex_id)
        if key_id is None:
            raise NoteError(f"a key ID is 8 lowercase hex digits, not {hex_id!r}")
        material = _b64decode(encoded)
        if material is None or len(material) != 1 + _SEED_BYTES:
            raise NoteError("a signer key's material is base64(0x01 ‖ 32-byte seed)")
        if material[0] != ED25519:
            raise NoteError(f"unsupported signer key type {material[0]:#04x}")
        signer = cls(name, material[1:])
        if not hmac.compare_digest(signer.key_id, key_id):
            raise NoteError(f"the key ID {hex_id} does not match the key")
        return signer

    def skey(self) -> str:
        """This key as a signer key string. Secret: it holds the seed."""
        material = _b64encode(bytes([ED25519]) + self.seed)
        return f"PRIVATE+KEY+{self.name}+{self.key_id.hex()}+{material}"

    def verifier(self, kind: int = ED25519) -> Verifier:
        """The public half: for plain signatures, or (``kind=COSIGNATURE_V1``) for this
        key's cosignatures, whose key ID differs."""
        return Verifier(self.name, self.public, kind)

    def sign(self, text: str) -> str:
        """A signature line ``— name base64(key ID ‖ signature)\\n`` on the note text."""
        problem = _text_problem(text)
        if problem is not None:
            raise NoteError(problem)
        return _signature_line(self.name, self.key_id, self._key.sign(text.encode("utf-8")))

    def _cosign(self, text: str, timestamp: int) -> str:
        key_id = _key_id(self.name, COSIGNATURE_V1, self.public)
        signature = self._key.sign(_cosigned_message(timestamp, text))
        # tlog-cosignature, Format: timestamped_signature = u64 timestamp (big-endian) ‖ sig.
        stamped = timestamp.to_bytes(_TIMESTAMP_BYTES, "big") + signature
        return _signature_line(self.name, key_id, stamped)


# --- checkpoints --------------------------------------------------------------------------


@dataclass(frozen=True)
class Checkpoint:
    """A transparency log's signed tree head (c2sp.org/tlog-checkpoint)."""

    origin: str
    """Names the log; its signer's key name should match it."""

    size: int
    """How many leaves the tree has."""

    root: bytes
    """The RFC 6962 Merkle tree hash (SHA-256) of those leaves."""

    extensions: tuple[str, ...] = ()
    """Opaque further lines. The spec does not recommend them (monitors cannot audit
    them); they are kept when read so that the signed text is reproduced exactly."""

    def __post_init__(self) -> None:
        # tlog-checkpoint, Note text: the origin "MUST be non-empty", every line is
        # non-empty, and extension lines "MUST be non-empty".
        for line in (self.origin, *self.extensions):
            if not line or "\n" in line or _has_control(line) or _utf8(line) is None:
                raise NoteError(f"a checkpoint line must be non-empty printable text: {line!r}")
        if isinstance(self.size, bool) or not 0 <= self.size <= MAX_TREE_SIZE:
            raise NoteError(f"a tree size is between 0 and {MAX_TREE_SIZE}, not {self.size}")
        if not isinstance(self.root, bytes) or len(self.root) != _ROOT_BYTES:
            raise NoteError(f"a root hash is {_ROOT_BYTES} bytes")

    def body(self) -> str:
        """The note text: origin, decimal size, base64 root, then any extension lines."""
        lines = (self.origin, str(self.size), _b64encode(self.root), *self.extensions)
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """Read a note text as a checkpoint; :class:`NoteError` says why it is not one."""
        problem = _text_problem(text)
        if problem is not None:
            raise NoteError(problem)
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise NoteError("a checkpoint has an origin, a size and a root hash line")
        origin, size, root, *extensions = lines
        # ASCII decimal "with no leading zeroes (unless the tree is empty)": int() alone
        # would also take "+5", " 5", "1_0" and non-ASCII digits.
        leading_zero = len(size) > 1 and size[0] == "0"
        if not size or not _DECIMAL_DIGITS.issuperset(size) or leading_zero:
            raise NoteError(f"a tree size is a decimal number without leading zeros: {size!r}")
        # Length first: int() of thousands of digits is slow, and refused past 4300.
        if len(size) > len(str(MAX_TREE_SIZE)) or int(size) > MAX_TREE_SIZE:
            raise NoteError(f"the tree size {size[:24]} is too large")
        digest = _b64decode(root)
        if digest is None or len(digest) != _ROOT_BYTES:
            raise NoteError(f"a root hash is the base64 of {_ROOT_BYTES} bytes: {root!r}")
        return cls(origin, int(size), digest, tuple(extensions))


def _is_checkpoint(text: str) -> bool:
    try:
        Checkpoint.parse(text)
    except NoteError:
        return False
    return True


# --- notes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignedNote:
    """A note text and its signature lines, verified or not: holding a SignedNote says
    nothing about who signed it until :meth:`signed_by` or :func:`cosigned` says so."""

    text: str
    """The signed text, with its final newline (not the blank line after it)."""

    signatures: tuple[str, ...]
    """The signature lines as written, each without its final newline. Lines by unknown
    keys are kept, so a note passes through unchanged (signed-note, Signatures)."""

    def __post_init__(self) -> None:
        problem = _text_problem(self.text)
        if problem is not None:
            raise NoteError(problem)
        if not self.signatures:
            raise NoteError("a signed note has at least one signature line")
        if len(self.signatures) > MAX_SIGNATURES:
            raise NoteError(f"a note has at most {MAX_SIGNATURES} signature lines")
        for line in self.signatures:
            problem = _line_problem(line)
            if problem is not None:
                raise NoteError(problem)

    def render(self) -> str:
        """The note as text: the text, a blank line, and each signature line."""
        return self.text + "\n" + "".join(line + "\n" for line in self.signatures)

    def signed_by(self, verifier: Verifier) -> bool:
        """Whether ``verifier``'s key signed the text.

        At least one line must carry the key's name and key ID, and every such line must
        verify: signed-note, Signatures, "If a signature from a known key fails to
        verify, clients SHOULD reject the whole note". Lines of other keys are ignored.
        """
        return self._times(verifier) is not None

    def _times(self, verifier: Verifier) -> list[int] | None:
        """The timestamps of ``verifier``'s lines (0 for plain signatures) when there is
        one and all verify; else None."""
        times: list[int] = []
        failed = False
        # Every line is looked at, valid or not, rather than stopping at the first match.
        for line in self.signatures:
            split = _split_line(line)
            if split is None or split[0] != verifier.name or split[1] != verifier.key_id:
                continue
            timestamp = verifier._timestamp(self.text, line)
            if timestamp is None:
                failed = True
            else:
                times.append(timestamp)
        return None if failed or not times else times

    def checkpoint(self) -> Checkpoint:
        """The text read as a checkpoint (:class:`NoteError` when it is not one)."""
        return Checkpoint.parse(self.text)


def parse_note(note: str | bytes) -> SignedNote:
    """Read a signed note, strictly (c2sp.org/signed-note, Format).

    :class:`NoteError` (never another exception) for: bytes that are not UTF-8, a control
    character other than newline, no blank line before the signatures, no signature
    line, a signature block not ending in a newline, a line without the em dash prefix,
    a bad key name, bad or non-canonical base64, a payload shorter than 5 bytes, and more
    than :data:`MAX_SIGNATURES` lines. Signatures are not verified here.
    """
    if isinstance(note, bytes):
        try:
            note = note.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NoteError("the note is not valid UTF-8") from error
    if _utf8(note) is None:
        raise NoteError("the note is not valid UTF-8")
    if _has_control(note):
        raise NoteError("the note has a control character other than newline")
    # "the text is separated from the signatures by the last empty line in the note"
    split = note.rfind("\n\n")
    if split < 0:
        raise NoteError("no blank line before the signatures")
    text, block = note[: split + 1], note[split + 2 :]
    if not block:
        raise NoteError("the note has no signature lines")
    if not block.endswith("\n"):
        raise NoteError("the last signature line must end in a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a note has at most {MAX_SIGNATURES} signature lines")
    return SignedNote(text, tuple(lines))


def sign_checkpoint(checkpoint: Checkpoint, signer: Signer) -> SignedNote:
    """The checkpoint as a note signed by the log's key."""
    text = checkpoint.body()
    return SignedNote(text, (_one_line(signer.sign(text)),))


def cosign(checkpoint: Checkpoint, witness: Signer, timestamp: int) -> str:
    """A witness's ``cosignature/v1`` signature line (with its newline) on the checkpoint,
    made at ``timestamp`` (POSIX seconds). Its key ID is the witness's type 0x04 one."""
    if isinstance(timestamp, bool) or not 0 <= timestamp <= MAX_TIMESTAMP:
        raise NoteError(f"a cosignature timestamp is between 0 and {MAX_TIMESTAMP}")
    return witness._cosign(checkpoint.body(), timestamp)


def cosigned(note: SignedNote, witness: Verifier) -> int | None:
    """The timestamp of ``witness``'s cosignature on this checkpoint, or None.

    None unless ``witness`` is a cosignature key (type 0x04), the note is a checkpoint,
    and ``witness``'s lines all verify (as for :meth:`SignedNote.signed_by`). When the
    witness cosigned more than once, the latest time is returned: it is the strongest
    statement ("as of the specified time ... the largest size the cosigner has observed").
    Never raises.
    """
    if witness.kind != COSIGNATURE_V1 or not _is_checkpoint(note.text):
        return None
    times = note._times(witness)
    return None if times is None else max(times)


def add_signatures(note: SignedNote, lines: Iterable[str]) -> SignedNote:
    """The note with more signature lines (each with or without its newline), e.g. a
    witness's response. Lines already present are not repeated; nothing is verified.
    :class:`NoteError` for a malformed line or more than :data:`MAX_SIGNATURES` in all."""
    signatures = list(note.signatures)
    for line in lines:
        line = _one_line(line)
        problem = _line_problem(line)
        if problem is not None:
            raise NoteError(problem)
        if line not in signatures:
            signatures.append(line)
    return SignedNote(note.text, tuple(signatures))


def split_notes(text: str) -> list[str]:
    """The signed notes in ``text``, one after another (as the anchor file holds them):
    each is its text lines, a blank line, and the signature lines after it. Read line by
    line, so that a note torn by a crash is skipped and the ones after it are still read."""
    notes: list[str] = []
    body: list[str] = []
    signatures: list[str] = []
    blank = False

    def close() -> None:
        if body and signatures:
            notes.append(
                "".join(f"{b}\n" for b in body) + "\n" + "".join(f"{x}\n" for x in signatures)
            )

    for line in text.split("\n"):
        if line.startswith(SIGNATURE_PREFIX) and blank:
            signatures.append(line)
        elif line == "":
            if signatures:  # the blank line after a note's signatures ends it
                close()
                body, signatures, blank = [], [], False
            else:
                blank = bool(body)
        else:
            if signatures or blank:  # a text line where a signature was due: start over
                close()
                body, signatures, blank = [], [], False
            body.append(line)
    close()
    return notes
