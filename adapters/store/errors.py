"""Errors the store raises for requests that contradict what is stored."""

from __future__ import annotations


class Conflict(ValueError):
    """The request contradicts what is stored (duplicate key, wrong state)."""


class NotFound(LookupError):
    """No such record in this organization."""
