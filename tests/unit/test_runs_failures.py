"""Every failure has a class a human can act on, and a retry bound by class; the class
comes from the rule, and every rule the code can end a run with has one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.runs.failures import (
    BY_RULE,
    NOT_FAILURES,
    RETRIES,
    ErrorType,
    FailureClass,
    classify,
    retries_left,
)

ROOT = Path(__file__).resolve().parents[2]

EMITTERS: dict[str, dict[str, int]] = {
    "domain/governance/broker.py": {"Reject": 0, "Hold": 0},
    "domain/runs/resolution.py": {"ResolveRefusal": -1},
    "domain/runs/parser.py": {"Refused": 0, "ParseRejection": -1, "_slug_list": -1},
    "domain/strict_json.py": {"Refused": 0},
    "domain/governance/review.py": {"ReviewResult": -1},
    "usecases/governance.py": {"rejection": 2},
    "usecases/governance_review.py": {"rejection": 2},
    "workflows/runs.py": {"_close": 2, "_close_unfinished": 1, "_record_failure": 1},
    "workflows/heartbeat.py": {"_close": 2},
}
"""Where a rule that can end a run is written, and how: the call, and the position of
its rule among the call's arguments (-1: only as the keyword ``rule``)."""


def _module(path: str) -> object:
    return importlib.import_module(path.removesuffix(".py").replace("/", "."))


def emitted_rules() -> dict[str, str]:
    """Every rule the modules above can emit, read from their source (a literal, or a
    module constant), with where it was found."""
    found: dict[str, str] = {}
    for path, calls in EMITTERS.items():
        module = _module(path)
        for node in ast.walk(ast.parse((ROOT / path).read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in calls:
                continue
            values = [kw.value for kw in node.keywords if kw.arg == "rule"]
            at = calls[name]
            if 0 <= at < len(node.args):
                values.append(node.args[at])
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[value.value] = f"{path}:{node.lineno}"
                elif isinstance(value, ast.Name) and isinstance(
                    getattr(module, value.id, None), str
                ):
                    found[getattr(module, value.id)] = f"{path}:{node.lineno}"
    return found


EMITTED = emitted_rules()


def test_the_rules_are_read_from_the_code() -> None:
    """A probe that the reading bites: rules of every source are found."""
    for rule in (
        "barrier_crossed",  # broker, Reject
        "money_over_threshold",  # broker, Hold
        "registry_pin_mismatch",  # resolution
        "tool_not_in_snapshot",  # parser
        "malformed_projects",  # parser, keyword
        "denied_by_authority",  # review
        "broker_error",  # usecases, a constant
        "hold_expired",  # workflow, positional
        "run_cancelled",  # workflow, _record_failure
        "heartbeat_does_not_wait",  # heartbeat, a constant
    ):
        assert rule in EMITTED, rule
    assert len(EMITTED) >= 45


def test_every_emitter_named_is_called_in_its_module() -> None:
    """A call renamed or moved is not silently read as "emits nothing"."""
    missing = []
    for path, calls in EMITTERS.items():
        named = set()
        for node in ast.walk(ast.parse((ROOT / path).read_text())):
            if isinstance(node, ast.Call):
                func = node.func
                named.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", None))
        missing += [f"{path}: {call}" for call in calls if call not in named]
    assert missing == []


@pytest.mark.parametrize("rule", sorted(EMITTED))
def test_every_rule_the_code_can_emit_has_a_class(rule: str) -> None:
    assert rule in BY_RULE or rule in NOT_FAILURES, f"{rule} ({EMITTED[rule]}) has no class"


def test_no_class_is_given_to_a_rule_the_code_never_emits() -> None:
    assert set(BY_RULE) - set(EMITTED) == set()


@pytest.mark.parametrize(
    ("rule", "error_type", "expected"),
    [
        ("charter_unpublished", "", FailureClass.AUTHORITY),
        ("registry_pin_mismatch", "", FailureClass.AUTHORITY),
        ("malformed_json", "", FailureClass.VALIDATION),
        ("tool_outside_charter", "", FailureClass.AUTHORITY),
        ("not_staffed", "", FailureClass.AUTHORITY),
        ("barrier_crossed", "", FailureClass.BARRIER),
        ("spend_cap", "", FailureClass.COMMITMENT),
        ("standing_hold", "", FailureClass.COMMITMENT),
        ("denied_by_authority", "", FailureClass.COMMITMENT),
        ("collision", "", FailureClass.COLLISION),
        ("hold_expired", "", FailureClass.COMMITMENT),
        ("spend_cap+already_done", "", FailureClass.COLLISION),
        ("money_over_threshold+spend_cap", "", FailureClass.COMMITMENT),
        ("dispatch_failed", "", FailureClass.INFRASTRUCTURE),
        # issue 19.3: what read as authority
        ("broker_error", "", FailureClass.INFRASTRUCTURE),
        ("broker_poisoned", "", FailureClass.INFRASTRUCTURE),
        ("invalid_payload", "", FailureClass.VALIDATION),
        ("unknown_tool", "", FailureClass.VALIDATION),
        ("unknown_project", "", FailureClass.VALIDATION),
        ("run_failed", ErrorType.MODEL_UNAVAILABLE, FailureClass.MODEL),
        ("run_failed", ErrorType.POLICY_VIOLATION, FailureClass.AUTHORITY),
        ("run_failed", ErrorType.INVALID_INPUT, FailureClass.VALIDATION),
        ("run_failed", ErrorType.DISPATCH_REFUSED, FailureClass.INFRASTRUCTURE),
        ("run_cancelled", "", FailureClass.INFRASTRUCTURE),
        ("unknown", "", FailureClass.INFRASTRUCTURE),
    ],
)
def test_each_failure_has_its_class(rule: str, error_type: str, expected: FailureClass) -> None:
    assert classify(rule, error_type) is expected


def test_a_database_failure_is_never_an_authority_failure_with_no_retry() -> None:
    """The defect: a database failure, recorded as broker_error at identity & charter, was
    shown as an authority failure with 0 retries and 'check the agent's charter'."""
    failure = classify("broker_error")
    assert failure is FailureClass.INFRASTRUCTURE and RETRIES[failure] > 0


def test_what_a_retry_cannot_cure_is_not_retried() -> None:
    for never in (FailureClass.AUTHORITY, FailureClass.BARRIER, FailureClass.COMMITMENT):
        assert RETRIES[never] == 0 and retries_left(never, 0) == 0
    assert retries_left(FailureClass.MODEL, 0) == RETRIES[FailureClass.MODEL] > 0


@given(parts=st.lists(st.sampled_from(sorted(BY_RULE)), min_size=1, max_size=4))
def test_a_joined_rule_is_one_of_its_parts_classes(parts: list[str]) -> None:
    assert classify("+".join(parts)) in {BY_RULE[p] for p in parts}


@given(failure=st.sampled_from(FailureClass), tries=st.integers(min_value=0, max_value=50))
def test_retries_left_count_down_to_zero_and_never_below(failure: FailureClass, tries: int) -> None:
    left = retries_left(failure, tries)
    assert 0 <= left <= RETRIES[failure]
    assert left == max(RETRIES[failure] - tries, 0)
