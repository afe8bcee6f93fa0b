"""Text that can be stored and hashed everywhere: checks shared by every edge."""

from __future__ import annotations

from collections.abc import Mapping

NUL = "\x00"


def nul_at(value: object, where: str = "") -> str | None:
    """Where in ``value`` (strings, keys, nested lists and objects) a NUL character
    (U+0000) occurs, as a dotted path; None when there is none.

    PostgreSQL text cannot hold NUL, so text with one would be accepted on SQLite and
    fail on PostgreSQL: every edge refuses it instead.
    """
    if isinstance(value, str):
        return where or "text" if NUL in value else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and NUL in key:
                return f"{where or 'object'} (a key)"
            found = nul_at(item, path)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = nul_at(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None
