"""The strict model-output parser: one JSON object, checked field by field, never repaired."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.canonical import canonical_json
from domain.governance.intents import Intent, ProposedAction
from domain.organization.contracts import ToolSpec
from domain.organization.kinds import ParamType
from domain.runs.parser import MAX_ACTIONS, MAX_QUESTION, ParsedReply, ParseRejection, parse_reply
from domain.tools import EMAIL_SEND, PAYMENTS_PAY, REGISTRY

EMAIL_ONLY: dict[str, ToolSpec] = {"email.send": EMAIL_SEND}


def pay(**overrides: Any) -> dict[str, Any]:
    """A valid payments.pay action; ``overrides`` replace (or, as None, remove) fields."""
    action: dict[str, Any] = {
        "tool": "payments.pay",
        "projects": ["east"],
        "payload": {
            "payee": "acme",
            "invoice": "inv-7",
            "amount_cents": 42_000,
            "currency": "USD",
            "memo": "April retainer",
        },
        "cost_cents": 42_000,
        "justification": "Invoice inv-7 is due this week.",
    }
    return _apply(action, overrides)


def mail(**overrides: Any) -> dict[str, Any]:
    """A valid email.send action with references."""
    action: dict[str, Any] = {
        "tool": "email.send",
        "projects": ["east", "north"],
        "payload": {"to": "cfo@acme.example", "subject": "Kickoff", "body": "See you Monday."},
        "cost_cents": 0,
        "justification": "The client asked for a date.",
        "references": ["atlas-kickoff"],
    }
    return _apply(action, overrides)


_REMOVE = object()


def _apply(action: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    for key, value in overrides.items():
        if value is _REMOVE:
            del action[key]
        else:
            action[key] = value
    return action


def with_payload(action: dict[str, Any], **changes: Any) -> dict[str, Any]:
    payload = dict(action["payload"])
    for key, value in changes.items():
        if value is _REMOVE:
            del payload[key]
        else:
            payload[key] = value
    action["payload"] = payload
    return action


def reply(*actions: Any, summary: Any = "Plan for today.") -> str:
    return json.dumps({"summary": summary, "actions": list(actions)})


def rejected(text: str, snapshot: dict[str, ToolSpec] = REGISTRY) -> ParseRejection:
    result = parse_reply(text, snapshot)
    assert isinstance(result, ParseRejection), f"expected a rejection, got {result!r}"
    return result


# --- accepted replies -------------------------------------------------------------------


def test_valid_reply_parses_to_proposed_actions() -> None:
    result = parse_reply(reply(pay(), mail()), REGISTRY)

    assert isinstance(result, ParsedReply)
    assert result.summary == "Plan for today."
    assert result.actions == (
        ProposedAction(
            tool="payments.pay",
            projects=("east",),
            payload={
                "payee": "acme",
                "invoice": "inv-7",
                "amount_cents": 42_000,
                "currency": "USD",
                "memo": "April retainer",
            },
            cost_cents=42_000,
            justification="Invoice inv-7 is due this week.",
            references=(),
        ),
        ProposedAction(
            tool="email.send",
            projects=("east", "north"),
            payload={"to": "cfo@acme.example", "subject": "Kickoff", "body": "See you Monday."},
            cost_cents=0,
            justification="The client asked for a date.",
            references=("atlas-kickoff",),
        ),
    )


def test_a_reply_with_no_actions_is_valid() -> None:
    assert parse_reply(reply(), REGISTRY) == ParsedReply(summary="Plan for today.", actions=())


def test_surrounding_whitespace_is_valid_json_not_a_repair() -> None:
    assert isinstance(parse_reply("\n  " + reply(mail()) + "\n", REGISTRY), ParsedReply)


def test_exactly_max_actions_is_accepted() -> None:
    result = parse_reply(reply(*[mail() for _ in range(MAX_ACTIONS)]), REGISTRY)
    assert isinstance(result, ParsedReply)
    assert len(result.actions) == MAX_ACTIONS


# --- malformed_json ----------------------------------------------------------------------

VALID = reply(pay())


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("```json\n" + VALID + "\n```", id="json-code-fence"),
        pytest.param("```\n" + VALID + "\n```", id="bare-code-fence"),
        pytest.param(VALID + "\nHope this helps!", id="trailing-text"),
        pytest.param("Here is my plan: " + VALID, id="leading-text"),
        pytest.param(VALID + VALID, id="two-objects"),
        pytest.param(VALID[:-1], id="truncated"),
        pytest.param("", id="empty"),
        pytest.param("{'summary': 'x', 'actions': []}", id="single-quotes"),
        pytest.param('{"summary": "x", "actions": [],}', id="trailing-comma"),
        pytest.param(
            reply(pay(cost_cents=0)).replace('"cost_cents": 0', '"cost_cents": NaN'), id="nan"
        ),
        pytest.param(
            reply(pay(cost_cents=0)).replace('"cost_cents": 0', '"cost_cents": Infinity'),
            id="infinity",
        ),
        pytest.param(
            reply(pay(cost_cents=0)).replace('"cost_cents": 0', '"cost_cents": -Infinity'),
            id="minus-infinity",
        ),
        pytest.param('{"summary": "a", "summary": "b", "actions": []}', id="duplicate-top-key"),
        pytest.param(
            reply(pay()).replace('"memo": "April retainer"', '"memo": "x", "memo": "y"'),
            id="duplicate-payload-key",
        ),
        pytest.param(
            reply(pay()).replace('"cost_cents": 42000', '"cost_cents": 42000, "cost_cents": 1'),
            id="duplicate-action-key",
        ),
        pytest.param("[]", id="list"),
        pytest.param(json.dumps([json.loads(VALID)]), id="object-in-list"),
        pytest.param('"a string"', id="string"),
        pytest.param("42", id="number"),
        pytest.param("null", id="null"),
        pytest.param("true", id="bool"),
        pytest.param("[" * 100_000 + "]" * 100_000, id="deep-nesting"),
    ],
)
def test_malformed_json_is_rejected(text: str) -> None:
    assert rejected(text).rule == "malformed_json"


def test_a_valid_reply_in_code_fences_is_not_repaired() -> None:
    assert isinstance(parse_reply(VALID, REGISTRY), ParsedReply)
    assert rejected(f"```json\n{VALID}\n```").rule == "malformed_json"


def test_a_huge_integer_is_a_rejection_not_an_exception() -> None:
    """BUG: Python refuses int strings over 4300 digits with ValueError, not JSONDecodeError."""
    text = reply(pay()).replace('"cost_cents": 42000', '"cost_cents": ' + "9" * 5000)
    assert rejected(text).rule == "malformed_json"
    assert rejected("1" * 5000).rule == "malformed_json"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(reply(with_payload(mail(), subject="\ud800")), id="payload"),
        pytest.param(reply(mail(justification="why \udfff")), id="justification"),
        pytest.param(reply(summary="\ud83d"), id="summary"),
    ],
)
def test_a_lone_surrogate_is_a_rejection(text: str) -> None:
    """BUG: a JSON escape such as \\ud800 decodes to a lone surrogate, which is not
    Unicode text. The parser accepts it, but nothing downstream can canonicalise it: the
    intent digest and the audit entry (RFC 8785) raise CanonicalizationError."""
    assert text.isascii()  # the reply itself is plain ASCII JSON
    result = parse_reply(text, REGISTRY)
    if isinstance(result, ParsedReply):
        for action in result.actions:  # what was accepted must be recordable
            intent = Intent.from_proposal(
                action, intent_id="i-1", org_id="org-1", run_id="run-1", principal_id="p-1"
            )
            assert intent.digest
        canonical_json(result.model_dump(mode="json"))
    assert isinstance(result, ParseRejection)


# --- missing_field / unexpected_field ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"actions": []}', id="no-summary"),
        pytest.param('{"summary": "x"}', id="no-actions"),
        pytest.param("{}", id="empty-object"),
        pytest.param(reply(summary=None), id="summary-null"),
        pytest.param(reply(summary=3), id="summary-number"),
        pytest.param(reply(summary=["x"]), id="summary-list"),
    ],
)
def test_missing_reply_field_is_rejected(text: str) -> None:
    assert rejected(text).rule == "missing_field"


@pytest.mark.parametrize("field", ["tool", "projects", "payload", "cost_cents", "justification"])
def test_missing_action_field_is_rejected(field: str) -> None:
    result = rejected(reply(pay(**{field: _REMOVE})))
    assert result.rule == "missing_field"
    assert field in result.reason


def test_references_may_be_omitted() -> None:
    result = parse_reply(reply(mail(references=_REMOVE)), REGISTRY)
    assert isinstance(result, ParsedReply)
    assert result.actions[0].references == ()


def test_unexpected_reply_field_is_rejected() -> None:
    text = json.dumps({"summary": "x", "actions": [], "thoughts": "hmm"})
    result = rejected(text)
    assert result.rule == "unexpected_field"
    assert "thoughts" in result.reason


def test_unexpected_action_field_is_rejected() -> None:
    result = rejected(reply(pay(priority="high")))
    assert result.rule == "unexpected_field"
    assert "priority" in result.reason


# --- malformed_actions / malformed_action ------------------------------------------------


@pytest.mark.parametrize(
    "actions",
    [
        pytest.param({"0": "x"}, id="object"),
        pytest.param("pay acme", id="string"),
        pytest.param(None, id="null"),
        pytest.param(1, id="number"),
    ],
)
def test_actions_that_are_not_a_list_are_rejected(actions: Any) -> None:
    text = json.dumps({"summary": "x", "actions": actions})
    assert rejected(text).rule == "malformed_actions"


def test_more_than_max_actions_is_rejected() -> None:
    text = reply(*[mail() for _ in range(MAX_ACTIONS + 1)])
    assert rejected(text).rule == "malformed_actions"


@pytest.mark.parametrize("action", ["pay", 1, None, ["tool", "payments.pay"]])
def test_an_action_that_is_not_an_object_is_rejected(action: Any) -> None:
    assert rejected(reply(action)).rule == "malformed_action"


def test_one_bad_action_rejects_the_whole_reply() -> None:
    result = rejected(reply(mail(), pay(cost_cents=-1), mail()))
    assert result.rule == "invalid_cost"
    assert "actions[1]" in result.reason


# --- unknown_tool / tool_not_in_snapshot -------------------------------------------------


@pytest.mark.parametrize("tool", ["shell.exec", "payments.refund", "PAYMENTS.PAY", "", 7, None])
def test_unknown_tool_is_rejected(tool: Any) -> None:
    assert rejected(reply(pay(tool=tool))).rule == "unknown_tool"


def test_registered_tool_outside_the_snapshot_is_rejected() -> None:
    assert isinstance(parse_reply(reply(mail()), EMAIL_ONLY), ParsedReply)
    assert rejected(reply(pay()), EMAIL_ONLY).rule == "tool_not_in_snapshot"


def test_empty_snapshot_refuses_every_tool() -> None:
    assert rejected(reply(mail()), {}).rule == "tool_not_in_snapshot"


# --- malformed_projects / malformed_references -------------------------------------------

BAD_KEY_LISTS = [
    pytest.param(["East"], id="upper-case"),
    pytest.param(["east", "east"], id="duplicates"),
    pytest.param("east", id="string-not-list"),
    pytest.param({"east": True}, id="object-not-list"),
    pytest.param([1], id="number-entry"),
    pytest.param([None], id="null-entry"),
    pytest.param([""], id="empty-entry"),
    pytest.param(["-east"], id="leading-dash"),
    pytest.param(["east west"], id="space"),
    pytest.param(["east_west"], id="underscore"),
    pytest.param(["e" * 64], id="too-long"),
]


@pytest.mark.parametrize("projects", [*BAD_KEY_LISTS, pytest.param([], id="empty-list")])
def test_malformed_projects_are_rejected(projects: Any) -> None:
    assert rejected(reply(pay(projects=projects))).rule == "malformed_projects"


@pytest.mark.parametrize("references", BAD_KEY_LISTS)
def test_malformed_references_are_rejected(references: Any) -> None:
    assert rejected(reply(mail(references=references))).rule == "malformed_references"


def test_empty_references_are_valid() -> None:
    result = parse_reply(reply(mail(references=[])), REGISTRY)
    assert isinstance(result, ParsedReply)


def test_longest_key_is_accepted() -> None:
    result = parse_reply(reply(mail(projects=["e" * 63], references=["r" * 63])), REGISTRY)
    assert isinstance(result, ParsedReply)


def test_a_project_with_a_trailing_newline_is_a_rejection_not_an_exception() -> None:
    """BUG: ``is_slug`` uses ``re.match`` with ``$``, which also matches before a final
    newline, so "east\\n" passes the parser's check and then fails pydantic's pattern
    inside ``ProposedAction``: a ValidationError escapes ``parse_reply``."""
    assert rejected(reply(pay(projects=["east\n"]))).rule == "malformed_projects"


def test_a_reference_with_a_trailing_newline_is_a_rejection_not_an_exception() -> None:
    """BUG: same root cause as above, for references."""
    assert rejected(reply(mail(references=["atlas\n"]))).rule == "malformed_references"


# --- invalid_payload ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(None, id="null"),
        pytest.param([], id="list"),
        pytest.param("payee=acme", id="string"),
    ],
)
def test_a_payload_that_is_not_an_object_is_rejected(payload: Any) -> None:
    assert rejected(reply(pay(payload=payload))).rule == "invalid_payload"


@pytest.mark.parametrize(
    ("param", "value"),
    [
        pytest.param("amount_cents", "42000", id="int-as-string"),
        pytest.param("amount_cents", 42000.0, id="int-as-float"),
        pytest.param("amount_cents", True, id="bool-for-int"),
        pytest.param("amount_cents", None, id="null-for-int"),
        pytest.param("payee", 7, id="int-for-string"),
        pytest.param("currency", None, id="null-for-string"),
        pytest.param("memo", ["a"], id="list-for-string"),
        pytest.param("invoice", {"id": "inv-7"}, id="object-for-string"),
    ],
)
def test_a_wrongly_typed_param_is_rejected(param: str, value: Any) -> None:
    result = rejected(reply(with_payload(pay(), **{param: value})))
    assert result.rule == "invalid_payload"
    assert param in result.reason


def test_false_is_not_zero_for_an_int_param() -> None:
    assert rejected(reply(with_payload(pay(cost_cents=0), amount_cents=False))).rule == (
        "invalid_payload"
    )


@pytest.mark.parametrize("param", sorted(PAYMENTS_PAY.params))
def test_a_missing_param_is_rejected(param: str) -> None:
    result = rejected(reply(with_payload(pay(), **{param: _REMOVE})))
    assert result.rule == "invalid_payload"
    assert param in result.reason


def test_an_extra_param_is_rejected() -> None:
    result = rejected(reply(with_payload(mail(), cc="boss@acme.example")))
    assert result.rule == "invalid_payload"
    assert "cc" in result.reason


def test_an_empty_payload_is_rejected() -> None:
    assert rejected(reply(mail(payload={}))).rule == "invalid_payload"


# --- invalid_cost ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cost",
    [
        pytest.param(-1, id="negative"),
        pytest.param(0.5, id="fraction"),
        pytest.param(0.0, id="float-zero"),
        pytest.param(True, id="bool"),
        pytest.param(False, id="false"),
        pytest.param("0", id="string"),
        pytest.param(None, id="null"),
        pytest.param(10**12 + 1, id="over-max"),
    ],
)
def test_invalid_cost_is_rejected(cost: Any) -> None:
    assert rejected(reply(mail(cost_cents=cost))).rule == "invalid_cost"


def test_float_cost_equal_to_amount_is_rejected() -> None:
    assert rejected(reply(pay(cost_cents=42000.0))).rule == "invalid_cost"


@pytest.mark.parametrize("cost", [0, 41_999, 42_001, 1])
def test_payment_cost_must_equal_amount(cost: int) -> None:
    result = rejected(reply(pay(cost_cents=cost)))
    assert result.rule == "invalid_cost"
    assert "amount_cents" in result.reason


@pytest.mark.parametrize("amount", [0, -5, 10**12 + 1])
def test_payment_amount_must_be_positive_and_bounded(amount: int) -> None:
    text = reply(with_payload(pay(cost_cents=max(amount, 0)), amount_cents=amount))
    assert rejected(text).rule == "invalid_cost"


def test_non_money_tool_may_declare_a_cost() -> None:
    result = parse_reply(reply(mail(cost_cents=250)), REGISTRY)
    assert isinstance(result, ParsedReply)
    assert result.actions[0].cost_cents == 250


# --- missing_justification ---------------------------------------------------------------


@pytest.mark.parametrize("justification", ["", "   ", "\n\t", None, 5, ["why"]])
def test_missing_justification_is_rejected(justification: Any) -> None:
    assert rejected(reply(pay(justification=justification))).rule == "missing_justification"


# --- properties --------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=25,
)

snapshots = st.sampled_from(
    [dict(REGISTRY), {"payments.pay": PAYMENTS_PAY}, {"email.send": EMAIL_SEND}, {}]
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(), snapshot=snapshots)
def test_arbitrary_text_never_raises(text: str, snapshot: dict[str, ToolSpec]) -> None:
    assert isinstance(parse_reply(text, snapshot), ParsedReply | ParseRejection)


@settings(max_examples=300, deadline=None)
@given(value=json_values, snapshot=snapshots)
def test_arbitrary_json_never_raises(value: Any, snapshot: dict[str, ToolSpec]) -> None:
    assert isinstance(parse_reply(json.dumps(value), snapshot), ParsedReply | ParseRejection)


def strict_slug(value: str) -> bool:
    return re.fullmatch(r"[a-z0-9][a-z0-9-]{0,62}", value) is not None


# Structured, nearly valid replies: each field is valid most of the time, so that replies
# are accepted often enough to check what acceptance means. Keys with a trailing newline are
# left out here; they have their own tests above.
GOOD_KEYS = st.sampled_from(["east", "west", "north", "atlas-kickoff", "a" * 63])
BAD_KEYS = st.sampled_from(["East", "", "a b", "x" * 64, "-x"])
ANY_SCALAR = st.one_of(
    st.integers(min_value=-5, max_value=10**12 + 5),
    st.sampled_from([0, 1, 100_000, 10**12]),
    st.text(max_size=6),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
)


def mostly(valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> Any:
    """Draws from ``valid`` about nine times in ten (Hypothesis favours small integers)."""
    return st.integers(0, 9).flatmap(lambda n: invalid if n == 9 else valid)


def key_lists(*, min_size: int) -> st.SearchStrategy[Any]:
    return mostly(
        st.lists(GOOD_KEYS, min_size=min_size, max_size=3, unique=True),
        st.one_of(st.lists(st.one_of(GOOD_KEYS, BAD_KEYS), max_size=3), GOOD_KEYS, st.just([])),
    )


@st.composite
def payloads(draw: st.DrawFn, tool: ToolSpec | None) -> Any:
    if tool is None or draw(st.integers(0, 19)) == 19:
        return draw(st.dictionaries(st.sampled_from(["to", "amount_cents", "x"]), ANY_SCALAR))
    payload: dict[str, Any] = {}
    for name, kind in tool.params.items():
        choice = draw(st.integers(0, 39))
        if choice == 39:
            continue  # missing
        if choice == 38:
            payload[name] = draw(ANY_SCALAR)
        elif kind is ParamType.INTEGER:
            payload[name] = draw(st.integers(min_value=-2, max_value=300_000))
        else:
            payload[name] = draw(st.text(max_size=8))
    if draw(st.integers(0, 19)) == 19:
        payload["extra"] = "x"
    return payload


@st.composite
def near_valid_actions(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(mostly(st.sampled_from(sorted(REGISTRY)), st.sampled_from(["shell.exec", 3])))
    tool = REGISTRY.get(name) if isinstance(name, str) else None
    payload = draw(payloads(tool))
    amount = payload.get("amount_cents") if isinstance(payload, dict) else None
    honest = amount if isinstance(amount, int) and tool is PAYMENTS_PAY else 0
    action: dict[str, Any] = {
        "tool": name,
        "projects": draw(key_lists(min_size=1)),
        "payload": payload,
        "cost_cents": draw(mostly(st.just(honest), ANY_SCALAR)),
        "justification": draw(mostly(st.just("because"), st.sampled_from(["", " ", None]))),
    }
    if draw(st.booleans()):
        action["references"] = draw(key_lists(min_size=0))
    if draw(st.integers(0, 19)) == 19:
        del action[draw(st.sampled_from(sorted(action)))]
    return action


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    actions=st.lists(near_valid_actions(), max_size=3),
    snapshot=snapshots,
    summary=mostly(st.text(max_size=10), st.none()),
)
def test_accepted_replies_only_use_snapshot_tools_and_honest_costs(
    actions: list[dict[str, Any]], snapshot: dict[str, ToolSpec], summary: Any
) -> None:
    text = json.dumps({"summary": summary, "actions": actions})
    result = parse_reply(text, snapshot)
    assert isinstance(result, ParsedReply | ParseRejection)
    if isinstance(result, ParseRejection):
        return
    assert len(result.actions) == len(actions)
    for action in result.actions:
        assert action.tool in snapshot
        tool = snapshot[action.tool]
        assert set(action.payload) == set(tool.params)
        for name, kind in tool.params.items():
            value = action.payload[name]
            if kind is ParamType.INTEGER:
                assert isinstance(value, int) and not isinstance(value, bool)
            else:
                assert isinstance(value, str)
        if tool.money_param is not None:
            assert action.cost_cents == action.payload[tool.money_param] > 0
        assert action.projects and all(strict_slug(p) for p in action.projects)
        assert len(set(action.projects)) == len(action.projects)
        assert all(strict_slug(r) for r in action.references)
        assert action.justification.strip()
    # Nothing is repaired: the same accepted reply in fences is refused.
    fenced = parse_reply(f"```json\n{text}\n```", snapshot)
    assert isinstance(fenced, ParseRejection) and fenced.rule == "malformed_json"


@settings(max_examples=100, deadline=None)
@given(amount=st.integers(min_value=1, max_value=10**12), snapshot=snapshots)
def test_any_honest_payment_is_accepted_iff_the_tool_is_in_the_snapshot(
    amount: int, snapshot: dict[str, ToolSpec]
) -> None:
    text = reply(with_payload(pay(cost_cents=amount), amount_cents=amount))
    result = parse_reply(text, snapshot)
    if "payments.pay" in snapshot:
        assert isinstance(result, ParsedReply)
        assert result.actions[0].cost_cents == amount
    else:
        assert isinstance(result, ParseRejection) and result.rule == "tool_not_in_snapshot"


@pytest.mark.parametrize(
    "text",
    [
        reply(with_payload(mail(), body="Dear CFO,\u0000 the agenda.")),
        reply(mail(justification="due\u0000")),
        reply(mail(), summary="plan\u0000"),
        reply(with_payload(pay(), memo="\u0000")),
        '{"summary": "s", "actions": [], "\\u0000": 1}',
    ],
)
def test_a_nul_character_anywhere_is_a_rejection(text: str) -> None:
    """PostgreSQL text cannot hold NUL: such a reply would be allowed and then fail at the
    connector on every attempt. It is refused here, with the reason."""
    refused = rejected(text)
    assert refused.rule == "forbidden_character"
    assert "NUL" in refused.reason


# --- a question for the human instead of actions ------------------------------------------


def _asking(question: Any, *actions: Any) -> str:
    return json.dumps({"summary": "Blocked.", "actions": list(actions), "question": question})


def test_a_reply_may_ask_the_human_a_question_instead_of_acting() -> None:
    result = parse_reply(_asking("  Which invoice, INV-7 or INV-8? "), REGISTRY)
    assert result == ParsedReply(
        summary="Blocked.", actions=(), question="Which invoice, INV-7 or INV-8?"
    )


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        ("", "malformed_question"),
        ("   ", "malformed_question"),
        ("x" * (MAX_QUESTION + 1), "malformed_question"),
        (None, "malformed_question"),
        (["which?"], "malformed_question"),
    ],
    ids=["empty", "blank", "too-long", "null", "list"],
)
def test_a_question_must_be_text_of_bounded_length(question: Any, rule: str) -> None:
    assert rejected(_asking(question)).rule == rule


def test_a_question_proposes_no_action_until_answered() -> None:
    assert rejected(_asking("Which invoice?", pay())).rule == "question_with_actions"


STORABLE = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
"""Text the store can keep (a NUL or a lone surrogate is refused as forbidden_character)."""


@given(st.text(STORABLE, min_size=1, max_size=MAX_QUESTION).filter(lambda t: t.strip()))
def test_any_bounded_question_is_kept_stripped(question: str) -> None:
    result = parse_reply(_asking(question), REGISTRY)
    assert isinstance(result, ParsedReply) and result.question == question.strip()
