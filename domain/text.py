"""Text that can be stored and hashed everywhere: checks shared by every edge."""

from __future__ import annotations

from collections.abc import Callable, Mapping

NUL = "\x00"


def _nul(text: str) -> str | None:
    return "contains a NUL character (U+0000)" if NUL in text else None


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored and hashed everywhere, or None.

    PostgreSQL text cannot hold NUL, so text with one would be accepted on SQLite and
    fail on PostgreSQL; a lone surrogate has no UTF-8 form, so nothing can hash it.
    """
    if NUL in text:
        return _nul(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (it holds a lone surrogate)"
    return None


def _first(value: object, where: str, check: Callable[[str], str | None]) -> str | None:
    """``"<path> <problem>"`` for the first string or key of ``value`` that ``check``
    refuses, walking nested lists and objects; None when it accepts them all."""
    if isinstance(value, str):
        problem = check(value)
        return None if problem is None else f"{where or 'text'} {problem}"
    if isinstance(value, Mapping):
        for key, item in value.items():
            problem = check(key) if isinstance(key, str) else None
            if problem is not None:
                return f"a key of {where or 'the object'} {problem}"
            found = _first(item, f"{where}.{key}" if where else str(key), check)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _first(item, f"{where}[{i}]", check)
            if found is not None:
                return found
    return None


def unstorable_at(value: object) -> str | None:
    """Where in ``value`` some text cannot be stored, and why (``"task contains a NUL
    character (U+0000)"``); None when all of it can."""
    return _first(value, "", unstorable)


def nul_at(value: object) -> str | None:
    """Where in ``value`` a NUL character occurs (``"task contains a NUL character
    (U+0000)"``); None when there is none."""
    return _first(value, "", _nul)
