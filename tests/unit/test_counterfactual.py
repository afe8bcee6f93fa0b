"""The counterfactual's pure core: every stage runs with enforcement off, and the view a
reader gets withholds what lies beyond their projects."""

from __future__ import annotations

from domain.counterfactual.replay import (
    WITHHELD,
    OtherIntent,
    SnapshotBasis,
    replay,
    replayed_decision,
    view,
)
from domain.governance.broker import decide
from domain.governance.intents import Decision, Intent, Outcome, Stage
from domain.governance.values import HoldState, StoredIntent
from domain.organization.contracts import Barrier
from tests.unit.test_governance_broker_properties import ORG, payment, snapshot, spend_cap, staffed

WALL = Barrier(id="b-1", org_id=ORG, name="wall", groups=(("east",), ("west",)))


def _stored(intent: Intent, decision: Decision, status: Outcome | None = None) -> StoredIntent:
    return StoredIntent(
        intent=intent,
        run_id=intent.run_id,
        status=status or decision.outcome,
        dispatched=False,
        hold=HoldState.OPEN if decision.outcome is Outcome.HOLD else None,
        latest=decision,
        reach=decision.reach,
    )


def _everything_wrong() -> tuple[Intent, Decision, object]:
    """A payment over the cap, over the approval threshold, on an invoice in flight, that
    draws on a record behind the wall: enforcement stops it at the wall."""
    intent = payment(300_000, invoice="inv-9", references=["birch-cim"])
    snap = snapshot(
        staffing=staffed(["east"]),
        barriers=(WALL,),
        commitments=(spend_cap(500_000, projects=("east",)),),
        records={"birch-cim": ("west",)},
        committed_spend={"c-cap": 400_000},
        in_flight={"payments.pay:inv-9": "i-other"},
    )
    return intent, decide(intent, snap), snap


def test_every_stage_speaks_with_enforcement_off() -> None:
    intent, decision, snap = _everything_wrong()
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "barrier_crossed")
    replayed = replay(intent, snap)  # type: ignore[arg-type]
    said = {s.stage: (s.verdict, s.rule) for s in replayed.stages}
    assert said == {
        Stage.IDENTITY: ("pass", ""),
        Stage.STAFFING: ("pass", ""),
        Stage.SCOPE: ("reject", "barrier_crossed"),
        Stage.EGRESS: ("pass", ""),
        Stage.COMMITMENTS: ("hold", "spend_cap"),
        Stage.COLLISIONS: ("hold", "collision"),
        Stage.APPROVAL: ("hold", "money_over_threshold"),
    }
    (cap,) = replayed.caps
    assert (cap.total_cents, cap.over_by_cents) == (700_000, 200_000)
    assert replayed.crossing == ("wall", (("east",), ("west",)))
    assert replayed.in_flight == ("i-other",) and not replayed.repeatable
    assert replayed.write is not None and replayed.write.fields["amount_cents"] == 300_000


def test_a_reader_of_one_side_sees_nothing_of_the_other() -> None:
    intent, decision, snap = _everything_wrong()
    replayed = replay(intent, snap)  # type: ignore[arg-type]
    other = OtherIntent(
        intent_id="i-other",
        status=Outcome.ALLOW,
        dispatched=True,
        reach=("east", "west"),
        payload={"invoice": "inv-9", "amount_cents": 5},
    )
    east = view(
        replayed,
        _stored(intent, decision),
        decision,
        SnapshotBasis.AS_DECIDED,
        frozenset({"east"}),
        {"birch-cim": None},
        {"i-other": other},
    )
    assert east.crossing is not None
    near, far = east.crossing.sides
    assert near.projects == ("east",) and near.records == ()
    assert far.withheld and far.projects == ()
    assert east.done.reason == WITHHELD and east.caps == ()
    assert east.collision is not None and east.collision.key == WITHHELD
    assert east.collision.in_flight[0].withheld and east.collision.double_write
    assert "west" not in east.model_dump_json() and "birch" not in east.model_dump_json()

    founder = view(
        replayed,
        _stored(intent, decision),
        decision,
        SnapshotBasis.AS_DECIDED,
        None,
        {"birch-cim": ("west",)},
        {"i-other": other},
    )
    assert founder.crossing is not None
    (record,) = founder.crossing.sides[1].records
    assert (record.ref, record.released) == ("birch-cim", True)
    assert founder.collision is not None and founder.collision.in_flight[0].written


def test_only_what_enforcement_stopped_is_replayed() -> None:
    intent = payment(200_000)
    held = decide(intent, snapshot(staffing=staffed(["east"])))
    assert held.outcome is Outcome.HOLD
    approved = held.model_copy(update={"outcome": Outcome.APPROVED, "stage": Stage.REVIEW})
    denied = held.model_copy(update={"outcome": Outcome.DENIED, "stage": Stage.REVIEW})
    assert replayed_decision(_stored(intent, held), [held]) == held
    assert replayed_decision(_stored(intent, denied), [held, denied]) == held
    assert replayed_decision(_stored(intent, approved), [held, approved]) is None
    allowed = decide(payment(10), snapshot(staffing=staffed(["east"])))
    assert replayed_decision(_stored(intent, allowed), [allowed]) is None


def test_a_stage_with_nothing_to_judge_says_so_and_no_write_is_computed() -> None:
    intent = payment(10).model_copy(update={"tool": "ledger.wipe"})
    replayed = replay(intent, snapshot(staffing=staffed(["east"])))
    said = {s.stage: s.verdict for s in replayed.stages}
    assert said[Stage.IDENTITY] == "reject" and said[Stage.SCOPE] == "pass"
    assert said[Stage.COMMITMENTS] == said[Stage.COLLISIONS] == "not_run"
    assert replayed.write is None and replayed.key is None
