"""The wall clock, in one place so tests and processes agree on UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)
