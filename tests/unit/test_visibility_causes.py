"""A hold's causes as a reader sees them: a cause that names work beyond the reader's
projects is withheld, the others stay; the joined reason and the causes agree."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from domain.audit.chain import AuditEntry
from domain.governance.intents import Decision, Outcome, Stage
from domain.organization.visibility import (
    WITHHELD_EVIDENCE,
    ChainReach,
    causes_for,
    decision_for,
)
from usecases.audit import for_reader

WEST_INTENT = "intent-west-7"
EAST_INTENT = "intent-east-3"
REACH = {WEST_INTENT: ["west"], EAST_INTENT: ["east"]}
CAUSES = (
    ("collision", f"another payment ({WEST_INTENT}) of this invoice is in flight"),
    ("money_over_threshold", "over $1,000.00"),
    ("collision", f"and {EAST_INTENT}"),
)


def _held() -> Decision:
    return Decision(
        intent_id="i",
        outcome=Outcome.HOLD,
        stage=Stage.COLLISIONS,
        rule="collision+money_over_threshold",
        reason="; ".join(text for _, text in CAUSES),
        reasons=CAUSES,
        evidence=(WEST_INTENT, EAST_INTENT),
    )


def test_a_cause_naming_west_is_withheld_from_an_east_reader_and_the_rest_stays() -> None:
    seen = decision_for(frozenset({"east"}), _held(), REACH)
    assert seen.reasons == (
        ("collision", WITHHELD_EVIDENCE),
        CAUSES[1],
        CAUSES[2],
    )
    assert seen.reason == "; ".join(text for _, text in seen.reasons)
    assert WEST_INTENT not in repr(seen)
    # whoever reads everything reads it all
    assert decision_for(None, _held(), REACH) == _held()
    assert decision_for(frozenset({"east", "west"}), _held(), REACH) == _held()


@given(st.sets(st.sampled_from(["east", "west", "north"])))
def test_no_cause_ever_shows_an_intent_the_reader_may_not_read(readable: set[str]) -> None:
    causes = causes_for(frozenset(readable), (WEST_INTENT, EAST_INTENT), CAUSES, REACH)
    for intent, reach in REACH.items():
        if not set(reach) <= readable:
            assert all(intent not in text for _, text in causes)
    assert [rule for rule, _ in causes] == [rule for rule, _ in CAUSES]


def test_the_audit_trail_withholds_a_cause_naming_west_from_an_east_reader() -> None:
    """An entry of a hold of several causes, read by an East member: its joined reason and
    its kept causes both withhold what names West's intent."""
    entry = AuditEntry(
        org_id="o",
        seq=1,
        at="2026-12-06T17:00:00.000000+00:00",
        event_key="decide:i",
        actor="agent",
        intent_id=EAST_INTENT,
        decision="hold",
        stage="collisions",
        rule="collision+money_over_threshold",
        payload={
            "reason": "; ".join(text for _, text in CAUSES),
            "reasons": [list(cause) for cause in CAUSES],
            "evidence": [WEST_INTENT, EAST_INTENT],
            "reach": ["east"],
        },
        prev_hash="0" * 64,
        entry_hash="1" * 64,
    )
    reach = ChainReach([entry], {}, {**REACH, "i": ["east"]})
    seen = for_reader(entry, frozenset({"east"}), reach)
    assert WEST_INTENT not in json.dumps(seen.payload)
    assert seen.payload["reasons"][0] == ["collision", WITHHELD_EVIDENCE]
    assert seen.payload["reasons"][1:] == [list(CAUSES[1]), list(CAUSES[2])]
