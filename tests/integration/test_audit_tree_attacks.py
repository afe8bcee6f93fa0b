"""The chain's tree and anchor against what a database writer (and one who also holds a
retired audit key) can do, and against damage: nothing forged is ever signed or anchored,
one organization's ruin stops neither the worker nor the others, and a lost anchor state
does not forget a refused chain. On SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, update

from activities.audit_anchor import AnchorActivities
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, AuditHeadRow
from domain.audit.anchor import AnchorInput, AnchorReading
from domain.audit.bundle import export_bytes, verify_export
from domain.audit.chain import AuditDraft, ChainHead, ChainKey, ChainKeys, link
from domain.audit.checkpoint import (
    COSIGNATURE_V1,
    SignedNote,
    Signer,
    add_signatures,
    cosign,
    parse_note,
    split_notes,
)
from domain.audit.merkle import Frontier, leaf_hash
from domain.errors import Conflict
from tests.integration.test_audit_tree import _fill, _forge_tail, _roll_back, _snapshot
from tests.support import TEST_KEYS, Firm, utc_now
from usecases import audit, organization
from worker.bootstrap import verify_chains


def _draft(i: int) -> AuditDraft:
    return AuditDraft(event_key=f"x{i}", actor="a", decision="allow", stage="test", rule="r")


def test_entries_signed_with_a_retired_key_after_the_rotation_are_never_signed_over(
    db_url: str, firm: Firm
) -> None:
    old = TEST_KEYS.current
    new = ChainKey(bytes(range(100, 132)))
    rotated_keys = ChainKeys(current=new, retired=(old,))
    rotated = Store.open(db_url, rotated_keys, migrate_schema=False)
    org = firm.org
    rotated.audit.append(org, _draft(1), utc_now())  # the first append after it seals
    assert rotated.audit.checkpoint(org, utc_now()) is not None
    leaked = ChainKeys(current=old)  # the database and the retired key, nothing else
    with rotated.db.transaction() as s:
        row = s.get(AuditHeadRow, org)
        assert row is not None and row.tree is not None
        frontier = Frontier.decode(row.seq, row.tree)
        head = ChainHead(seq=row.seq, entry_hash=row.entry_hash, signature="")
        draft = AuditDraft(
            event_key="forged", actor="mallory", decision="approved", stage="review", rule="f"
        )
        forged, new_head = link(org, head, draft, utc_now().isoformat(), leaked)
        s.execute(insert(AuditEntryRow).values(**forged.model_dump()))
        frontier.append(leaf_hash(bytes.fromhex(forged.entry_hash)))
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == org)
            .values(
                seq=new_head.seq,
                entry_hash=new_head.entry_hash,
                signature=new_head.signature,
                tree=frontier.encode(),
            )
        )
    report = AnchorActivities(rotated.audit, rotated.governance, utc_now, None)._pass(AnchorInput())
    assert org in report.refused and "retired" in report.refused[org], report
    rotated.close()


def test_a_long_forged_tail_stops_only_its_own_organization(
    store: Store, firm: Firm, services: Any
) -> None:
    other = organization.onboard(services, "Other", "zed@other.example")
    _forge_tail(store, firm.org, 1024)  # past a count checkpoint: the poisoning's own flush
    assert firm.org in verify_chains(store)  # the worker starts, this organization stopped
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None
    report = AnchorActivities(store.audit, store.governance, utc_now, None)._pass(AnchorInput())
    assert other.org.id in report.anchored and firm.org not in report.anchored


def test_an_entry_row_past_the_head_stops_only_its_own_organization(
    store: Store, firm: Firm, services: Any
) -> None:
    other = organization.onboard(services, "Other", "zed@other.example")
    rows = store.audit.entries(firm.org)
    stray = rows[-1].model_dump() | {"seq": rows[-1].seq + 1, "event_key": "stray"}
    with store.db.transaction() as s:
        s.execute(insert(AuditEntryRow).values(**stray))
    assert firm.org in verify_chains(store)
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None  # stopped all the same
    report = AnchorActivities(store.audit, store.governance, utc_now, None)._pass(AnchorInput())
    assert other.org.id in report.anchored


def test_a_missing_entry_at_the_newest_checkpoint_is_refused_and_the_others_go_on(
    store: Store, firm: Firm, services: Any
) -> None:
    other = organization.onboard(services, "Other", "zed@other.example")
    head = store.audit.head(firm.org)
    assert head is not None
    _fill(store, firm.org, 256 - head.seq)
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    first = anchor._pass(AnchorInput())
    assert parse_note(first.anchored[firm.org]).checkpoint().size == 256
    _fill(store, firm.org, 5)
    store.audit.append(other.org.id, _draft(7), utc_now())
    with store.db.transaction() as s:
        s.execute(
            delete(AuditEntryRow).where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == 256)
        )
    second = anchor._pass(AnchorInput(anchored=first.anchored))
    assert firm.org in second.refused and other.org.id in second.anchored, second


def test_a_fresh_anchor_keeps_a_refused_organization_it_read_from_its_file(
    store: Store, firm: Firm, services: Any, tmp_path: Path
) -> None:
    other = organization.onboard(services, "Other", "zed@other.example")
    anchor = AnchorActivities(store.audit, store.governance, utc_now, tmp_path / "anchor.log")
    _fill(store, firm.org, 20)
    store.audit.checkpoint(firm.org, utc_now())
    earlier = _snapshot(store, firm.org)
    state = dict(anchor._pass(AnchorInput()).anchored)
    _fill(store, firm.org, 15)
    state.update(anchor._pass(AnchorInput(anchored=state)).anchored)
    _roll_back(store, firm.org, earlier)  # a backup restored, and the anchor's state lost
    fresh: dict[str, str] = {}
    first = anchor._pass(AnchorInput(anchored=fresh))
    assert firm.org in first.refused and other.org.id in first.anchored
    fresh.update(first.anchored)  # what the workflow keeps
    second = anchor._pass(AnchorInput(anchored=fresh))
    assert firm.org in second.refused and firm.org not in second.anchored, second
    try:
        audit.unpoison(
            firm.svc, firm.org, firm.founder, "looks fine", AnchorReading(note=fresh[firm.org])
        )
    except Conflict:
        pass
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None  # not laundered


def test_the_anchor_file_serves_as_kept_checkpoints_for_any_one_organization(
    store: Store, firm: Firm, services: Any, tmp_path: Path
) -> None:
    organization.onboard(services, "Other", "zed@other.example")
    file = tmp_path / "anchor.log"
    AnchorActivities(store.audit, store.governance, utc_now, file)._pass(AnchorInput())
    data = export_bytes(store.audit.export(firm.org, utc_now()))
    kept = split_notes(file.read_text())
    assert len(kept) == 2
    assert verify_export(data, store.keys.log_keys(), kept).ok


def test_a_consistency_proof_starts_from_a_checkpoint_thinned_from_the_table(
    store: Store, firm: Firm
) -> None:
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None)
    state = dict(anchor._pass(AnchorInput()).anchored)
    _fill(store, firm.org, 3)
    state.update(anchor._pass(AnchorInput(anchored=state)).anchored)
    held = parse_note(state[firm.org]).checkpoint()  # anchored, handed out, then thinned
    _fill(store, firm.org, 3)
    newest = parse_note(anchor._pass(AnchorInput(anchored=state)).anchored[firm.org])
    proof = store.audit.consistency(firm.org, held.size, newest.checkpoint().size)
    assert proof.old is None  # thinned: the one asking holds it
    from domain.audit.merkle import verify_consistency

    hashes = [bytes.fromhex(h) for h in proof.hashes]
    new = newest.checkpoint()
    assert verify_consistency(held.size, new.size, held.root, new.root, hashes)


class _BusyWitness:
    """A witness during whose answer the organization appends past a count checkpoint."""

    def __init__(self, store: Store, org: str) -> None:
        self._signer = Signer.generate("w")
        self.key = self._signer.verifier(kind=COSIGNATURE_V1)
        self._store, self._org, self.calls = store, org, 0

    def cosign(self, note: SignedNote, old: int, proof_from: Any) -> SignedNote:
        self.calls += 1
        if self.calls == 2:
            _fill(self._store, self._org, 1030)
        return add_signatures(note, [cosign(note.checkpoint(), self._signer, 1).rstrip("\n")])


def test_a_checkpoint_thinned_while_the_witness_answers_stops_nothing(
    store: Store, firm: Firm
) -> None:
    anchor = AnchorActivities(
        store.audit, store.governance, utc_now, None, _BusyWitness(store, firm.org)
    )
    state = dict(anchor._pass(AnchorInput()).anchored)
    _fill(store, firm.org, 5)
    second = anchor._pass(AnchorInput(anchored=state))
    assert firm.org in second.anchored and not second.refused, second
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is None


def test_a_torn_write_in_the_anchor_file_loses_only_that_note(
    store: Store, firm: Firm, tmp_path: Path
) -> None:
    file = tmp_path / "anchor.log"
    anchor = AnchorActivities(store.audit, store.governance, utc_now, file)
    state = dict(anchor._pass(AnchorInput()).anchored)
    text = file.read_text()
    file.write_text(text[: len(text) - 20])  # a crash mid-write: a torn signature line
    for _ in range(3):
        _fill(store, firm.org, 2)
        state.update(anchor._pass(AnchorInput(anchored=state)).anchored)
    assert anchor._from_file()[firm.org] == state[firm.org]


def test_a_rebuilt_tree_is_checkpointed_at_once(store: Store, firm: Firm) -> None:
    head = store.audit.head(firm.org)
    assert head is not None
    _fill(store, firm.org, 300 - head.seq)
    store.audit.checkpoint(firm.org, utc_now())  # its tree has a kept level-8 node
    _fill(store, firm.org, 3)
    with store.db.transaction() as s:
        s.execute(update(AuditHeadRow).where(AuditHeadRow.org_id == firm.org).values(tree="ab"))
    assert store.audit.checkpoint(firm.org, utc_now()) is not None
    assert store.audit.verify(firm.org).ok
