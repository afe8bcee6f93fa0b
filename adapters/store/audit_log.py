"""The audit chain in the database: append under the org's head lock, read, verify."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select, update
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.session import Database
from adapters.store.tables import AuditEntryRow, AuditHeadRow, OrgRow
from domain.audit import AuditDraft, AuditEntry, ChainHead, ChainVerification, link, verify_chain


class AuditError(RuntimeError):
    """The chain cannot be appended to (no head: unknown organization)."""


def lock_head(session: Session, org_id: str) -> ChainHead:
    """Read the org's chain head under a row lock; serialises appends and broker decisions."""
    row = session.execute(
        select(col(AuditHeadRow.seq), col(AuditHeadRow.entry_hash))
        .where(col(AuditHeadRow.org_id) == org_id)
        .with_for_update()
    ).first()
    if row is None:
        raise AuditError(f"organization {org_id} has no audit chain")
    return ChainHead(seq=row.seq, entry_hash=row.entry_hash)


def append(session: Session, org_id: str, draft: AuditDraft, now: datetime) -> AuditEntry:
    """Append ``draft`` (idempotent by event key) inside the caller's transaction.

    A plain SQL insert, not an ORM round trip: this is the hot path of every decision.
    """
    head = lock_head(session, org_id)
    existing = session.execute(
        select(AuditEntryRow).where(
            col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.event_key) == draft.event_key
        )
    ).scalar_one_or_none()
    if existing is not None:
        return convert.audit_entry(existing)
    entry = link(org_id, head, draft, now.isoformat(timespec="microseconds"))
    session.execute(insert(AuditEntryRow).values(**entry.model_dump()))
    session.execute(
        update(AuditHeadRow)
        .where(col(AuditHeadRow.org_id) == org_id)
        .values(seq=entry.seq, entry_hash=entry.entry_hash)
    )
    return entry


class AuditLog:
    """Reads and verifies organizations' chains."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def append(self, org_id: str, draft: AuditDraft, now: datetime) -> AuditEntry:
        """Append one entry in its own transaction."""
        with self._db.transaction() as s:
            return append(s, org_id, draft, now)

    def entries(
        self, org_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[AuditEntry]:
        """Entries in sequence order."""
        with self._db.transaction() as s:
            query = (
                select(AuditEntryRow)
                .where(col(AuditEntryRow.org_id) == org_id, col(AuditEntryRow.seq) > after_seq)
                .order_by(col(AuditEntryRow.seq))
            )
            if limit is not None:
                query = query.limit(limit)
            return [convert.audit_entry(r) for r in s.execute(query).scalars()]

    def head(self, org_id: str) -> ChainHead | None:
        """The org's chain head, or None for an unknown org."""
        with self._db.transaction() as s:
            row = s.get(AuditHeadRow, org_id)
            return None if row is None else ChainHead(seq=row.seq, entry_hash=row.entry_hash)

    def verify(self, org_id: str) -> ChainVerification:
        """Recompute every hash and link of the org's chain, and compare with its head."""
        with self._db.transaction() as s:
            rows = s.execute(
                select(AuditEntryRow)
                .where(col(AuditEntryRow.org_id) == org_id)
                .order_by(col(AuditEntryRow.seq))
            ).scalars()
            entries = (convert.audit_entry(r) for r in rows)
            head_row = s.get(AuditHeadRow, org_id)
            head = (
                None
                if head_row is None
                else ChainHead(seq=head_row.seq, entry_hash=head_row.entry_hash)
            )
            return verify_chain(entries, head)

    def verify_all(self) -> dict[str, ChainVerification]:
        """Verify every organization's chain; used when a worker starts its broker."""
        with self._db.transaction() as s:
            org_ids = list(s.execute(select(col(OrgRow.id))).scalars())
        return {org_id: self.verify(org_id) for org_id in org_ids}
