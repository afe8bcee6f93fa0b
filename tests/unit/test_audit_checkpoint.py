"""Signed notes, checkpoints and cosignatures: byte-for-byte what Go and the C2SP specs
write, and nothing altered, renamed, truncated or malformed gets through."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit.checkpoint import (
    COSIGNATURE_V1,
    ED25519,
    MAX_SIGNATURES,
    Checkpoint,
    NoteError,
    SignedNote,
    Signer,
    Verifier,
    add_signatures,
    cosign,
    cosigned,
    parse_note,
    sign_checkpoint,
)

PROP = settings(max_examples=200, deadline=None)

# --- Known answers ------------------------------------------------------------------------
# From Go's golang.org/x/mod/sumdb/note, note_test.go (repository golang/mod, commit
# fe2ec04f7c3c3aa6fad97631aafcff6e49e2d1db): TestNewSigner, TestSign, TestOpen.
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
PETER_SIG = (
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngot"
    "pRZb6KE6RyyBwJnAM=\n"
)
ENOCH_SIG = (
    "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox"
    "33WWd1RvMc+QQ=\n"
)

# From the C2SP specification c2sp.org/signed-note (repository C2SP/C2SP, signed-note.md,
# commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the "Example" of "Verifier keys", and
# the opening example, whose text has an empty line (and whose key is not published).
C2SP_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
C2SP_NOTE = (
    "This is an example message.\n"
    "\n"
    "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXm"
    "RKuwHjG1Yu72IneyaQM=\n"
)
QUASIMODO_NOTE = (
    "Ognuno sta solo sul cuor della terra\n"
    "trafitto da un raggio di sole:\n"
    "\n"
    "ed è subito sera.\n"
    "\n"
    "— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouF"
    "SQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n"
)

# From c2sp.org/tlog-cosignature (tlog-cosignature.md, same commit): the example checkpoint
# and its witness cosignature. The witness's public key is not published, so this one
# checks the layout only (key ID, then the timestamp of the spec's "time 1679315147").
SOFA_NOTE = (
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    "\n"
    "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv"
    "2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3"
    "b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)

# A real checkpoint of the log arche2025h1.staging.ct.transparency.dev with real witness
# cosignatures, as quoted in the tests of florolf/tlog-scales (tests/test_signing.py,
# TestCheckpointVerification); remora.n621.de's type 0x04 vkey also appears in
# transparency-dev/formats note/note_cosigv1_test.go (TestCoSigV1NewVerifier). Lines of
# other types (an RFC 6962 STH signature, other witnesses) are unknown here and ignored.
ARCHE_NOTE = (
    "arche2025h1.staging.ct.transparency.dev\n"
    "1432088532\n"
    "U7WM79jrzyhGZ5/GUBTpM7NzwdyfFx61t3RovgcC4Ro=\n"
    "\n"
    "— arche2025h1.staging.ct.transparency.dev zTM8sQAAAZ5W0WdjBAMARjBEAiBjW5IQf9pvsYLfQFX6hoGR"
    "EPMHbdQ3urbllzalApkptQIgIpwtEroeW2BXaHAI4kJXFbon5Ch9MNL5zRNZ55lvGt0=\n"
    "— arche2025h1.staging.ct.transparency.dev ui8GwCF1+kWqZrxGdhj4aX3gcw7XUlXQQabg/27lefwhUkzb"
    "C3NygNI75MdhL1bfTW9g8Ei59RA23oHP7Ry1k3ZFWwQ=\n"
    "— transparency.dev/DEV:witness-little-garden 2AQqhwAAAABqEiEgzgFIqqhbUoDwjMWE6UP8nd8/KYTz"
    "wZ2rhIgcqoXHAwVkjZr4AscylP3v7sEodkRAErumC2q44vdgJY096st5BQ==\n"
    "— witness1.smartit.nu/witness1 pIyCDwAAAABqEiEghIp82KWebrw7/oHQwlTAm3g2RKS4+eebl8eO0WH+/iE"
    "cxZ75W3u5hNI7TOQtmJbqmNWVuE0tgh0XwzdZsDsUAQ==\n"
    "— remora.n621.de 2net5wAAAABqEiEgPlfF3V06o0Y+fHM+J5J9s27wgxxcOVSpZ/2g/KSiXCg9DEZI+aVCIobWX"
    "9sXTynk5XeU/zZ0WBxtqB0DrAWfBw==\n"
    "— witness.stagemole.eu Z/euoAAAAABqEiEgw0i+7g2ENfDAWHmtRzCfKTHSDwYDJA2NmKeGi9Y8FtEyOUvVr+AJ"
    "mIY/2TUFucgKi7lI7cUiOvKFYe/TmN9DAg==\n"
)
ARCHE_VKEY = (
    "arche2025h1.staging.ct.transparency.dev+ba2f06c0+AU0vHmlGCS/PdN8b2OaGmKprLI8HKM+dJ472xgFYh15f"
)
REMORA_VKEY = "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2"
REMORA_TIME = 1779573024  # the 8 bytes after the key ID in remora.n621.de's line

# --- Fixtures -----------------------------------------------------------------------------
LOG = Signer("example.com/log", bytes(range(32)))
WITNESS = Signer("witness.example/w1", bytes(range(32, 64)))
OTHER = Signer("example.com/other", bytes(range(64, 96)))
CHECKPOINT = Checkpoint("example.com/log", 42, hashlib.sha256(b"root").digest())
T = 1_700_000_000


def signed() -> SignedNote:
    return sign_checkpoint(CHECKPOINT, LOG)


def witnessed(timestamp: int = T) -> SignedNote:
    return add_signatures(signed(), [cosign(CHECKPOINT, WITNESS, timestamp)])


def payload(line: str) -> bytes:
    return base64.b64decode(line.split(" ")[-1])


def refused(note: str | bytes, verifier: Verifier) -> bool:
    """Whether ``note`` either does not parse or is not signed by ``verifier``."""
    try:
        return not parse_note(note).signed_by(verifier)
    except NoteError:
        return True


names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=20,
).filter(lambda name: "+" not in name and "\x85" not in name)
lines = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=30
)


# --- Go's sumdb/note known answers --------------------------------------------------------


def test_go_s_signer_key_gives_go_s_key_id_and_verifier_key() -> None:
    peter = Signer.from_skey(PETER_SKEY)
    assert peter.name == "PeterNeumann"
    assert peter.key_id.hex() == "c74f20a3"
    assert peter.verifier().vkey() == PETER_VKEY
    assert peter.skey() == PETER_SKEY


def test_go_s_verifier_key_parses_and_prints_back_unchanged() -> None:
    peter = Verifier.from_vkey(PETER_VKEY)
    assert (peter.name, peter.kind, peter.key_id.hex()) == ("PeterNeumann", ED25519, "c74f20a3")
    assert peter.vkey() == PETER_VKEY
    assert peter == Signer.from_skey(PETER_SKEY).verifier()


def test_signing_go_s_text_writes_go_s_signature_line_byte_for_byte() -> None:
    assert Signer.from_skey(PETER_SKEY).sign(GO_TEXT) == PETER_SIG


def test_go_s_doubly_signed_note_is_signed_by_both_and_keeps_the_unknown_line() -> None:
    note = parse_note(GO_TEXT + "\n" + PETER_SIG + ENOCH_SIG)
    assert note.text == GO_TEXT
    assert note.signatures == (PETER_SIG[:-1], ENOCH_SIG[:-1])
    assert note.signed_by(Verifier.from_vkey(PETER_VKEY))
    assert note.signed_by(Verifier.from_vkey(ENOCH_VKEY))
    assert note.render() == GO_TEXT + "\n" + PETER_SIG + ENOCH_SIG


def test_go_s_corrupted_signature_does_not_verify() -> None:
    # TestOpen's "Invalid signature": four base64 characters spliced into the line.
    note = parse_note(GO_TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:])
    assert not note.signed_by(Verifier.from_vkey(PETER_VKEY))


def test_go_s_misnamed_signature_is_not_the_key_s() -> None:
    misnamed = PETER_SIG.replace("PeterNeumann", "CarmenSandiego")
    note = parse_note(GO_TEXT + "\n" + misnamed)
    assert not note.signed_by(Verifier.from_vkey(PETER_VKEY))
    impostor = Verifier("CarmenSandiego", Verifier.from_vkey(PETER_VKEY).public)
    assert not note.signed_by(impostor)  # the key ID commits to the name


@pytest.mark.parametrize(
    "message",
    [
        GO_TEXT,
        GO_TEXT + "\n",
        GO_TEXT + "\n" + PETER_SIG[:-1],
        "\x01" + GO_TEXT + "\n" + PETER_SIG,
        "\xff" + GO_TEXT + "\n" + PETER_SIG,  # a str with U+00FF: decoded as bytes below
        GO_TEXT + "\n" + "— Bad Name " + PETER_SIG.split(" ")[-1][:-1],
        GO_TEXT + "\n" + PETER_SIG + "Unexpected line.\n",
    ],
)
def test_go_s_malformed_messages_are_refused(message: str) -> None:
    # TestOpen's badMsgs; Go's "\xff" is a byte, so it is given here as bytes.
    raw = message.encode("utf-8").replace("\xff".encode(), b"\xff")
    with pytest.raises(NoteError):
        parse_note(raw)


def test_more_than_a_hundred_signatures_are_refused_and_a_hundred_are_not() -> None:
    assert len(parse_note(GO_TEXT + "\n" + PETER_SIG * MAX_SIGNATURES).signatures) == 100
    with pytest.raises(NoteError):
        parse_note(GO_TEXT + "\n" + PETER_SIG * (MAX_SIGNATURES + 1))


def mangled(key: str) -> list[str]:
    """Every proper substring of ``key`` and every one-character increment, as Go's
    TestNewVerifier and TestNewSigner try them."""
    cut = [key[i:j] for i in range(len(key) + 1) for j in range(i + 1, len(key) + 1)]
    bumped = [key[:i] + chr(ord(key[i]) + 1) + key[i + 1 :] for i in range(len(key))]
    return [k for k in cut + bumped if k != key]


def test_every_mangling_of_go_s_verifier_key_is_refused() -> None:
    for bad in mangled(PETER_VKEY) + [
        # Go's: a wrong-length key, and an unknown algorithm, each with its key ID fixed.
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ]:
        with pytest.raises(NoteError):
            Verifier.from_vkey(bad)


def test_every_mangling_of_go_s_signer_key_is_refused() -> None:
    for bad in mangled(PETER_SKEY):
        with pytest.raises(NoteError):
            Signer.from_skey(bad)


# --- C2SP and real-world known answers ----------------------------------------------------


def test_the_signed_note_spec_s_example_verifies_under_its_example_key() -> None:
    note = parse_note(C2SP_NOTE)
    assert note.text == "This is an example message.\n"
    assert note.signed_by(Verifier.from_vkey(C2SP_VKEY))


def test_a_note_text_may_hold_empty_lines_and_ends_at_the_last_one() -> None:
    note = parse_note(QUASIMODO_NOTE)
    assert note.text.endswith("\n\ned è subito sera.\n")
    assert note.text.count("\n") == 4
    assert len(note.signatures) == 1
    assert len(payload(note.signatures[0])) == 4 + 64


def test_the_cosignature_spec_s_example_has_the_spec_s_layout() -> None:
    note = parse_note(SOFA_NOTE)
    assert note.checkpoint() == Checkpoint(
        "example.com/behind-the-sofa",
        20852163,
        base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I="),
    )
    line = payload(note.signatures[1])
    assert len(line) == 4 + 8 + 64
    assert line[:4].hex() == "8d66cf3f"
    assert int.from_bytes(line[4:12], "big") == 1679315147


def test_a_real_witnessed_checkpoint_verifies_under_the_published_keys() -> None:
    note = parse_note(ARCHE_NOTE)
    remora = Verifier.from_vkey(REMORA_VKEY)
    assert (remora.kind, remora.key_id.hex()) == (COSIGNATURE_V1, "da77ade7")
    assert note.signed_by(Verifier.from_vkey(ARCHE_VKEY))
    assert cosigned(note, remora) == REMORA_TIME
    assert note.checkpoint().size == 1432088532


def test_a_real_witnessed_checkpoint_with_another_size_verifies_for_nobody() -> None:
    note = parse_note(ARCHE_NOTE.replace("1432088532", "1432088533"))
    assert not note.signed_by(Verifier.from_vkey(ARCHE_VKEY))
    assert cosigned(note, Verifier.from_vkey(REMORA_VKEY)) is None


def test_verifier_keys_from_transparency_dev_formats_parse_or_are_refused() -> None:
    # transparency-dev/formats note/note_cosigv1_test.go, TestCoSigV1NewVerifier.
    plain = Verifier.from_vkey("TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6")
    assert (plain.name, plain.kind) == ("TEST", ED25519)
    for bad in (
        "bananas.sigstore.dev+12344556",
        "rekor.sigstore.dev+12345678+THIS_IS_NOT_BASE64!",
        "rekor.sigstore.dev+12345678+AwEB",
    ):
        with pytest.raises(NoteError):
            Verifier.from_vkey(bad)


# --- Keys ---------------------------------------------------------------------------------


def test_a_generated_key_round_trips_through_its_key_strings() -> None:
    signer = Signer.generate("example.com/fresh")
    assert Signer.from_skey(signer.skey()) == signer
    for kind in (ED25519, COSIGNATURE_V1):
        verifier = signer.verifier(kind)
        assert Verifier.from_vkey(verifier.vkey()) == verifier
    assert signer.verifier().key_id != signer.verifier(COSIGNATURE_V1).key_id


def test_the_key_id_is_the_spec_s_hash_for_each_signature_type() -> None:
    for kind in (ED25519, COSIGNATURE_V1):
        expected = hashlib.sha256(b"witness.example/w1\n" + bytes([kind]) + WITNESS.public)
        assert WITNESS.verifier(kind).key_id == expected.digest()[:4]


def test_the_seed_is_not_in_the_signer_s_repr() -> None:
    assert WITNESS.seed.hex() not in repr(WITNESS)
    assert repr(WITNESS.seed) not in repr(WITNESS)


@pytest.mark.parametrize(
    "name", ["", "a b", "a+b", "a\u00a0b", "a\u2003b", "a\u3000b", "a\tb", "a\nb", "a\ud800b"]
)
def test_key_names_that_are_empty_or_hold_spaces_pluses_or_controls_are_refused(
    name: str,
) -> None:
    with pytest.raises(NoteError):
        Signer(name, bytes(32))
    with pytest.raises(NoteError):
        Verifier(name, LOG.public)


@pytest.mark.parametrize(
    "public",
    [bytes(32), b"\x01" + bytes(31), b"\xec" + b"\xff" * 30 + b"\x7f", bytes(31) + b"\x80"],
)
def test_a_public_key_of_small_order_is_refused(public: bytes) -> None:
    # Under the all-zero key, OpenSSL takes an all-zero signature on some texts.
    with pytest.raises(NoteError):
        Verifier("example.com/weak", public)


def test_keys_of_the_wrong_size_or_type_are_refused() -> None:
    with pytest.raises(NoteError):
        Signer("example.com/x", bytes(31))
    with pytest.raises(NoteError):
        Verifier("example.com/x", LOG.public[:31])
    with pytest.raises(NoteError):
        Verifier("example.com/x", LOG.public, kind=0x02)


# --- Checkpoints --------------------------------------------------------------------------


def test_a_checkpoint_body_is_origin_size_and_base64_root() -> None:
    root = base64.b64encode(CHECKPOINT.root).decode()
    assert CHECKPOINT.body() == f"example.com/log\n42\n{root}\n"


@PROP
@given(
    origin=lines,
    size=st.integers(0, 2**64 - 1),
    root=st.binary(min_size=32, max_size=32),
    extensions=st.lists(lines, max_size=3).map(tuple),
)
def test_any_checkpoint_body_reads_back_as_the_same_checkpoint(
    origin: str, size: int, root: bytes, extensions: tuple[str, ...]
) -> None:
    checkpoint = Checkpoint(origin, size, root, extensions)
    assert Checkpoint.parse(checkpoint.body()) == checkpoint


ROOT_B64 = base64.b64encode(bytes(32)).decode()


@pytest.mark.parametrize(
    "text",
    [
        f"o\n01\n{ROOT_B64}\n",
        f"o\n-1\n{ROOT_B64}\n",
        f"o\n+1\n{ROOT_B64}\n",
        f"o\n 1\n{ROOT_B64}\n",
        f"o\n1_0\n{ROOT_B64}\n",
        f"o\n\u0661\n{ROOT_B64}\n",  # ARABIC-INDIC DIGIT ONE: int() would take it
        f"o\n{2**64}\n{ROOT_B64}\n",
        f"o\n{'9' * 5000}\n{ROOT_B64}\n",
        f"o\n\n{ROOT_B64}\n",
        f"\n1\n{ROOT_B64}\n",
        "o\n1\n" + base64.b64encode(bytes(31)).decode() + "\n",
        "o\n1\n" + ROOT_B64.rstrip("=") + "\n",
        "o\n1\nnot base64!\n",
        "o\n1\n",
        f"o\n1\n{ROOT_B64}\n\n",  # an empty extension line
        f"o\n1\n{ROOT_B64}",  # no final newline
        f"o\r\n1\n{ROOT_B64}\n",
    ],
)
def test_a_text_that_is_not_a_checkpoint_is_refused(text: str) -> None:
    with pytest.raises(NoteError):
        Checkpoint.parse(text)


def test_a_checkpoint_with_bad_fields_cannot_be_made() -> None:
    for origin, size, root in (("", 1, bytes(32)), ("o", -1, bytes(32)), ("o", 1, bytes(31))):
        with pytest.raises(NoteError):
            Checkpoint(origin, size, root)
    with pytest.raises(NoteError):
        Checkpoint("o", 1, bytes(32), ("",))


# --- Signing and cosigning round trips ----------------------------------------------------


def test_a_signed_checkpoint_renders_parses_and_verifies() -> None:
    note = parse_note(signed().render())
    assert note == signed()
    assert note.signed_by(LOG.verifier())
    assert note.checkpoint() == CHECKPOINT


def test_a_note_signed_by_one_key_is_not_signed_by_another() -> None:
    note = parse_note(signed().render())
    assert not note.signed_by(OTHER.verifier())
    assert not note.signed_by(Verifier(LOG.name, OTHER.public))  # same name, other key
    assert not note.signed_by(LOG.verifier(COSIGNATURE_V1))


def test_a_cosignature_gives_back_its_time_and_leaves_the_log_signature_valid() -> None:
    note = parse_note(witnessed().render())
    assert cosigned(note, WITNESS.verifier(COSIGNATURE_V1)) == T
    assert note.signed_by(LOG.verifier())
    assert note.signed_by(WITNESS.verifier(COSIGNATURE_V1))


def test_a_cosignature_is_not_a_plain_signature_and_the_other_way_round() -> None:
    note = witnessed()
    assert not note.signed_by(WITNESS.verifier())
    assert cosigned(note, WITNESS.verifier()) is None  # an ED25519 key cosigns nothing
    plain = add_signatures(signed(), [WITNESS.sign(signed().text)])
    assert cosigned(plain, WITNESS.verifier(COSIGNATURE_V1)) is None


def test_a_cosignature_by_another_witness_is_not_this_witness_s() -> None:
    note = add_signatures(signed(), [cosign(CHECKPOINT, OTHER, T)])
    assert cosigned(note, WITNESS.verifier(COSIGNATURE_V1)) is None


def test_a_cosignature_with_its_time_changed_does_not_verify() -> None:
    line = cosign(CHECKPOINT, WITNESS, T)
    raw = bytearray(payload(line))
    raw[4:12] = (T + 1).to_bytes(8, "big")
    forged = f"— {WITNESS.name} {base64.b64encode(bytes(raw)).decode()}"
    assert cosigned(add_signatures(signed(), [forged]), WITNESS.verifier(COSIGNATURE_V1)) is None


def test_a_cosignature_covers_the_extension_lines() -> None:
    checkpoint = Checkpoint(CHECKPOINT.origin, CHECKPOINT.size, CHECKPOINT.root, ("ext 1",))
    note = add_signatures(sign_checkpoint(checkpoint, LOG), [cosign(checkpoint, WITNESS, T)])
    assert cosigned(note, WITNESS.verifier(COSIGNATURE_V1)) == T
    altered = parse_note(note.render().replace("ext 1\n", "ext 2\n"))
    assert cosigned(altered, WITNESS.verifier(COSIGNATURE_V1)) is None


def test_the_latest_of_several_cosignatures_by_one_witness_is_given() -> None:
    note = add_signatures(witnessed(T), [cosign(CHECKPOINT, WITNESS, T + 60)])
    assert cosigned(note, WITNESS.verifier(COSIGNATURE_V1)) == T + 60


def test_a_failing_line_under_a_known_key_spoils_that_key_s_valid_one() -> None:
    # signed-note: "If a signature from a known key fails to verify, clients SHOULD
    # reject the whole note."
    bad_sig = LOG.sign("something else\n")
    assert not add_signatures(signed(), [bad_sig]).signed_by(LOG.verifier())
    bad_cosig = cosign(Checkpoint("example.com/log", 1, bytes(32)), WITNESS, T)
    witness = WITNESS.verifier(COSIGNATURE_V1)
    assert cosigned(add_signatures(witnessed(), [bad_cosig]), witness) is None


@pytest.mark.parametrize("timestamp", [-1, 2**63, True])
def test_a_cosignature_time_outside_the_spec_s_range_is_refused(timestamp: int) -> None:
    with pytest.raises(NoteError):
        cosign(CHECKPOINT, WITNESS, timestamp)


def test_a_cosignature_may_be_made_at_the_spec_s_extreme_times() -> None:
    for timestamp in (0, 2**63 - 1):
        assert cosigned(witnessed(timestamp), WITNESS.verifier(COSIGNATURE_V1)) == timestamp


def test_adding_signatures_keeps_the_old_ones_and_skips_repeats() -> None:
    line = cosign(CHECKPOINT, WITNESS, T)
    note = add_signatures(signed(), [line, line.rstrip("\n"), line])
    assert note.signatures == (signed().signatures[0], line.rstrip("\n"))
    for bad in ("not a signature", "— w AAAA", line + line):
        with pytest.raises(NoteError):
            add_signatures(signed(), [bad])


def test_signing_a_text_that_is_not_a_note_text_is_refused() -> None:
    for text in ("no newline", "a\x00b\n", "a\rb\n", "\ud800\n"):
        with pytest.raises(NoteError):
            LOG.sign(text)


def test_a_signed_note_with_no_or_malformed_signature_lines_cannot_be_made() -> None:
    for signatures in ((), ("— x",), (PETER_SIG,), (PETER_SIG[:-1],) * 101):
        with pytest.raises(NoteError):
            SignedNote(GO_TEXT, signatures)
    with pytest.raises(NoteError):
        SignedNote("no newline", (PETER_SIG[:-1],))


# --- Tampering ----------------------------------------------------------------------------


@PROP
@given(data=st.data())
def test_a_flipped_bit_anywhere_in_the_note_is_refused(data: st.DataObject) -> None:
    raw = bytearray(signed().render().encode())
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] ^= 1 << data.draw(st.integers(0, 7))
    assert refused(bytes(raw), LOG.verifier())


@PROP
@given(data=st.data())
def test_a_flipped_bit_anywhere_in_a_cosigned_note_loses_the_cosignature(
    data: st.DataObject,
) -> None:
    raw = bytearray(witnessed().render().encode())
    # Only the text and the witness's own line: flipping the log's line does not touch it.
    log_line = (signed().signatures[0] + "\n").encode()
    start = raw.index(log_line)
    at = data.draw(
        st.integers(0, len(raw) - 1 - len(log_line)).map(
            lambda i: i if i < start else i + len(log_line)
        )
    )
    raw[at] ^= 1 << data.draw(st.integers(0, 7))
    try:
        assert cosigned(parse_note(bytes(raw)), WITNESS.verifier(COSIGNATURE_V1)) is None
    except NoteError:
        pass


@PROP
@given(name=names)
def test_a_signature_line_under_another_name_is_refused(name: str) -> None:
    renamed = signed().render().replace(f"— {LOG.name} ", f"— {name} ")
    if name != LOG.name:
        assert refused(renamed, LOG.verifier())
        assert refused(renamed, Verifier(name, LOG.public))


def test_every_truncation_of_a_signed_note_is_refused() -> None:
    rendered = signed().render()
    for end in range(len(rendered)):
        with pytest.raises(NoteError):
            parse_note(rendered[:end])


# --- Malformed notes ----------------------------------------------------------------------

LINE = signed().signatures[0]
TEXT = signed().text
SIG64 = LINE.split(" ")[-1]


@pytest.mark.parametrize(
    "note",
    [
        pytest.param("", id="empty"),
        pytest.param("\n\n", id="only a blank line"),
        pytest.param(TEXT, id="no blank line and no signature"),
        pytest.param(TEXT + "\n", id="no signature"),
        pytest.param(TEXT + "\n" + LINE, id="no final newline"),
        pytest.param(TEXT + LINE + "\n", id="blank line missing"),
        pytest.param(TEXT + "\n" + LINE + "\n\n", id="trailing blank line"),
        pytest.param(TEXT + "\n" + LINE + "\n" + "stray\n", id="a line without the em dash"),
        pytest.param(TEXT + "\n" + LINE.replace("—", "-", 1) + "\n", id="hyphen for em dash"),
        pytest.param(TEXT + "\n" + LINE.replace("—", "–", 1) + "\n", id="en dash for em dash"),
        pytest.param(TEXT + "\n" + LINE.replace("— ", "—", 1) + "\n", id="no space after dash"),
        pytest.param(TEXT + "\n— " + SIG64 + "\n", id="no key name"),
        pytest.param(TEXT + "\n—  " + SIG64 + "\n", id="empty key name"),
        pytest.param(TEXT + "\n— a+b " + SIG64 + "\n", id="plus in key name"),
        pytest.param(TEXT + "\n— a\u00a0b " + SIG64 + "\n", id="no-break space in key name"),
        pytest.param(TEXT + "\n— a b " + SIG64 + "\n", id="space in key name"),
        pytest.param(TEXT + "\n— a " + SIG64 + " \n", id="trailing space"),
        pytest.param(TEXT + "\n— a !!!!\n", id="not base64"),
        pytest.param(TEXT + "\n— a " + SIG64.rstrip("=") + "\n", id="base64 padding missing"),
        pytest.param(TEXT + "\n— a " + SIG64[:-2] + "B=\n", id="non-canonical base64"),
        pytest.param(TEXT + "\n— a AAAA\n", id="payload shorter than five bytes"),
        pytest.param(TEXT + "\n— a \n", id="empty signature"),
        pytest.param("\x01" + TEXT + "\n" + LINE + "\n", id="control character"),
        pytest.param(TEXT.replace("\n", "\r\n") + "\n" + LINE + "\n", id="CRLF line ends"),
        pytest.param("\ud800" + TEXT + "\n" + LINE + "\n", id="lone surrogate"),
        pytest.param(b"\xff" + (TEXT + "\n" + LINE + "\n").encode(), id="bytes not UTF-8"),
        pytest.param(b"\xc0\xaf" + (TEXT + "\n" + LINE + "\n").encode(), id="overlong UTF-8"),
        pytest.param(TEXT + "\n" + (LINE + "\n") * 101, id="101 signatures"),
    ],
)
def test_a_malformed_note_is_refused_with_a_note_error(note: str | bytes) -> None:
    with pytest.raises(NoteError):
        parse_note(note)


# Pieces of notes, so that random inputs reach past the first checks.
PIECES = ["\n", "\n\n", "— ", "—", " ", "a", "+", "=", "AAAA", "\x01", "é", TEXT, SIG64, LINE]
NOTEISH = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@PROP
@given(note=st.one_of(st.text(), st.binary(), NOTEISH))
def test_any_input_either_parses_or_raises_a_note_error(note: str | bytes) -> None:
    try:
        parsed = parse_note(note)
    except NoteError:
        return
    assert parse_note(parsed.render()) == parsed


@PROP
@given(
    text=st.text(max_size=40),
    line=st.one_of(st.text(max_size=120), st.just(LINE), st.just(LINE + "\n")),
)
def test_verifying_never_raises(text: str, line: str) -> None:
    for verifier in (LOG.verifier(), WITNESS.verifier(COSIGNATURE_V1)):
        assert verifier.verify(text, line) in (True, False)


def test_verifying_accepts_the_line_with_or_without_its_newline() -> None:
    assert LOG.verifier().verify(TEXT, LINE)
    assert LOG.verifier().verify(TEXT, LINE + "\n")
    assert not LOG.verifier().verify(TEXT, LINE + "\n\n")
    assert not LOG.verifier().verify(TEXT.rstrip("\n"), LINE)
