"""The strict model-output parser.

The model's reply must be exactly one JSON object ``{"summary": str, "actions": [...]}``,
or ``{"summary": str, "actions": [], "question": str}`` when the agent cannot do the task
without a human's answer.
Anything else is a recorded rejection; nothing is repaired: no code fences are
stripped, no missing field is defaulted, no type is coerced.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.governance.intents import ProposedAction
from domain.organization.contracts import Frozen, ToolSpec, is_slug, payload_problem
from domain.strict_json import Refused, is_int, load
from domain.tools import REGISTRY

MAX_ACTIONS = 10
MAX_CENTS = 10**12
MAX_QUESTION = 500
"""The longest question an agent may put to a human."""

_REPLY_KEYS = {"summary", "actions"}
_REPLY_OPTIONAL = {"question"}
_ACTION_REQUIRED = {"tool", "projects", "payload", "cost_cents", "justification"}
_ACTION_OPTIONAL = {"references"}


class ParsedReply(Frozen):
    """A reply that passed every check."""

    summary: str
    actions: tuple[ProposedAction, ...]
    question: str | None = None
    """What the agent needs a human to answer before it can do the task (no actions)."""


class ParseRejection(Frozen):
    """Why a reply was refused; recorded in the audit chain."""

    rule: str
    reason: str


def _exact_keys(obj: Mapping[str, Any], required: set[str], optional: set[str], where: str) -> None:
    missing = required - obj.keys()
    if missing:
        raise Refused("missing_field", f"{where}: missing {sorted(missing)}")
    extra = obj.keys() - required - optional
    if extra:
        raise Refused("unexpected_field", f"{where}: unexpected {sorted(extra)}")


def _slug_list(value: object, *, rule: str, where: str, allow_empty: bool) -> tuple[str, ...]:
    if not isinstance(value, list) or (not value and not allow_empty):
        raise Refused(rule, f"{where}: must be a {'' if allow_empty else 'non-empty '}list")
    if not all(is_slug(v) for v in value):
        raise Refused(rule, f"{where}: every entry must be a lower-case key")
    if len(set(value)) != len(value):
        raise Refused(rule, f"{where}: duplicate entries")
    return tuple(value)


def _payload(tool: ToolSpec, value: object, where: str) -> dict[str, Any]:
    problem = payload_problem(tool, value)
    if problem is not None:
        raise Refused("invalid_payload", f"{where}: {problem}")
    assert isinstance(value, dict)
    return dict(value)


def _action(raw: object, index: int, snapshot: Mapping[str, ToolSpec]) -> ProposedAction:
    where = f"actions[{index}]"
    if not isinstance(raw, dict):
        raise Refused("malformed_action", f"{where}: must be an object")
    _exact_keys(raw, _ACTION_REQUIRED, _ACTION_OPTIONAL, where)
    name = raw["tool"]
    if not isinstance(name, str) or name not in REGISTRY:
        raise Refused("unknown_tool", f"{where}: unknown tool {name!r}")
    tool = snapshot.get(name)
    if tool is None:
        raise Refused("tool_not_in_snapshot", f"{where}: {name} is not in the published snapshot")
    projects = _slug_list(
        raw["projects"], rule="malformed_projects", where=where, allow_empty=False
    )
    payload = _payload(tool, raw["payload"], where)
    cost = raw["cost_cents"]
    if not is_int(cost) or not 0 <= cost <= MAX_CENTS:
        raise Refused("invalid_cost", f"{where}: cost_cents must be an integer in [0, {MAX_CENTS}]")
    if tool.money_param is not None:
        amount = payload[tool.money_param]
        if not 0 < amount <= MAX_CENTS or cost != amount:
            raise Refused(
                "invalid_cost",
                f"{where}: cost_cents ({cost}) must equal a positive {tool.money_param} ({amount})",
            )
    justification = raw["justification"]
    if not isinstance(justification, str) or not justification.strip():
        raise Refused("missing_justification", f"{where}: justification must be non-empty text")
    refs = _slug_list(
        raw.get("references", []), rule="malformed_references", where=where, allow_empty=True
    )
    return ProposedAction(
        tool=name,
        projects=projects,
        payload=payload,
        cost_cents=cost,
        justification=justification,
        references=refs,
    )


def _question(data: Mapping[str, Any]) -> str | None:
    if "question" not in data:
        return None
    question = data["question"]
    if not isinstance(question, str) or not question.strip() or len(question) > MAX_QUESTION:
        raise Refused(
            "malformed_question", f"question must be text of 1 to {MAX_QUESTION} characters"
        )
    if data["actions"]:
        raise Refused(
            "question_with_actions",
            "a reply that asks a question proposes no action until answered",
        )
    return question.strip()


def parse_reply(text: str, snapshot: Mapping[str, ToolSpec]) -> ParsedReply | ParseRejection:
    """Turn a model reply into proposed actions, or say exactly why not."""
    try:
        data = load(text)
        if not isinstance(data, dict):
            raise Refused("malformed_json", "the reply must be one JSON object")
        _exact_keys(data, _REPLY_KEYS, _REPLY_OPTIONAL, "reply")
        if not isinstance(data["summary"], str):
            raise Refused("missing_field", "reply.summary must be text")
        actions = data["actions"]
        if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
            raise Refused("malformed_actions", f"actions must be a list of at most {MAX_ACTIONS}")
        parsed = tuple(_action(raw, i, snapshot) for i, raw in enumerate(actions))
        return ParsedReply(summary=data["summary"], actions=parsed, question=_question(data))
    except Refused as refused:
        return ParseRejection(rule=refused.rule, reason=refused.reason)
    except RecursionError:
        return ParseRejection(rule="malformed_json", reason="nesting too deep")
