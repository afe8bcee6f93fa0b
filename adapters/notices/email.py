"""Notices by email, through the mail relay's SMTP server."""

from __future__ import annotations

import hashlib

from adapters.relay.smtp import SmtpMailer
from domain.notices import Notice, Reply, smtp_reply
from domain.relay import OutboundEmail


class EmailNotifier:
    """Hands a notice to the SMTP server as a plain-text email to the person."""

    def __init__(self, mailer: SmtpMailer) -> None:
        self._mailer = mailer

    def send(self, notice: Notice) -> Reply:
        # The message id names the notice (a server that saw an attempt whose answer was
        # lost can tell the retry is the same message); hashed, as an id takes no colons.
        key = hashlib.sha256(notice.id.encode()).hexdigest()[:32]
        email = OutboundEmail(
            intent_id=f"notice-{key}",
            org_id=notice.org_id,
            to=notice.address,
            subject=notice.subject,
            body=notice.body,
            attempts=notice.attempts,
        )
        return smtp_reply(*self._mailer.send(email))
