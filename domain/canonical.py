"""Canonical JSON (RFC 8785) and the digests built on it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785

_INT_MAX = 2**53 - 1
"""RFC 8785 numbers are IEEE doubles: larger integers are not exact (the encoder refuses
them)."""


class CheckedObject(dict[str, Any]):
    """A JSON object that :func:`loads_checked` found plain (see :func:`_plain`), so that
    canonicalising it needs no second walk. Treat it as read-only: the check holds for the
    contents it was made with."""

    __slots__ = ()


def loads_checked(text: str | bytes) -> Any:
    """Parse JSON ``text``; an object whose every number is an exact integer and every
    key ASCII comes back as a :class:`CheckedObject`. The checks ride on the parser's own
    hooks (they run for numbers and objects only), which costs far less than walking the
    value afterwards."""
    plain = True

    def real(token: str) -> float:
        nonlocal plain
        plain = False
        return float(token)

    def integer(token: str) -> int:
        nonlocal plain
        value = int(token)
        if not -_INT_MAX <= value <= _INT_MAX:
            plain = False
        return value

    def obj(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal plain
        if plain:
            for key, _ in pairs:
                if not key.isascii():
                    plain = False
                    break
        return dict(pairs)

    if isinstance(text, bytes):
        text = text.decode("utf-8")
    # ASCII text without escapes has ASCII keys: no need to look at each object.
    keys_ascii = text.isascii() and "\\u" not in text
    value = json.loads(
        text,
        parse_float=real,
        parse_int=integer,
        parse_constant=real,
        object_pairs_hook=None if keys_ascii else obj,
    )
    return CheckedObject(value) if plain and type(value) is dict else value


def _plain(value: Any) -> bool:
    """True when the standard library's sorted, compact JSON of ``value`` is its RFC 8785
    form byte for byte: plain strings, exact integers, booleans, null, lists and objects
    whose keys are ASCII (so that code-point order is UTF-16 order). Python's JSON escapes
    exactly the characters RFC 8785 escapes, the same way."""
    stack = [value]
    while stack:  # a loop, not recursion: this runs for every entry and intent
        item = stack.pop()
        kind = type(item)
        if kind is str or item is None or kind is bool or kind is CheckedObject:
            continue
        if kind is int:
            if not -_INT_MAX <= item <= _INT_MAX:
                return False
        elif kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:  # floats, enums and other subclasses: the exact encoder decides
            return False
    return True


def canonical_json(value: Any) -> bytes:
    """Serialise ``value`` as RFC 8785 canonical JSON (UTF-8 bytes).

    Values made of strings, integers and objects with ASCII keys (every audit entry and
    intent this project writes) take the standard library's C encoder, several times
    faster; anything else takes the reference encoder. Both give the same bytes (a
    property test holds them to it)."""
    if _plain(value):
        try:
            return json.dumps(
                value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
            ).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the reference encoder refuses it
            pass
    return rfc8785.dumps(value)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """SHA-256 over the canonical JSON form of ``value``."""
    return sha256_hex(canonical_json(value))
