"""The chain's Merkle tree and checkpoints in the database, on SQLite and PostgreSQL: kept
as entries are appended, proofs a verifier checks with the public key alone, a chain from
before the tree, and a rollback that the anchored checkpoint exposes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, insert, select, update

from activities.audit_anchor import AnchorActivities
from adapters.store import audit as audit_store
from adapters.store.store import Store
from adapters.store.tables import (
    AuditCheckpointRow,
    AuditEntryRow,
    AuditHeadRow,
    AuditTreeNodeRow,
)
from domain.audit.anchor import AnchorInput
from domain.audit.bundle import verify_bundle, verify_inclusion_proof
from domain.audit.chain import AuditDraft
from domain.audit.checkpoint import parse_note
from domain.audit.merkle import leaf_hash, root_of, verify_consistency
from domain.audit.tree import origin_of
from tests.support import Firm, utc_now
from usecases import audit


def _fill(store: Store, org: str, n: int) -> None:
    """Append ``n`` entries in one transaction (as a batch of decisions does)."""
    now = utc_now()
    with store.db.transaction() as s:
        writer = audit_store.ChainWriter(s, org, store.keys, audit_store.lock(s, org))
        for i in range(n):
            draft = AuditDraft(
                event_key=f"t{i}-{now.timestamp()}",
                actor="tester",
                decision="allow",
                stage="test",
                rule="r",
                payload={"i": i},
            )
            writer.append(draft, now, fresh=True)
        writer.flush(now)


def _root(store: Store, org: str, size: int | None = None) -> bytes:
    entries = store.audit.entries(org)[:size]
    return root_of(leaf_hash(bytes.fromhex(e.entry_hash)) for e in entries)


def test_the_tree_and_checkpoints_are_kept_as_entries_are_appended(
    store: Store, firm: Firm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_store, "CHECKPOINT_EVERY", 100)
    _fill(store, firm.org, 300)
    _fill(store, firm.org, 250)  # past level 8 (256) and two of its nodes
    assert store.audit.verify(firm.org).ok
    size = store.audit.head(firm.org).seq  # type: ignore[union-attr]
    notes = store.audit.checkpoints(firm.org)
    assert len(notes) >= 2
    for note in notes:
        checkpoint = parse_note(note).checkpoint()
        assert checkpoint.root == _root(store, firm.org, checkpoint.size)
        assert parse_note(note).signed_by(store.keys.signer.verifier())
    with store.db.read() as s:
        kept = s.execute(
            select(AuditTreeNodeRow.level).where(AuditTreeNodeRow.org_id == firm.org)
        ).scalars()
        assert set(kept) == {8}
    assert size > 512


def test_inclusion_and_consistency_proofs_verify_with_the_public_key_alone(
    store: Store, firm: Firm
) -> None:
    _fill(store, firm.org, 600)
    size = store.audit.head(firm.org).seq  # type: ignore[union-attr]
    keys = store.keys.log_keys()
    for seq in (1, 2, 255, 256, 257, 513, size):
        proof = store.audit.inclusion(firm.org, seq, utc_now())
        assert proof.tree_size == size and proof.entry.seq == seq
        assert verify_inclusion_proof(proof, keys) is None, seq
    first = store.audit.checkpoints(firm.org)[0]
    _fill(store, firm.org, 10)
    store.audit.checkpoint(firm.org, utc_now())
    old, new = (
        parse_note(n).checkpoint().size for n in (first, store.audit.checkpoints(firm.org)[-1])
    )
    proof = store.audit.consistency(firm.org, old, new)
    a, b = parse_note(proof.old).checkpoint(), parse_note(proof.new).checkpoint()
    assert verify_consistency(
        a.size, b.size, a.root, b.root, [bytes.fromhex(h) for h in proof.hashes]
    )


def test_an_export_verifies_offline_and_an_edit_in_the_database_shows_in_it(
    store: Store, firm: Firm
) -> None:
    _fill(store, firm.org, 40)
    bundle = store.audit.export(firm.org, utc_now())
    assert verify_bundle(bundle, store.keys.log_keys()).ok
    with store.db.transaction() as s:
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == 20)
            .values(actor="mallory")
        )
    found = verify_bundle(store.audit.export(firm.org, utc_now()), store.keys.log_keys())
    assert not found.ok and found.at == 20, found


def test_a_chain_from_before_the_tree_gets_it_without_losing_its_history(
    store: Store, firm: Firm
) -> None:
    _fill(store, firm.org, 30)
    before = store.audit.entries(firm.org)
    with store.db.transaction() as s:  # as the migration leaves an existing chain
        s.execute(delete(AuditCheckpointRow).where(AuditCheckpointRow.org_id == firm.org))
        s.execute(delete(AuditTreeNodeRow).where(AuditTreeNodeRow.org_id == firm.org))
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == firm.org)
            .values(tree=None, checkpoint_size=0)
        )
    assert store.audit.verify(firm.org).ok  # HMAC signatures written before still verify
    note = store.audit.checkpoint(firm.org, utc_now())  # the anchor's first pass does this
    assert note is not None and note.checkpoint().size == len(before)
    _fill(store, firm.org, 5)
    assert store.audit.verify(firm.org).ok
    assert store.audit.entries(firm.org)[: len(before)] == before
    assert verify_bundle(store.audit.export(firm.org, utc_now()), store.keys.log_keys()).ok


def _snapshot(store: Store, org: str) -> dict[str, Any]:
    with store.db.read() as s:
        head = s.get(AuditHeadRow, org)
        assert head is not None
        return head.model_dump()


def _roll_back(store: Store, org: str, head: dict[str, Any]) -> None:
    """What a database writer does: delete every entry, checkpoint and node newer than a
    head row copied earlier, and put that row back."""
    size = head["seq"]
    with store.db.transaction() as s:
        s.execute(
            delete(AuditEntryRow).where(AuditEntryRow.org_id == org, AuditEntryRow.seq > size)
        )
        s.execute(
            delete(AuditCheckpointRow).where(
                AuditCheckpointRow.org_id == org, AuditCheckpointRow.size > head["checkpoint_size"]
            )
        )
        s.execute(
            delete(AuditTreeNodeRow).where(
                AuditTreeNodeRow.org_id == org, AuditTreeNodeRow.idx * 256 >= size
            )
        )
        s.execute(delete(AuditHeadRow).where(AuditHeadRow.org_id == org))
        s.execute(insert(AuditHeadRow).values(**head))


def test_a_rolled_back_chain_verifies_alone_but_not_against_the_anchored_checkpoint(
    store: Store, firm: Firm, tmp_path: Path
) -> None:
    _fill(store, firm.org, 20)
    store.audit.checkpoint(firm.org, utc_now())
    earlier = _snapshot(store, firm.org)
    anchor = AnchorActivities(store.audit, store.governance, utc_now, tmp_path / "anchor.log")
    first = anchor._pass(AnchorInput())
    assert firm.org in first.anchored and not first.refused
    _fill(store, firm.org, 15)
    second = anchor._pass(AnchorInput(anchored=first.anchored))
    anchored = second.anchored[firm.org]
    assert parse_note(anchored).checkpoint().size == 35 + earlier["seq"] - 20
    assert (tmp_path / "anchor.log").read_text().count(f"{origin_of(firm.org)}\n") == 2

    _roll_back(store, firm.org, earlier)
    assert store.audit.verify(firm.org).ok  # a consistent earlier state, on its own
    result = store.audit.verify(firm.org, anchored)
    assert not result.ok and "rolled back" in (result.problem or ""), result
    # the anchor's next pass finds it too, and stops the broker
    third = anchor._pass(AnchorInput(anchored=second.anchored))
    assert "rolled back" in third.refused[firm.org]
    assert firm.org not in third.anchored
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None


def test_a_rewritten_chain_of_the_anchored_size_is_a_split_view(
    store: Store, firm: Firm, tmp_path: Path
) -> None:
    _fill(store, firm.org, 12)
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    anchored = anchor._pass(AnchorInput()).anchored[firm.org]
    size = parse_note(anchored).checkpoint().size
    with store.db.transaction() as s:  # the tree node kept for nothing: rewrite the head's tree
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == size - 3)
            .values(entry_hash="f" * 64)
        )
    result = store.audit.verify(firm.org, anchored)
    assert not result.ok
    problem = anchor._pass(AnchorInput(anchored={firm.org: anchored})).refused[firm.org]
    assert "rewritten" in problem, problem
