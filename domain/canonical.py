"""Canonical JSON (RFC 8785) and the digests built on it."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    """Serialise ``value`` as RFC 8785 canonical JSON (UTF-8 bytes)."""
    return rfc8785.dumps(value)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """SHA-256 over the canonical JSON form of ``value``."""
    return sha256_hex(canonical_json(value))
