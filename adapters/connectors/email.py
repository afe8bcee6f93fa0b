"""An email outbox: real rows, one per sent intent; a mail relay drains it."""

from __future__ import annotations

from datetime import datetime

from adapters.connectors.base import TableConnector
from adapters.store.tables import EmailRow
from domain.governance.ports import ConnectorWrite


class EmailOutbox(TableConnector):
    """Writes emails to the ``email_outbox`` table; idempotent by intent id."""

    system = "email"
    action = "send"
    row_type = EmailRow

    def build_row(self, write: ConnectorWrite, now: datetime) -> EmailRow:
        p = write.intent.payload
        return EmailRow(
            intent_id=write.intent.id,
            org_id=write.intent.org_id,
            to=p["to"],
            subject=p["subject"],
            body=p["body"],
            audit_seq=write.token.audit_seq,
            entry_hash=write.token.entry_hash,
            created_at=now,
        )
