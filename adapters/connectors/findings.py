"""The findings register: one row per finding a principal filed through the broker."""

from __future__ import annotations

from datetime import datetime

from adapters.connectors.base import TableConnector
from adapters.store.tables import FindingRow
from domain.governance.ports import ConnectorWrite


class FindingsRegister(TableConnector):
    """Writes findings to the ``findings`` table; idempotent by intent id."""

    system = "findings"
    action = "file"
    row_type = FindingRow

    def build_row(self, write: ConnectorWrite, now: datetime) -> FindingRow:
        p = write.intent.payload
        return FindingRow(
            intent_id=write.intent.id,
            org_id=write.intent.org_id,
            principal_id=write.intent.principal_id,
            kind=p["kind"],
            subject=p["subject"],
            severity=p["severity"],
            summary=p["summary"],
            evidence=[e for e in p["evidence"].split(",") if e],
            cites=p["cites"] or None,
            projects=list(write.intent.projects),
            audit_seq=write.token.audit_seq,
            entry_hash=write.token.entry_hash,
            created_at=now,
        )
