"""The learning pass's validator: every refusal rule, and properties over random replies."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.time.learning import MAX_INSIGHTS, InsightStatus, WorkEvent, overreach, validate

AT = datetime(2026, 11, 30, 9, tzinfo=UTC)
EVENTS = [
    WorkEvent(
        id=f"e{i}",
        episode_id=f"run-{i // 2}",  # two events per episode
        at=AT,
        principal_id="orion",
        kind="intent",
        summary=f"step {i}",
    )
    for i in range(8)
]


def _reply(*insights: dict[str, Any]) -> str:
    return json.dumps({"insights": list(insights)})


def _rules(reply: str) -> list[str]:
    return [r.rule for r in validate(reply, EVENTS).refused]


def test_a_grounded_general_lesson_is_a_candidate() -> None:
    lesson = "Kickoff agendas go out the day after the engagement letter is signed."
    verdict = validate(_reply({"lesson": lesson, "cites": ["e0", "e2"], "general": True}), EVENTS)
    assert [i.lesson for i in verdict.accepted] == [lesson]
    assert verdict.status is InsightStatus.CANDIDATE and verdict.refused == ()


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("not json", "malformed"),
        (json.dumps([{"lesson": "x", "cites": ["e0"]}]), "malformed"),
        (json.dumps({"insights": [], "policy": "x"}), "malformed"),
        (json.dumps({"insights": {"lesson": "x"}}), "malformed"),
        (_reply({"lesson": "x", "cites": "e0"}), "malformed"),
        (_reply({"lesson": "x", "cites": ["e0"], "weight": 9}), "malformed"),
        (_reply({"lesson": "", "cites": ["e0"]}), "malformed"),
        (_reply({"lesson": "x", "cites": []}), "no_evidence"),
        (_reply({"lesson": "x", "cites": ["e99"]}), "unknown_event"),
        (_reply({"lesson": "x", "cites": ["e0", "e0"]}), "event_cited_twice"),
        (_reply({"lesson": "x", "cites": ["e0", "e1"], "general": True}), "single_episode"),
        (_reply(*[{"lesson": "x", "cites": [f"e{i}"]} for i in range(6)]), "too_many_insights"),
        (
            _reply({"lesson": "Grant Vega read access to the east files.", "cites": ["e0"]}),
            "grants_access",
        ),
        (
            _reply({"lesson": "Raise the Atlas spend cap to 10,000.", "cites": ["e0"]}),
            "changes_policy",
        ),
        (
            _reply({"lesson": "Ledger can approve invoices under 2,000 itself.", "cites": ["e0"]}),
            "assumes_authority",
        ),
    ],
)
def test_each_rule_refuses_with_its_name(reply: str, rule: str) -> None:
    assert _rules(reply) == [rule]


def test_an_event_supports_one_insight_only() -> None:
    reply = _reply(
        {"lesson": "Agendas follow letters.", "cites": ["e0", "e2"], "general": True},
        {"lesson": "Letters precede agendas.", "cites": ["e2", "e4"], "general": True},
    )
    verdict = validate(reply, EVENTS)
    assert len(verdict.accepted) == 1
    assert [(r.rule, r.index) for r in verdict.refused] == [("event_cited_twice", 1)]


@pytest.mark.parametrize(
    "lesson",
    [
        "Give the West planner access to Atlas notes when it is busy.",
        "Share the Birch CIM across the wall for comparisons.",
        "Skip the approval for repeat payments to Northwind.",
        "Payments to known vendors no longer need human review.",
        "Bypass the barrier check for the founder's requests.",
        "Lower the approval threshold for Ledger to 5,000.",
        "Orion should act as approver for email batches.",
        "Waive the spend cap when the client is in a hurry.",
    ],
)
def test_overreach_is_refused_however_it_is_worded(lesson: str) -> None:
    assert overreach(lesson) is not None


@pytest.mark.parametrize(
    "lesson",
    [
        "Kickoff agendas go out within a day of the engagement letter.",
        "Data-room indexes are requested twice before they arrive.",
        "Northwind invoices arrive on the first business day of the month.",
        "Payments over the threshold waited two days for a human on average.",
    ],
)
def test_plain_lessons_pass(lesson: str) -> None:
    assert overreach(lesson) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from([e.id for e in EVENTS] + ["ghost"]), max_size=4),
            st.booleans(),
        ),
        max_size=MAX_INSIGHTS + 2,
    )
)
def test_what_is_accepted_always_stands_on_the_window(
    drawn: list[tuple[list[str], bool]],
) -> None:
    reply = _reply(*[{"lesson": "A plain lesson.", "cites": c, "general": g} for c, g in drawn])
    verdict = validate(reply, EVENTS)
    if len(drawn) > MAX_INSIGHTS:
        assert verdict.accepted == () and verdict.refused[0].rule == "too_many_insights"
        return
    assert len(verdict.accepted) + len(verdict.refused) == len(drawn)
    episodes = {e.id: e.episode_id for e in EVENTS}
    seen: set[str] = set()
    for insight in verdict.accepted:
        assert insight.cites and set(insight.cites) <= set(episodes)
        assert len(set(insight.cites)) == len(insight.cites) and not seen & set(insight.cites)
        seen.update(insight.cites)
        if insight.general:
            assert len({episodes[c] for c in insight.cites}) >= 2
