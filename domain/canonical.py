"""Canonical JSON (RFC 8785) and the digests built on it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785

_INT_MAX = 2**53 - 1
"""RFC 8785 numbers are IEEE doubles: larger integers are not exact (the encoder refuses
them)."""


def _plain(value: Any) -> bool:
    """True when the standard library's sorted, compact JSON of ``value`` is its RFC 8785
    form byte for byte: plain strings, exact integers, booleans, null, lists and objects
    whose keys are ASCII (so that code-point order is UTF-16 order). Python's JSON escapes
    exactly the characters RFC 8785 escapes, the same way."""
    stack = [value]
    while stack:  # a loop, not recursion: this runs for every entry and intent
        item = stack.pop()
        kind = type(item)
        if kind is str or item is None or kind is bool:
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
