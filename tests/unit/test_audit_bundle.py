"""The offline verifier against a tamper matrix: an export and the public keys are all it
has (no database, no audit key), and any earlier checkpoint the auditor kept."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.audit.bundle import (
    Bundle,
    InclusionProof,
    export_bytes,
    verify_bundle,
    verify_export,
    verify_inclusion_proof,
)
from domain.audit.chain import (
    AuditDraft,
    AuditEntry,
    ChainHead,
    ChainKey,
    ChainKeys,
    entry_body,
    entry_hash,
    genesis,
    link,
)
from domain.audit.checkpoint import Checkpoint, sign_checkpoint, split_notes
from domain.audit.merkle import Frontier, inclusion_proof, leaf_hash, root_of
from domain.audit.tree import LogKeys, origin_of

ORG = "org-1"
OLD = ChainKeys(current=ChainKey(b"o" * 32))
NEW = ChainKeys(current=ChainKey(b"n" * 32), retired=(ChainKey(b"o" * 32),))
MALLORY = ChainKeys(current=ChainKey(b"m" * 32))


def _draft(i: int) -> AuditDraft:
    return AuditDraft(
        event_key=f"e{i}",
        actor="agent-ledger",
        decision="allow",
        stage="audit",
        rule="all_stages_passed",
        payload={"i": i, "amount_cents": 1000 * i, "payee": "Northwind"},
    )


def _entries(n: int, keys: ChainKeys = OLD) -> list[AuditEntry]:
    head: ChainHead = genesis(ORG, keys)
    out = []
    for i in range(n):
        entry, head = link(ORG, head, _draft(i), f"2026-12-07T10:00:{i % 60:02d}.000000", keys)
        out.append(entry)
    return out


def _note(entries: list[AuditEntry], size: int, keys: ChainKeys) -> str:
    root = root_of(leaf_hash(bytes.fromhex(e.entry_hash)) for e in entries[:size])
    return sign_checkpoint(Checkpoint(origin_of(ORG), size, root), keys.signer).render()


def _bundle(n: int, every: int, keys: ChainKeys = OLD) -> Bundle:
    entries = _entries(n, keys)
    sizes = sorted({*range(every, n + 1, every), n})
    return Bundle(
        origin=origin_of(ORG),
        entries=entries,
        checkpoints=[_note(entries, s, keys) for s in sizes],
    )


def _relinked(entries: list[AuditEntry], start: int) -> list[AuditEntry]:
    """Every hash and link from ``start`` on recomputed with the published formula (the
    HMAC signature cannot be, and an offline verifier does not need it)."""
    out = list(entries[:start])
    prev = out[-1].entry_hash if out else "0" * 64
    for e in entries[start:]:
        fields: dict[str, Any] = {**e.model_dump(), "prev_hash": prev, "seq": len(out) + 1}
        body = entry_body(AuditEntry(**fields))
        fields["entry_hash"] = entry_hash(prev, body)
        out.append(AuditEntry(**fields))
        prev = fields["entry_hash"]
    return out


KEYS = NEW.log_keys()


def test_an_untouched_export_verifies_with_the_public_keys_alone() -> None:
    bundle = _bundle(40, 8)
    found = verify_bundle(bundle, OLD.log_keys())
    assert found.ok and found.entries == 40 and found.covered == 40, found
    assert verify_bundle(bundle, MALLORY.log_keys()).ok is False  # another log's key


TAMPERS = ["edit", "delete", "insert", "reorder", "recompute", "truncate"]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(TAMPERS),
    st.integers(min_value=3, max_value=60),
    st.integers(min_value=1, max_value=9),
    st.data(),
)
def test_every_tamper_is_found_offline_given_an_earlier_checkpoint(
    tamper: str, n: int, every: int, data: st.DataObject
) -> None:
    bundle = _bundle(n, every)
    entries = list(bundle.entries)
    pos = data.draw(st.integers(min_value=0, max_value=n - 2), label="position")
    if tamper == "edit":
        changed = {**entries[pos].payload, "amount_cents": 999_999}
        entries[pos] = entries[pos].model_copy(update={"payload": changed})
    elif tamper == "delete":
        del entries[pos]
    elif tamper == "insert":
        entries.insert(pos, entries[pos].model_copy(update={"event_key": "forged"}))
    elif tamper == "reorder":
        entries[pos], entries[pos + 1] = entries[pos + 1], entries[pos]
    elif tamper == "recompute":
        changed = {**entries[pos].payload, "payee": "Mallory Ltd"}
        entries[pos] = entries[pos].model_copy(update={"payload": changed})
        entries = _relinked(entries, pos)
    else:
        entries = entries[: pos + 1]
    if tamper in ("delete", "insert", "reorder"):
        entries = _relinked(entries, pos) if data.draw(st.booleans(), label="relink") else entries
    # The forger may also drop the checkpoints its change breaks (it cannot sign new ones).
    kept = bundle.checkpoints
    if data.draw(st.booleans(), label="drop checkpoints"):
        kept = [c for c in kept if int(c.split("\n")[1]) <= pos]
    forged = bundle.model_copy(update={"entries": entries, "checkpoints": kept})
    # The auditor kept an earlier checkpoint of the honest chain (the anchor's, a
    # witness's, an earlier export's) that covers the changed (or the first removed) entry.
    low = pos + 2 if tamper == "truncate" else pos + 1
    held = data.draw(st.integers(min_value=low, max_value=n), label="held checkpoint size")
    found = verify_bundle(forged, OLD.log_keys(), trusted=[_note(bundle.entries, held, OLD)])
    assert not found.ok, (tamper, found)
    assert found.problem


def test_a_truncation_to_a_checkpoint_boundary_is_a_consistent_earlier_state_unless_held() -> None:
    bundle = _bundle(32, 8)
    earlier = bundle.model_copy(
        update={"entries": bundle.entries[:16], "checkpoints": bundle.checkpoints[:2]}
    )
    assert verify_bundle(earlier, OLD.log_keys()).ok  # an honest export of 16 looks like this
    found = verify_bundle(earlier, OLD.log_keys(), trusted=[bundle.checkpoints[-1]])
    assert not found.ok
    assert "removed or the chain was rolled back" in (found.problem or "")


def test_a_split_view_two_trees_of_one_size_is_found() -> None:
    honest = _bundle(20, 5)
    other = _relinked(
        [
            *honest.entries[:9],
            honest.entries[9].model_copy(update={"payload": {"i": 9, "payee": "Mallory"}}),
            *honest.entries[10:],
        ],
        9,
    )
    # The key holder signs a second tree of the same size (a split view): shown to one
    # auditor, it verifies alone; beside a checkpoint of the other, it does not.
    second = Bundle(origin=origin_of(ORG), entries=other, checkpoints=[_note(other, 20, OLD)])
    assert verify_bundle(second, OLD.log_keys()).ok
    found = verify_bundle(second, OLD.log_keys(), trusted=[honest.checkpoints[-1]])
    assert not found.ok and "split view" in (found.problem or ""), found


def test_a_checkpoint_signed_by_a_retired_key_after_the_rotation_is_refused() -> None:
    entries = _entries(30)
    notes = [_note(entries, 10, OLD), _note(entries, 20, NEW), _note(entries, 30, OLD)]
    bundle = Bundle(origin=origin_of(ORG), entries=entries, checkpoints=notes)
    found = verify_bundle(bundle, KEYS)
    assert not found.ok and "retired" in (found.problem or ""), found
    rotated = bundle.model_copy(update={"checkpoints": [*notes[:2], _note(entries, 30, NEW)]})
    assert verify_bundle(rotated, KEYS).ok
    assert not verify_bundle(rotated, LogKeys(KEYS.verifiers[1:])).ok  # the old key not given


def test_a_checkpoint_forged_with_another_key_is_refused() -> None:
    bundle = _bundle(10, 10)
    entries = _relinked(
        [bundle.entries[0].model_copy(update={"actor": "mallory"}), *bundle.entries[1:]], 0
    )
    forged = Bundle(
        origin=origin_of(ORG), entries=entries, checkpoints=[_note(entries, 10, MALLORY)]
    )
    found = verify_bundle(forged, OLD.log_keys())
    assert not found.ok and "not signed by a given key" in (found.problem or "")


def _proof(entries: list[AuditEntry], seq: int, size: int, keys: ChainKeys) -> InclusionProof:
    leaves = [leaf_hash(bytes.fromhex(e.entry_hash)) for e in entries[:size]]

    def subtree(level: int, index: int) -> bytes:
        return root_of(leaves[index << level : (index + 1) << level])

    return InclusionProof(
        entry=entries[seq - 1],
        tree_size=size,
        hashes=[h.hex() for h in inclusion_proof(seq - 1, size, subtree)],
        checkpoint=_note(entries, size, keys),
    )


@pytest.mark.parametrize("size", [1, 2, 7, 64, 100])
def test_the_proof_of_one_decision_is_checked_alone(size: int) -> None:
    entries = _entries(size)
    frontier = Frontier()
    for e in entries:
        frontier.append(leaf_hash(bytes.fromhex(e.entry_hash)))
    for seq in {1, size, (size + 1) // 2}:
        proof = _proof(entries, seq, size, OLD)
        assert verify_inclusion_proof(proof, OLD.log_keys()) is None
        edited = proof.model_copy(
            update={"entry": proof.entry.model_copy(update={"decision": "approved"})}
        )
        assert verify_inclusion_proof(edited, OLD.log_keys()) is not None
        other = proof.model_copy(update={"entry": entries[seq % size]}) if size > 1 else None
        assert other is None or verify_inclusion_proof(other, OLD.log_keys()) is not None
        assert verify_inclusion_proof(proof, MALLORY.log_keys()) is not None
        if proof.hashes:
            bent = proof.model_copy(update={"hashes": [proof.hashes[0][::-1], *proof.hashes[1:]]})
            assert verify_inclusion_proof(bent, OLD.log_keys()) is not None


@pytest.mark.parametrize(
    ("mangle", "said"),
    [
        (lambda d: d.replace(b"\n", b"\r\n"), "line endings"),
        (lambda d: b"[" * 100_000 + b"\n" + d, "header"),
        (lambda d: d.split(b"\n", 1)[0] + b"\n" + b"[" * 100_000 + b"\n", "not an entry"),
        (lambda d: d.split(b"\n", 1)[0] + b"\n", "no entries"),
        (lambda d: b"", "empty"),
        (lambda d: d.replace(b'"entries":20', b'"entries":19', 1), "header says 19"),
        (lambda d: d + d.split(b"\n")[3] + b"\n", "repeated"),
        (lambda d: d.replace(b"\n", b"\n\n", 2), "not an entry"),
    ],
)
def test_a_mangled_export_file_is_refused_in_words_never_with_a_crash(
    mangle: Any, said: str
) -> None:
    data = export_bytes(_bundle(20, 5))
    found = verify_export(mangle(data), OLD.log_keys())
    assert not found.ok and said in (found.problem or ""), found


def test_notes_torn_in_a_file_do_not_hide_the_ones_after() -> None:
    notes = [_note(_entries(6), n, OLD) for n in (2, 4, 6)]
    text = notes[0] + "\n" + notes[1][:-15] + "\n" + notes[2] + "\n"
    found = split_notes(text)
    assert notes[0] in found and notes[2] in found  # the torn one, if read, fails to parse


def test_an_entry_no_canonical_json_can_write_is_found_not_a_crash() -> None:
    bundle = _bundle(10, 5)
    entries = list(bundle.entries)
    entries[3] = entries[3].model_copy(update={"payload": {"amount_cents": 2**60}})
    found = verify_bundle(bundle.model_copy(update={"entries": entries}), OLD.log_keys())
    assert not found.ok and found.at == 4, found
    proof = _proof(entries, 4, 10, OLD)
    assert "canonically" in (verify_inclusion_proof(proof, OLD.log_keys()) or "")


def test_a_proof_is_held_to_the_checkpoints_its_checker_kept() -> None:
    entries = _entries(30)
    newer = _note(entries, 20, NEW)  # the auditor kept one signed by the newer key
    proof = _proof(entries, 5, 30, OLD)  # a proof under a checkpoint by the retired key
    assert verify_inclusion_proof(proof, KEYS) is None  # alone, the old key still verifies
    problem = verify_inclusion_proof(proof, KEYS, [newer])
    assert problem is not None and "retired" in problem
    other = _relinked([entries[0].model_copy(update={"actor": "x"}), *entries[1:]], 0)
    split = _note(other, 30, OLD)  # a second tree of 30, kept by the checker
    assert "split view" in (verify_inclusion_proof(proof, KEYS, [split]) or "")
