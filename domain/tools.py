"""The tool registry: every tool an agent may ever propose, and its connector."""

from __future__ import annotations

from domain.model import ParamType, ToolSpec

PAYMENTS_PAY = ToolSpec(
    name="payments.pay",
    system="payments",
    action="pay",
    description="Pay a vendor from the firm's ledger. amount_cents is in cents.",
    params={
        "payee": ParamType.STRING,
        "invoice": ParamType.STRING,
        "amount_cents": ParamType.INTEGER,
        "currency": ParamType.STRING,
        "memo": ParamType.STRING,
    },
    resource_param="invoice",
    money_param="amount_cents",
    approval_over_cents=100_000,
    repeatable=False,
)

EMAIL_SEND = ToolSpec(
    name="email.send",
    system="email",
    action="send",
    description="Send an email to a client or counterparty.",
    params={"to": ParamType.STRING, "subject": ParamType.STRING, "body": ParamType.STRING},
    resource_param="to",
)

REGISTRY: dict[str, ToolSpec] = {tool.name: tool for tool in (PAYMENTS_PAY, EMAIL_SEND)}
"""Published tools by name."""
