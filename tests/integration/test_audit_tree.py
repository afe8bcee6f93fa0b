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
from domain.audit.chain import AuditDraft, AuditEntry, entry_hash
from domain.audit.checkpoint import parse_note
from domain.audit.merkle import Frontier, leaf_hash, root_of, verify_consistency
from domain.audit.ports import AuditError
from domain.audit.tree import origin_of
from tests.support import Firm, utc_now
from usecases import audit, organization
from worker.bootstrap import verify_chains


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
    a, b = parse_note(first).checkpoint(), parse_note(proof.new).checkpoint()
    assert proof.old == first or proof.old is None  # thinned: the one asking holds it
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


def _forge_tail(store: Store, org: str, n: int) -> None:
    """What a database writer without the audit key does: append entries with the
    published formula (a signature it cannot make), and move the head and tree along."""
    rows = store.audit.entries(org)
    head = store.audit.head(org)
    assert head is not None
    with store.db.read() as s:
        stored = s.get(AuditHeadRow, org)
        assert stored is not None and stored.tree is not None
        frontier = Frontier.decode(stored.seq, stored.tree)
    prev, seq = rows[-1].entry_hash, rows[-1].seq
    with store.db.transaction() as s:
        for i in range(n):
            fields: dict[str, Any] = {
                "org_id": org,
                "seq": seq + 1 + i,
                "at": rows[-1].at,
                "event_key": f"forged-{i}",
                "actor": "mallory",
                "intent_id": None,
                "decision": "approved",
                "stage": "review",
                "rule": "forged",
                "payload": {"amount_cents": 9_999_999},
                "prev_hash": prev,
            }
            fields["entry_hash"] = entry_hash(prev, AuditEntry(**fields, entry_hash="").body())
            s.execute(insert(AuditEntryRow).values(**fields, signature="00000000:" + "0" * 64))
            frontier.append(leaf_hash(bytes.fromhex(fields["entry_hash"])))
            prev = fields["entry_hash"]
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == org)
            .values(seq=seq + n, entry_hash=prev, tree=frontier.encode())
        )


def test_entries_forged_after_the_newest_checkpoint_are_never_signed(
    store: Store, firm: Firm, tmp_path: Path
) -> None:
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    anchored = anchor._pass(AnchorInput()).anchored[firm.org]
    _forge_tail(store, firm.org, 3)
    with pytest.raises(AuditError, match="cannot be signed"):
        store.audit.checkpoint(firm.org, utc_now())
    with pytest.raises(AuditError):
        store.audit.export(firm.org, utc_now())
    second = anchor._pass(AnchorInput(anchored={firm.org: anchored}))
    assert firm.org in second.refused and firm.org not in second.anchored
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None
    assert parse_note(store.audit.newest_checkpoint(firm.org) or "").checkpoint().size == (
        parse_note(anchored).checkpoint().size
    )


def test_a_head_claiming_a_later_checkpoint_does_not_stop_checkpoints(
    store: Store, firm: Firm
) -> None:
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    anchored = anchor._pass(AnchorInput()).anchored[firm.org]
    with store.db.transaction() as s:
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == firm.org)
            .values(checkpoint_size=10**9)
        )
    _fill(store, firm.org, 5)
    result = store.audit.verify(firm.org)
    assert not result.ok and "checkpoint" in (result.problem or ""), result  # named
    later = anchor._pass(AnchorInput(anchored={firm.org: anchored})).anchored[firm.org]
    assert parse_note(later).checkpoint().size == parse_note(anchored).checkpoint().size + 5
    assert store.audit.verify(firm.org).ok  # the next checkpoint puts the column right


def test_an_anchored_organization_deleted_from_the_database_is_found(
    store: Store, firm: Firm
) -> None:
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    anchored = anchor._pass(AnchorInput()).anchored
    with store.db.transaction() as s:
        for table in (AuditEntryRow, AuditCheckpointRow, AuditTreeNodeRow, AuditHeadRow):
            s.execute(delete(table).where(table.org_id == firm.org))  # type: ignore[attr-defined]
    refused = anchor._pass(AnchorInput(anchored=anchored)).refused
    assert firm.org in refused, refused


def test_one_broken_tree_stops_neither_the_others_nor_the_worker(
    store: Store, firm: Firm, services: Any
) -> None:
    other = organization.onboard(services, "Other", "zed@other.example")
    with store.db.transaction() as s:
        s.execute(update(AuditHeadRow).where(AuditHeadRow.org_id == firm.org).values(tree="ab"))
        s.execute(
            delete(AuditEntryRow).where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == 3)
        )
    poisoned = verify_chains(store)
    assert firm.org in poisoned and other.org.id not in poisoned
    report = AnchorActivities(store.audit, store.governance, utc_now, None)._pass(AnchorInput())
    assert other.org.id in report.anchored
    assert firm.org not in report.anchored


async def test_an_anchor_out_of_reach_is_said_not_passed_over(store: Store, firm: Firm) -> None:
    reading = await audit.anchored(firm.svc, firm.org, firm.founder)  # no Temporal here
    assert reading.reached is False and reading.note is None
    view = audit.audit(firm.svc, firm.org, firm.founder, verify=True, anchored=reading)
    assert view.verification is not None and view.verification.ok
    assert view.anchor_reached is False and view.keys == store.audit.log_keys()
