"""Which checks of a contract a subject fails: how the suites show they can fail."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

S = TypeVar("S")


def failed_checks(checks: Iterable[Callable[[S], None]], subject: Callable[[], S]) -> list[str]:
    """The names of the ``checks`` that fail (an AssertionError) on a fresh ``subject()``."""
    failed = []
    for check in checks:
        try:
            check(subject())
        except AssertionError:
            failed.append(check.__name__)
    return failed
