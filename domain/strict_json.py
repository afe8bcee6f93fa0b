"""Strict JSON for what a model says: nothing repaired, every oddity refused by name.

A model's reply is read with duplicate keys, non-standard constants (``NaN``,
``Infinity``), lone surrogates and NUL characters all refused, each with a rule that
ends up in the audit chain. The action parser and the commitment extractor share it.
"""

from __future__ import annotations

import json
from typing import Any

from domain.text import nul_at


class Refused(Exception):
    """A reply refused: ``rule`` names why (for the record), ``reason`` says where."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise Refused("malformed_json", f"duplicate keys: {sorted(dupes)}")
    return dict(pairs)


def _no_constants(name: str) -> Any:
    raise Refused("malformed_json", f"non-standard JSON constant {name}")


def is_int(value: object) -> bool:
    """An integer, and not a bool (which JSON's ``true`` would otherwise pass for)."""
    return isinstance(value, int) and not isinstance(value, bool)


def load(text: str) -> Any:
    """``text`` as JSON, or :class:`Refused` with the rule that refuses it."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise Refused("malformed_json", f"not JSON: {exc.msg} at {exc.pos}") from exc
    except ValueError as exc:  # e.g. an integer longer than Python converts
        raise Refused("malformed_json", f"not JSON: {exc}") from exc
    try:
        # lone surrogates parse, but no canonical form (hash, audit) can hold them
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Refused("malformed_json", "text is not valid Unicode") from exc
    nul = nul_at(data)
    if nul is not None:
        raise Refused("forbidden_character", nul)
    return data
