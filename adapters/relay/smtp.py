"""Delivery through an SMTP server (the mail relay's :class:`~domain.relay.Mailer`)."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import make_msgid

from domain.relay import OutboundEmail

TIMEOUT_SECONDS = 20.0
NOT_BUILDABLE = 554
"""The code a message that cannot be built is given: a permanent failure, as SMTP's."""


class SmtpMailer:
    """Hands each email to one SMTP server, with STARTTLS and a login when configured.
    The message id names the intent, so a server that saw an attempt whose answer was
    lost can tell the retry is the same message."""

    def __init__(
        self,
        host: str,
        port: int,
        sender: str,
        starttls: bool = False,
        username: str | None = None,
        password: str | None = None,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self._host, self._port, self._sender = host, port, sender
        self._starttls, self._username, self._password = starttls, username, password
        self._timeout = timeout

    def _message(self, email: OutboundEmail) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self._sender
        message["To"] = email.to
        message["Subject"] = email.subject
        message["Message-ID"] = make_msgid(idstring=email.intent_id, domain="verletica.invalid")
        message.set_content(email.body)
        return message

    def send(self, email: OutboundEmail) -> tuple[int | None, str]:
        try:
            message = self._message(email)
        except (ValueError, TypeError) as exc:
            # A header no server could take (a line break in the address or subject):
            # no attempt will do better, so it bounces here, never reaching the server.
            return NOT_BUILDABLE, f"the message could not be built: {type(exc).__name__}"
        server: smtplib.SMTP | None = None
        try:
            server = smtplib.SMTP(self._host, self._port, timeout=self._timeout)
            if self._starttls:
                server.starttls(context=ssl.create_default_context())
            if self._username is not None and self._password is not None:
                server.login(self._username, self._password)
            refused = server.send_message(message)
        except smtplib.SMTPRecipientsRefused as exc:
            code, words = next(iter(exc.recipients.values()))
            return code, _text(words)
        except smtplib.SMTPResponseException as exc:
            return exc.smtp_code, _text(exc.smtp_error)
        except (OSError, smtplib.SMTPException) as exc:
            return None, f"{type(exc).__name__}: {exc}"
        finally:
            _quit(server)
        if refused:
            code, words = next(iter(refused.values()))
            return code, _text(words)
        return 250, "accepted"


def _quit(server: smtplib.SMTP | None) -> None:
    """Say goodbye; what the server answers to QUIT changes nothing that was decided
    (a message it accepted stays delivered)."""
    if server is None:
        return
    try:
        server.quit()
    except (OSError, smtplib.SMTPException):
        server.close()


def _text(words: bytes | str) -> str:
    return words.decode("utf-8", "replace") if isinstance(words, bytes) else str(words)
