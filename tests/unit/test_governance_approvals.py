"""Approval proofs: a decision the API signed verifies; any change to it, or to its
proof, does not; retired keys still verify after a rotation."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from domain.governance.approvals import (
    CLOCK_SKEW,
    MAX_PROOF_AGE,
    ApprovalKey,
    ApprovalKeys,
    ApprovalProof,
    Decided,
    HeldDecision,
    refusal,
    sign,
)

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)
KEY_A = ApprovalKey(bytes(range(32)))
KEY_B = ApprovalKey(bytes(range(1, 33)))
KEYS = ApprovalKeys(current=KEY_A)
DECIDED = Decided(
    run_id="run-1",
    intent_id="i-1",
    intent_digest="a" * 64,
    approver_id="p-ada",
    verdict="approve",
    reason="checked",
    hold=HeldDecision(audit_seq=7, entry_hash="b" * 64, rule="money_over_threshold"),
)
FIELDS = [f.name for f in dataclasses.fields(Decided) if f.name != "hold"]
HOLDS = [
    None,
    DECIDED.hold.model_copy(update={"audit_seq": 8}),  # type: ignore[union-attr]
    DECIDED.hold.model_copy(update={"entry_hash": "c" * 64}),  # type: ignore[union-attr]
    DECIDED.hold.model_copy(update={"rule": "spend_cap"}),  # type: ignore[union-attr]
    DECIDED.hold.model_copy(update={"evidence": ("i-0",)}),  # type: ignore[union-attr]
]


def rule(keys: ApprovalKeys, decided: Decided, proof: ApprovalProof | None, now: datetime) -> str:
    found = refusal(keys, decided, proof, now)
    return "ok" if found is None else found[0]


def test_a_signed_decision_verifies() -> None:
    proof = sign(KEYS, DECIDED, NOW)
    assert proof.key_id == KEY_A.key_id and len(proof.signature) == 64
    assert refusal(KEYS, DECIDED, proof, NOW) is None
    # a proof survives the trip through the signal's JSON
    again = ApprovalProof.model_validate_json(proof.model_dump_json())
    assert refusal(KEYS, DECIDED, again, NOW + timedelta(hours=1)) is None


def test_no_proof_is_missing() -> None:
    assert rule(KEYS, DECIDED, None, NOW) == "missing_proof"


@pytest.mark.parametrize("name", FIELDS)
def test_a_proof_covers_every_field(name: str) -> None:
    proof = sign(KEYS, DECIDED, NOW)
    changed = dataclasses.replace(DECIDED, **{name: getattr(DECIDED, name) + "x"})
    assert rule(KEYS, changed, proof, NOW) == "forged_proof"


@pytest.mark.parametrize("hold", HOLDS)
def test_a_proof_covers_the_hold_it_answers(hold: HeldDecision | None) -> None:
    """Its entry (seq and hash), its rule and its evidence: a proof signed for one hold
    proves nothing about another."""
    proof = sign(KEYS, DECIDED, NOW)
    assert rule(KEYS, dataclasses.replace(DECIDED, hold=hold), proof, NOW) == "forged_proof"


def test_a_proof_covers_its_time() -> None:
    proof = sign(KEYS, DECIDED, NOW)
    earlier = proof.model_copy(update={"signed_at": NOW - timedelta(seconds=1)})
    assert rule(KEYS, DECIDED, earlier, NOW) == "forged_proof"


def test_a_made_up_signature_is_forged() -> None:
    proof = sign(KEYS, DECIDED, NOW).model_copy(update={"signature": "0" * 64})
    assert rule(KEYS, DECIDED, proof, NOW) == "forged_proof"


def test_a_key_this_process_does_not_hold_is_unknown() -> None:
    proof = sign(ApprovalKeys(current=KEY_B), DECIDED, NOW)
    assert rule(KEYS, DECIDED, proof, NOW) == "unknown_proof_key"


def test_a_proof_from_the_future_is_refused_beyond_the_clock_skew() -> None:
    assert rule(KEYS, DECIDED, sign(KEYS, DECIDED, NOW + CLOCK_SKEW), NOW) == "ok"
    ahead = sign(KEYS, DECIDED, NOW + CLOCK_SKEW + timedelta(seconds=1))
    assert rule(KEYS, DECIDED, ahead, NOW) == "proof_in_future"


def test_a_proof_older_than_a_day_is_stale() -> None:
    assert rule(KEYS, DECIDED, sign(KEYS, DECIDED, NOW - MAX_PROOF_AGE), NOW) == "ok"
    old = sign(KEYS, DECIDED, NOW - MAX_PROOF_AGE - timedelta(seconds=1))
    assert rule(KEYS, DECIDED, old, NOW) == "stale_proof"


def test_a_rotation_keeps_decisions_signed_before_it() -> None:
    """Signed with A before the rotation; verified after it (B current, A retired); and
    a decision signed after the rotation carries B."""
    before = sign(ApprovalKeys(current=KEY_A), DECIDED, NOW)
    rotated = ApprovalKeys(current=KEY_B, retired=(KEY_A,))
    assert refusal(rotated, DECIDED, before, NOW) is None
    after = sign(rotated, DECIDED, NOW)
    assert after.key_id == KEY_B.key_id
    assert refusal(rotated, DECIDED, after, NOW) is None
    # once A is dropped, what it signed is no longer believed
    assert rule(ApprovalKeys(current=KEY_B), DECIDED, before, NOW) == "unknown_proof_key"


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        ApprovalKey(b"short")


def test_the_key_never_shows_in_its_repr() -> None:
    assert KEY_A.secret.hex() not in repr(KEY_A) and KEY_A.key_id in repr(KEY_A)


@pytest.mark.parametrize(
    "proof",
    [
        {"key_id": "ab", "signed_at": "2026-03-04T10:00:00", "signature": "0" * 64},  # naive
        {"key_id": "ab", "signed_at": "0001-01-01T00:00:00Z", "signature": "0" * 64},
        {"key_id": "ab", "signed_at": "2026-03-04T10:00:00Z", "signature": "é" * 64},
        {"key_id": "ab", "signed_at": "2026-03-04T10:00:00Z", "signature": "0" * 63},
        {"key_id": "a\x00", "signed_at": "2026-03-04T10:00:00Z", "signature": "0" * 64},
    ],
)
def test_a_proof_that_could_upset_the_check_does_not_decode(proof: dict[str, str]) -> None:
    """A forged proof can only be wrong, never make the check itself raise: times are
    aware and in range, signatures hex, key ids plain."""
    with pytest.raises(ValidationError):
        ApprovalProof.model_validate(proof)


text = st.text(max_size=20)


@st.composite
def mutations(draw: st.DrawFn) -> tuple[Decided, ApprovalProof]:
    """The decision and its proof with at least one field changed."""
    proof = sign(KEYS, DECIDED, NOW)
    decided_changes = draw(st.dictionaries(st.sampled_from(FIELDS), text, max_size=len(FIELDS)))
    signed_at = draw(
        st.one_of(
            st.just(proof.signed_at),
            st.datetimes(
                min_value=datetime(2000, 1, 1),
                max_value=datetime(2100, 1, 1),
                timezones=st.just(UTC),
            ),
        )
    )
    signature = draw(
        st.one_of(st.just(proof.signature), st.text("0123456789abcdef", min_size=64, max_size=64))
    )
    key_id = draw(
        st.one_of(st.just(proof.key_id), st.text("0123456789abcdef", min_size=1, max_size=64))
    )
    mutated = dataclasses.replace(DECIDED, **decided_changes)
    forged = ApprovalProof(key_id=key_id, signed_at=signed_at, signature=signature)
    return mutated, forged


@given(mutations())
def test_any_change_to_a_decision_or_its_proof_is_refused(
    change: tuple[Decided, ApprovalProof],
) -> None:
    decided, proof = change
    original = sign(KEYS, DECIDED, NOW)
    assume(decided != DECIDED or proof != original)  # unchanged: the genuine article
    assert refusal(KEYS, decided, proof, NOW) is not None
