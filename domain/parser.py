"""The strict model-output parser.

The model's reply must be exactly one JSON object ``{"summary": str, "actions": [...]}``.
Anything else is a recorded rejection; nothing is repaired: no code fences are
stripped, no missing field is defaulted, no type is coerced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from domain.intents import ProposedAction
from domain.model import Frozen, ToolSpec, is_slug, payload_problem
from domain.text import nul_at
from domain.tools import REGISTRY

MAX_ACTIONS = 10
MAX_CENTS = 10**12

_REPLY_KEYS = {"summary", "actions"}
_ACTION_REQUIRED = {"tool", "projects", "payload", "cost_cents", "justification"}
_ACTION_OPTIONAL = {"references"}


class ParsedReply(Frozen):
    """A reply that passed every check."""

    summary: str
    actions: tuple[ProposedAction, ...]


class ParseRejection(Frozen):
    """Why a reply was refused; recorded in the audit chain."""

    rule: str
    reason: str


class _Refused(Exception):
    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise _Refused("malformed_json", f"duplicate keys: {sorted(dupes)}")
    return dict(pairs)


def _no_constants(name: str) -> Any:
    raise _Refused("malformed_json", f"non-standard JSON constant {name}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _exact_keys(obj: Mapping[str, Any], required: set[str], optional: set[str], where: str) -> None:
    missing = required - obj.keys()
    if missing:
        raise _Refused("missing_field", f"{where}: missing {sorted(missing)}")
    extra = obj.keys() - required - optional
    if extra:
        raise _Refused("unexpected_field", f"{where}: unexpected {sorted(extra)}")


def _slug_list(value: object, *, rule: str, where: str, allow_empty: bool) -> tuple[str, ...]:
    if not isinstance(value, list) or (not value and not allow_empty):
        raise _Refused(rule, f"{where}: must be a {'' if allow_empty else 'non-empty '}list")
    if not all(is_slug(v) for v in value):
        raise _Refused(rule, f"{where}: every entry must be a lower-case key")
    if len(set(value)) != len(value):
        raise _Refused(rule, f"{where}: duplicate entries")
    return tuple(value)


def _payload(tool: ToolSpec, value: object, where: str) -> dict[str, Any]:
    problem = payload_problem(tool, value)
    if problem is not None:
        raise _Refused("invalid_payload", f"{where}: {problem}")
    assert isinstance(value, dict)
    return dict(value)


def _action(raw: object, index: int, snapshot: Mapping[str, ToolSpec]) -> ProposedAction:
    where = f"actions[{index}]"
    if not isinstance(raw, dict):
        raise _Refused("malformed_action", f"{where}: must be an object")
    _exact_keys(raw, _ACTION_REQUIRED, _ACTION_OPTIONAL, where)
    name = raw["tool"]
    if not isinstance(name, str) or name not in REGISTRY:
        raise _Refused("unknown_tool", f"{where}: unknown tool {name!r}")
    tool = snapshot.get(name)
    if tool is None:
        raise _Refused("tool_not_in_snapshot", f"{where}: {name} is not in the published snapshot")
    projects = _slug_list(
        raw["projects"], rule="malformed_projects", where=where, allow_empty=False
    )
    payload = _payload(tool, raw["payload"], where)
    cost = raw["cost_cents"]
    if not _is_int(cost) or not 0 <= cost <= MAX_CENTS:
        raise _Refused(
            "invalid_cost", f"{where}: cost_cents must be an integer in [0, {MAX_CENTS}]"
        )
    if tool.money_param is not None:
        amount = payload[tool.money_param]
        if not 0 < amount <= MAX_CENTS or cost != amount:
            raise _Refused(
                "invalid_cost",
                f"{where}: cost_cents ({cost}) must equal a positive {tool.money_param} ({amount})",
            )
    justification = raw["justification"]
    if not isinstance(justification, str) or not justification.strip():
        raise _Refused("missing_justification", f"{where}: justification must be non-empty text")
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


def parse_reply(text: str, snapshot: Mapping[str, ToolSpec]) -> ParsedReply | ParseRejection:
    """Turn a model reply into proposed actions, or say exactly why not."""
    try:
        try:
            data = json.loads(
                text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants
            )
        except json.JSONDecodeError as exc:
            raise _Refused("malformed_json", f"not JSON: {exc.msg} at {exc.pos}") from exc
        except ValueError as exc:  # e.g. an integer longer than Python converts
            raise _Refused("malformed_json", f"not JSON: {exc}") from exc
        try:
            # lone surrogates parse, but no canonical form (hash, audit) can hold them
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _Refused("malformed_json", "text is not valid Unicode") from exc
        nul = nul_at(data)
        if nul is not None:
            raise _Refused("forbidden_character", nul)
        if not isinstance(data, dict):
            raise _Refused("malformed_json", "the reply must be one JSON object")
        _exact_keys(data, _REPLY_KEYS, set(), "reply")
        if not isinstance(data["summary"], str):
            raise _Refused("missing_field", "reply.summary must be text")
        actions = data["actions"]
        if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
            raise _Refused("malformed_actions", f"actions must be a list of at most {MAX_ACTIONS}")
        parsed = tuple(_action(raw, i, snapshot) for i, raw in enumerate(actions))
        return ParsedReply(summary=data["summary"], actions=parsed)
    except _Refused as refused:
        return ParseRejection(rule=refused.rule, reason=refused.reason)
    except RecursionError:
        return ParseRejection(rule="malformed_json", reason="nesting too deep")
