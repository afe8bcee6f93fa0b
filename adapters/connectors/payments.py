"""A payments ledger sandbox: real rows, one per paid intent."""

from __future__ import annotations

from datetime import datetime

from adapters.connectors.base import TableConnector
from adapters.store.tables import PaymentRow
from domain.governance.ports import ConnectorWrite


class PaymentsLedger(TableConnector):
    """Writes payments to the ``payments_ledger`` table; idempotent by intent id."""

    system = "payments"
    action = "pay"
    row_type = PaymentRow

    def build_row(self, write: ConnectorWrite, now: datetime) -> PaymentRow:
        p = write.intent.payload
        return PaymentRow(
            intent_id=write.intent.id,
            org_id=write.intent.org_id,
            payee=p["payee"],
            invoice=p["invoice"],
            amount_cents=p["amount_cents"],
            currency=p["currency"],
            memo=p["memo"],
            account=p.get("account"),
            audit_seq=write.token.audit_seq,
            entry_hash=write.token.entry_hash,
            created_at=now,
        )
