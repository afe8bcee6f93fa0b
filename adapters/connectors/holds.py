"""The standing holds register: one row per hold a principal placed through the broker."""

from __future__ import annotations

from datetime import datetime

from adapters.connectors.base import TableConnector
from adapters.store.tables import StandingHoldRow
from domain.governance.ports import ConnectorWrite


class HoldsRegister(TableConnector):
    """Writes standing holds to the ``standing_holds`` table; idempotent by intent id.
    The broker reads the open ones at every decision that moves money."""

    system = "holds"
    action = "place"
    row_type = StandingHoldRow

    def build_row(self, write: ConnectorWrite, now: datetime) -> StandingHoldRow:
        p = write.intent.payload
        return StandingHoldRow(
            intent_id=write.intent.id,
            org_id=write.intent.org_id,
            subject=p["subject"],
            projects=list(write.intent.projects),
            cites=p["cites"] or None,
            reason=p["reason"],
            placed_by=write.intent.principal_id,
            audit_seq=write.token.audit_seq,
            entry_hash=write.token.entry_hash,
            created_at=now,
        )
