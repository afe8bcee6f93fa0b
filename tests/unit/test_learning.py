"""The learning pass's validator: every refusal rule, and properties over random replies."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.learning.overreach import overreach
from domain.learning.records import InsightStatus, WorkEvent
from domain.learning.validator import (
    LEARNING_AGENT,
    LEARNING_TASK,
    MAX_INSIGHTS,
    experiences_of,
    learning_prompt,
    validate,
)

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


OVERREACH_PHRASES = [
    ("grants_access", "give the west planner read access to the Atlas notes"),
    ("grants_access", "share the Birch CIM across the wall"),
    ("changes_policy", "raise the Atlas spend cap to 10,000"),
    ("changes_policy", "waive the barrier check for the founder"),
    ("assumes_authority", "Ledger can approve invoices under 2,000 itself"),
    ("assumes_authority", "payments to Northwind no longer need human review"),
]
PLAIN = [
    "Kickoff agendas go out within a day of the engagement letter.",
    "Northwind invoices arrive on the first business day of the month.",
    "Data-room indexes are requested twice before they arrive.",
]


def test_the_overreach_phrases_name_their_rule() -> None:
    for rule, phrase in OVERREACH_PHRASES:
        found = overreach(phrase)
        assert found is not None and found[0] == rule, phrase


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(OVERREACH_PHRASES),
    st.lists(st.sampled_from(PLAIN), max_size=2),
    st.lists(st.sampled_from(PLAIN), max_size=2),
)
def test_overreach_is_refused_whatever_plain_text_surrounds_it(
    phrase: tuple[str, str], before: list[str], after: list[str]
) -> None:
    rule, text = phrase
    lesson = " ".join([*before, f"{text[0].upper()}{text[1:]}.", *after])
    verdict = validate(_reply({"lesson": lesson, "cites": ["e0", "e2"], "general": True}), EVENTS)
    assert verdict.accepted == ()
    assert [(r.rule, r.index) for r in verdict.refused] == [(rule, 0)]
    assert verdict.refused[0].reason.startswith("it would ")  # and quotes what it read


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from([e.id for e in EVENTS]), max_size=3, unique=True),
    st.text(alphabet="xyz0123456789", min_size=1, max_size=6),
)
def test_a_single_unknown_event_refuses_the_insight(known: list[str], ghost: str) -> None:
    reply = _reply({"lesson": "A plain lesson.", "cites": [*known, f"ghost-{ghost}"]})
    assert _rules(reply) == ["unknown_event"]


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=MAX_INSIGHTS + 1, max_value=20))
def test_more_than_five_insights_refuse_the_whole_reply(n: int) -> None:
    reply = _reply(*[{"lesson": "A plain lesson.", "cites": [f"e{i % 8}"]} for i in range(n)])
    verdict = validate(reply, EVENTS)
    assert verdict.accepted == ()
    assert [(r.rule, r.index) for r in verdict.refused] == [("too_many_insights", None)]


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=3), st.booleans())
def test_a_general_lesson_from_one_episode_is_refused(episode: int, both: bool) -> None:
    cites = [f"e{2 * episode}", f"e{2 * episode + 1}"] if both else [f"e{2 * episode}"]
    reply = _reply({"lesson": "A plain lesson.", "cites": cites, "general": True})
    assert _rules(reply) == ["single_episode"]
    # The same remark, not offered as a general lesson, is a candidate.
    assert _rules(_reply({"lesson": "A plain lesson.", "cites": cites})) == []


def test_accepted_insights_become_candidates_with_their_episodes() -> None:
    reply = _reply(
        {"lesson": "Letters precede agendas.", "cites": ["e0", "e3", "e5"], "general": True},
        {"lesson": "Raise the cap.", "cites": ["e6"]},
    )
    verdict = validate(reply, EVENTS)
    (kept,) = experiences_of(verdict, EVENTS, "org", "pass-1", AT, lambda i: f"x{i}")
    assert kept.status is InsightStatus.CANDIDATE and kept.id == "x0"
    assert kept.episodes == ("run-0", "run-1", "run-2") and kept.cites == ("e0", "e3", "e5")


def test_the_prompt_shows_every_event_and_earlier_lesson_but_the_task_stays_the_same() -> None:
    (kept,) = experiences_of(
        validate(_reply({"lesson": "Agendas follow letters.", "cites": ["e0"]}), EVENTS),
        EVENTS,
        "org",
        "p",
        AT,
        str,
    )
    prompt = learning_prompt(EVENTS, [kept])
    assert all(f'"id": "{e.id}"' in prompt for e in EVENTS)
    assert "Agendas follow letters." in prompt
    # The fixture key is (agent, task): neither depends on the window.
    assert (LEARNING_AGENT, LEARNING_TASK) == ("learning", "Learning pass")
