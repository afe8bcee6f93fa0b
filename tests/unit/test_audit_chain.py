"""The tamper-evident audit chain: any edit, deletion or reordering is detected, and so
is a rewrite that recomputes every hash, unless it is signed with the audit key."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.audit.chain import (
    GENESIS_HASH,
    AuditDraft,
    AuditEntry,
    ChainHead,
    ChainKey,
    ChainKeys,
    entry_hash,
    genesis,
    link,
    verify_chain,
)
from domain.canonical import canonical_json

ORG = "org-hv"
KEYS = ChainKeys(current=ChainKey(b"k" * 16 + bytes(range(16))))
MALLORY = ChainKeys(current=ChainKey(b"m" * 16 + bytes(range(16))))
T0 = datetime(2025, 6, 2, 9, 30, tzinfo=UTC)

PROP = settings(max_examples=200, deadline=None)


def stamp(i: int) -> str:
    return (T0 + timedelta(seconds=i, microseconds=17)).isoformat(timespec="microseconds")


def draft(i: int, payload: dict[str, Any] | None = None) -> AuditDraft:
    return AuditDraft(
        event_key=f"decide:i-{i}",
        actor="p-ledger" if i % 2 else "p-ada",
        intent_id=f"i-{i}" if i % 3 else None,
        decision=("allow", "reject", "hold")[i % 3],
        stage="commitments",
        rule="all_stages_passed",
        payload=payload if payload is not None else {"i": i, "amount": {"cents": 100 * i}},
    )


def build(n: int, org: str = ORG) -> tuple[list[AuditEntry], ChainHead]:
    """A chain of ``n`` entries and its head, appended as the store does."""
    head = genesis(org, KEYS)
    entries: list[AuditEntry] = []
    for i in range(n):
        entry, head = link(org, head, draft(i), stamp(i), KEYS)
        entries.append(entry)
    return entries, head


def verify(entries: list[AuditEntry], head: ChainHead | None, org: str = ORG) -> Any:
    return verify_chain(org, entries, head, KEYS)


# --- intact chains -----------------------------------------------------------------------


def test_link_numbers_and_chains_entries() -> None:
    entries, head = build(3)
    assert [e.seq for e in entries] == [1, 2, 3]
    assert entries[0].prev_hash == GENESIS_HASH
    assert entries[1].prev_hash == entries[0].entry_hash
    assert entries[2].prev_hash == entries[1].entry_hash
    assert (head.seq, head.entry_hash) == (3, entries[2].entry_hash)
    assert KEYS.head_signed(ORG, 3, head.entry_hash, head.signature)
    assert len({e.entry_hash for e in entries}) == 3


def test_entry_hash_covers_the_body_after_the_previous_hash() -> None:
    entries, _ = build(2)
    second = entries[1]
    assert second.entry_hash == entry_hash(entries[0].entry_hash, second.body())
    assert "entry_hash" not in second.body()
    assert "signature" not in second.body()
    assert second.body()["prev_hash"] == entries[0].entry_hash


@PROP
@given(n=st.integers(0, 30))
def test_an_intact_chain_verifies(n: int) -> None:
    entries, head = build(n)
    result = verify(entries, head)
    assert result.ok, result
    assert result.entries == n
    assert result.head_hash == head.entry_hash
    assert result.broken_at is None and result.problem is None


def test_an_empty_chain_verifies_against_its_signed_genesis_head() -> None:
    result = verify([], genesis(ORG, KEYS))
    assert result.ok
    assert result.head_hash == GENESIS_HASH
    assert not verify([], ChainHead(seq=0)).ok  # an unsigned head is not to be trusted
    assert not verify([], None).ok


def test_a_chain_without_its_head_does_not_verify() -> None:
    entries, _ = build(2)
    assert not verify(entries, None).ok


def test_the_same_drafts_in_another_org_hash_differently() -> None:
    ours, _ = build(2)
    theirs, _ = build(2, org="org-other")
    assert ours[0].entry_hash != theirs[0].entry_hash
    _, head = build(2)
    assert not verify(theirs[:1] + ours[1:], head).ok


# --- tampering ---------------------------------------------------------------------------

FIELDS = [
    "payload",
    "rule",
    "decision",
    "actor",
    "at",
    "seq",
    "stage",
    "event_key",
    "intent_id",
    "org_id",
    "prev_hash",
    "entry_hash",
    "signature",
]


def tampered_value(entry: AuditEntry, field: str, variant: int) -> Any:
    """A value for ``field`` that differs from the entry's."""
    value = getattr(entry, field)
    if field == "seq":
        return value + (variant % 3) + 1 if variant % 2 else max(value - 1, 0) or value + 7
    if field == "payload":
        return (
            {**value, "tampered": True},
            {k: v for k, v in value.items() if k != "i"},
            {**value, "i": value["i"] + 1},
            {**value, "amount": {"cents": value["amount"]["cents"] + 1}},
            {**value, "i": str(value["i"])},
        )[variant % 5]
    if field == "at":
        return (
            stamp(10_000 + variant),
            value.replace(".000017", ".000018"),
            value.replace("+00:00", "Z"),
        )[variant % 3]
    if field == "intent_id":
        return "i-forged" if value is None else (None, value + "x")[variant % 2]
    if field in ("prev_hash", "entry_hash", "signature"):
        return ("f" if value[0] != "f" else "e") + value[1:]
    return (value + "x", value.upper() if value != value.upper() else value + "!", "")[variant % 3]


@PROP
@given(
    data=st.data(), n=st.integers(1, 30), field=st.sampled_from(FIELDS), variant=st.integers(0, 30)
)
def test_changing_any_field_of_any_entry_is_detected(
    data: st.DataObject, n: int, field: str, variant: int
) -> None:
    entries, head = build(n)
    i = data.draw(st.integers(0, n - 1))
    new = tampered_value(entries[i], field, variant)
    assert new != getattr(entries[i], field)
    entries[i] = entries[i].model_copy(update={field: new})

    result = verify(entries, head)
    assert not result.ok
    assert result.broken_at == i + 1, result


@PROP
@given(data=st.data(), n=st.integers(1, 30))
def test_deleting_any_entry_is_detected(data: st.DataObject, n: int) -> None:
    entries, head = build(n)
    i = data.draw(st.integers(0, n - 1))
    del entries[i]

    result = verify(entries, head)
    assert not result.ok
    assert result.broken_at == i + 1, result


def test_deleting_the_newest_entry_is_caught_by_the_head() -> None:
    entries, head = build(5)
    result = verify(entries[:-1], head)
    assert not result.ok
    assert result.broken_at == 5
    assert "head" in (result.problem or "")


@PROP
@given(n=st.integers(1, 30), keep=st.integers(0, 29))
def test_truncating_the_chain_is_detected(n: int, keep: int) -> None:
    entries, head = build(n)
    keep = keep % n
    assert not verify(entries[:keep], head).ok


@PROP
@given(data=st.data(), n=st.integers(2, 30))
def test_swapping_any_two_entries_is_detected(data: st.DataObject, n: int) -> None:
    entries, head = build(n)
    i, j = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
    entries[i], entries[j] = entries[j], entries[i]

    result = verify(entries, head)
    assert not result.ok
    assert result.broken_at == i + 1, result


@PROP
@given(data=st.data(), n=st.integers(2, 30))
def test_renumbered_reordering_is_detected(data: st.DataObject, n: int) -> None:
    """Swapping two entries and fixing their sequence numbers still breaks the links."""
    entries, head = build(n)
    i, j = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
    a, b = entries[i], entries[j]
    entries[i] = b.model_copy(update={"seq": a.seq})
    entries[j] = a.model_copy(update={"seq": b.seq})
    assert not verify(entries, head).ok


def rewrite_from(
    entries: list[AuditEntry], i: int, keys: ChainKeys | None
) -> tuple[list[AuditEntry], ChainHead]:
    """What an attacker with write access can do: edit entry ``i``, recompute its hash and
    every later hash and link with the published formula, and update the head. With
    ``keys`` they also re-sign (only the real key makes that verify)."""
    out = entries[:i]
    prev = entries[i - 1].entry_hash if i else GENESIS_HASH
    for j, entry in enumerate(entries[i:], start=i):
        changed = entry.model_copy(
            update={"prev_hash": prev, **({"payload": {"forged": True}} if j == i else {})}
        )
        hashed = entry_hash(prev, changed.body())
        signature = keys.sign_entry(hashed) if keys else entry.signature
        out.append(changed.model_copy(update={"entry_hash": hashed, "signature": signature}))
        prev = hashed
    seq = len(out)
    head_sig = keys.sign_head(ORG, seq, prev) if keys else ""
    return out, ChainHead(seq=seq, entry_hash=prev, signature=head_sig)


@PROP
@given(data=st.data(), n=st.integers(1, 20), resign=st.sampled_from([None, MALLORY]))
def test_recomputing_every_later_hash_is_detected_at_the_edited_entry(
    data: st.DataObject, n: int, resign: ChainKeys | None
) -> None:
    entries, _ = build(n)
    i = data.draw(st.integers(0, n - 1))
    forged, head = rewrite_from(entries, i, resign)
    result = verify(forged, head)
    assert not result.ok
    assert result.broken_at == i + 1, result
    assert "signature" in (result.problem or "")


def test_the_real_key_is_what_makes_a_chain_verify() -> None:
    """The control: the same rewrite signed with the real key verifies, so the key, not
    the hash formula, is what an attacker lacks."""
    entries, _ = build(5)
    forged, head = rewrite_from(entries, 2, KEYS)
    assert verify(forged, head).ok


def test_a_forged_head_for_an_intact_chain_is_detected() -> None:
    entries, head = build(3)
    assert not verify(entries, ChainHead(seq=3, entry_hash=GENESIS_HASH)).ok
    assert not verify(entries, ChainHead(seq=4, entry_hash=head.entry_hash)).ok
    assert not verify(entries, head.model_copy(update={"signature": ""})).ok
    assert not verify(
        entries, head.model_copy(update={"signature": MALLORY.sign_head(ORG, 3, head.entry_hash)})
    ).ok
    assert not verify([], head).ok


def test_a_retired_key_still_verifies_what_it_signed() -> None:
    entries, head = build(3)
    rotated = ChainKeys(current=MALLORY.current, retired=(KEYS.current,))
    assert verify_chain(ORG, entries, head, rotated).ok
    assert not verify_chain(ORG, entries, head, MALLORY).ok


@pytest.mark.parametrize("secret", [b"", b"short", b"x" * 31])
def test_a_short_key_is_refused(secret: bytes) -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        ChainKey(secret)


def test_a_key_never_shows_in_its_repr() -> None:
    assert "kkkk" not in repr(KEYS) and "kkkk" not in str(KEYS.current)


# --- canonical JSON: key order does not matter -------------------------------------------


def test_payload_key_order_does_not_change_the_hash() -> None:
    one = {
        "amount": {"cents": 5, "currency": "USD"},
        "invoice": "inv-7",
        "z": [1, {"b": 2, "a": 1}],
    }
    two = {
        "z": [1, {"a": 1, "b": 2}],
        "invoice": "inv-7",
        "amount": {"currency": "USD", "cents": 5},
    }
    assert list(one) != list(two)
    head = genesis(ORG, KEYS)
    first, _ = link(ORG, head, draft(1, one), stamp(1), KEYS)
    second, _ = link(ORG, head, draft(1, two), stamp(1), KEYS)
    assert first.entry_hash == second.entry_hash


json_leaves = st.none() | st.booleans() | st.integers(-(10**15), 10**15) | st.text(max_size=8)
json_trees = st.recursive(
    json_leaves,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def reversed_order(value: Any) -> Any:
    """The same JSON value with every object's keys inserted in reverse order."""
    if isinstance(value, dict):
        return {k: reversed_order(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_order(v) for v in value]
    return value


@settings(max_examples=100, deadline=None)
@given(payload=st.dictionaries(st.text(max_size=6), json_trees, max_size=6))
def test_hash_is_independent_of_key_insertion_order(payload: dict[str, Any]) -> None:
    flipped = reversed_order(payload)
    assert flipped == payload
    assert canonical_json(flipped) == canonical_json(payload)
    head = genesis(ORG, KEYS)
    assert (
        link(ORG, head, draft(0, payload), stamp(0), KEYS)[0].entry_hash
        == link(ORG, head, draft(0, flipped), stamp(0), KEYS)[0].entry_hash
    )


@settings(max_examples=100, deadline=None)
@given(payload=st.dictionaries(st.text(max_size=6), json_trees, min_size=1, max_size=6))
def test_a_reordered_payload_still_verifies(payload: dict[str, Any]) -> None:
    """Storage may hand back objects in any key order; verification must not care."""
    entry, head = link(ORG, genesis(ORG, KEYS), draft(0, payload), stamp(0), KEYS)
    reordered = entry.model_copy(update={"payload": reversed_order(entry.payload)})
    assert verify([reordered], head).ok


def test_a_leaked_retired_key_cannot_extend_a_chain_a_newer_key_has_sealed() -> None:
    """After rotation the chain moves forward through the keys: an entry (or head) signed
    by the retired key after one signed by its successor is refused."""
    old, new = KEYS.current, MALLORY.current
    rotated = ChainKeys(current=new, retired=(old,))
    entries, head = build(2)  # signed by the old key
    entry, head = link(ORG, head, draft(2), stamp(2), rotated)  # the first under the new key
    entries.append(entry)
    assert verify_chain(ORG, entries, head, rotated).ok
    # someone holding the leaked old key appends after the new key's entry
    forged, forged_head = link(ORG, head, draft(3), stamp(3), KEYS)
    result = verify_chain(ORG, [*entries, forged], forged_head, rotated)
    assert not result.ok and result.broken_at == 4
    assert "retired" in (result.problem or "")
    # nor may they re-sign the head with it
    old_head = head.model_copy(update={"signature": KEYS.sign_head(ORG, 3, head.entry_hash)})
    assert not verify_chain(ORG, entries, old_head, rotated).ok
