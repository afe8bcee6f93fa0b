"""The tool registry: every tool an agent may ever propose, and its connector."""

from __future__ import annotations

from domain.organization.contracts import ToolSpec
from domain.organization.kinds import ParamType

PAYMENTS_PAY = ToolSpec(
    name="payments.pay",
    system="payments",
    action="pay",
    description="Pay a vendor from the firm's ledger. amount_cents is in cents; account "
    "(optional) is the bank account paid to, when not the payee's usual one.",
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
    payee_param="payee",
    account_param="account",
    optional_params={"account": ParamType.STRING},
    repeatable=False,
)

EMAIL_SEND = ToolSpec(
    name="email.send",
    system="email",
    action="send",
    description="Send an email to a client or counterparty.",
    params={"to": ParamType.STRING, "subject": ParamType.STRING, "body": ParamType.STRING},
    resource_param="to",
    recipient_param="to",
    content_params=("subject", "body"),
)

FINDINGS_FILE = ToolSpec(
    name="findings.file",
    system="findings",
    action="file",
    description="File a finding for a human: what was found (kind, a stable subject), how "
    "urgent (severity), a summary, the ids it rests on (evidence, comma-separated) and the "
    "commitment it cites (or empty).",
    params={
        "kind": ParamType.STRING,
        "subject": ParamType.STRING,
        "severity": ParamType.STRING,
        "summary": ParamType.STRING,
        "evidence": ParamType.STRING,
        "cites": ParamType.STRING,
    },
    resource_param="subject",
    # One situation is filed once: a second filing of a subject is the broker's to stop
    # (a collision while the first is in flight, already done once it is written), so
    # that heartbeats running at once cannot both file it from their own snapshots.
    repeatable=False,
)

KEYS_CLOSE = ToolSpec(
    name="keys.close",
    system="keys",
    action="close",
    description="Close an intent whose run ended without closing it: its open hold is "
    "expired and its operation keys are released, on the record.",
    params={"intent_id": ParamType.STRING, "reason": ParamType.STRING},
    resource_param="intent_id",
)

HOLDS_PLACE = ToolSpec(
    name="holds.place",
    system="holds",
    action="place",
    description="Place a standing hold on the intent's projects: until a human releases "
    "it, every intent that moves money on them waits for a human's approval. Give a "
    "stable subject (one hold per subject), the commitment it cites (or empty) and why.",
    params={"subject": ParamType.STRING, "cites": ParamType.STRING, "reason": ParamType.STRING},
    resource_param="subject",
    repeatable=False,
)

WEBHOOK_POST = ToolSpec(
    name="webhook.post",
    system="webhook",
    action="post",
    description="Post an event to another system the firm configured (target: its name, "
    "never a URL): the event's name and a body of text; signed, delivered once.",
    params={"target": ParamType.STRING, "event": ParamType.STRING, "body": ParamType.STRING},
    resource_param="target",
)

REGISTRY: dict[str, ToolSpec] = {
    tool.name: tool
    for tool in (PAYMENTS_PAY, EMAIL_SEND, FINDINGS_FILE, KEYS_CLOSE, HOLDS_PLACE, WEBHOOK_POST)
}
"""Published tools by name."""
