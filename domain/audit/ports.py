"""Ports of the audit chain: reading it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from domain.audit.bundle import Bundle, ConsistencyProof, InclusionProof
from domain.audit.chain import AuditEntry, ChainHead, ChainVerification
from domain.audit.checkpoint import SignedNote


class AuditError(RuntimeError):
    """The chain cannot be appended to or proved from (no head: an unknown organization;
    a tree without the nodes a proof needs)."""


class AuditReader(Protocol):
    """Reads and verifies organizations' chains."""

    def entries(self, org_id: str, after_seq: int = 0) -> list[AuditEntry]:
        """Entries after ``after_seq``, in sequence order."""
        ...

    def of_intent(self, org_id: str, intent_id: str) -> list[AuditEntry]:
        """The entries about one intent, in sequence order."""
        ...

    def head(self, org_id: str) -> ChainHead | None: ...

    def verify(self, org_id: str, anchored: str | None = None) -> ChainVerification:
        """Every hash, link, signature and cross-check, the tree against every checkpoint,
        and against ``anchored`` (a checkpoint kept outside the database) when given."""
        ...

    def verified_entries(
        self, org_id: str, anchored: str | None = None
    ) -> tuple[ChainVerification, list[AuditEntry]]:
        """The chain verified and its entries, read once (one snapshot): what a reader
        who asks for both is shown is exactly what was verified. Entries after a break
        are read too (a broken chain is still listed whole). The entries may be shared
        with other callers: read-only."""
        ...

    def inclusion(self, org_id: str, seq: int, now: datetime) -> InclusionProof:
        """The proof that entry ``seq`` is in the newest checkpoint (cut now if needed)."""
        ...

    def consistency(self, org_id: str, old: int, new: int) -> ConsistencyProof:
        """The proof that the checkpoint of ``new`` entries extends that of ``old``."""
        ...

    def checkpoints(self, org_id: str, since: int = 0) -> list[str]:
        """The checkpoints of more than ``since`` entries, as signed notes, by size."""
        ...

    def export(self, org_id: str, now: datetime, anchored: str | None = None) -> Bundle:
        """The chain as a bundle for an offline verifier."""
        ...

    def log_keys(self) -> list[str]:
        """The public keys (vkeys) that sign checkpoints, oldest first."""
        ...


class AnchoredLog(Protocol):
    """What the anchor needs of the chains: cut checkpoints, and check that a chain still
    extends what was anchored."""

    def org_ids(self) -> list[str]:
        """Every organization with a chain."""
        ...

    def checkpoint(self, org_id: str, now: datetime) -> SignedNote | None:
        """Cut a checkpoint if the newest does not cover every entry."""
        ...

    def newest_checkpoint(self, org_id: str) -> str | None:
        """The newest checkpoint, as a signed note."""
        ...

    def extends(self, org_id: str, anchored: str | None, newest: str) -> str | None:
        """Why the stored chain and ``newest`` do not extend ``anchored``; None if they do."""
        ...

    def consistency_path(self, org_id: str, old: int, new: int) -> list[bytes]:
        """The consistency proof from the tree of ``old`` entries to that of ``new``,
        from the stored tree (checked by whoever receives it)."""
        ...

    def add_cosignature(self, org_id: str, size: int, lines: Sequence[str]) -> None:
        """Add witnesses' cosignature lines to the stored checkpoint of ``size``."""
        ...
