"""Ports of the audit chain: reading it."""

from __future__ import annotations

from typing import Protocol

from domain.audit.chain import AuditEntry, ChainHead, ChainVerification


class AuditReader(Protocol):
    """Reads and verifies organizations' chains."""

    def entries(self, org_id: str, after_seq: int = 0) -> list[AuditEntry]:
        """Entries after ``after_seq``, in sequence order."""
        ...

    def of_intent(self, org_id: str, intent_id: str) -> list[AuditEntry]:
        """The entries about one intent, in sequence order."""
        ...

    def head(self, org_id: str) -> ChainHead | None: ...

    def verify(self, org_id: str) -> ChainVerification: ...

    def verified_entries(self, org_id: str) -> tuple[ChainVerification, list[AuditEntry]]:
        """The chain verified and its entries, read once (one snapshot): what a reader
        who asks for both is shown is exactly what was verified. Entries after a break
        are read too (a broken chain is still listed whole). The entries may be shared
        with other callers: read-only."""
        ...
