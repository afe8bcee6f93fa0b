"""The mail relay: what became of an email the outbox holds, decided from the SMTP
server's answer, and how that goes on the audit chain.

The outbox row is written with the broker's dispatch (the intent's write); the relay
delivers it later, outside any transaction, and records the outcome: ``delivered`` (2xx),
``bounced`` (a permanent 5xx refusal, or too many attempts), or ``retried`` (a 4xx
refusal or an unreachable server: the next pass tries again). A delivered or bounced
email is never sent again. The chain entry says who, when, the code and the server's
words; never the message's subject or body.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from domain.audit.chain import AuditDraft
from domain.organization.contracts import Frozen

MAX_ATTEMPTS = 5
"""Attempts before a relay gives an email up as bounced."""
RELAY = "relay"
"""The stage of a delivery's chain entry."""
DETAIL_CHARS = 200
"""How much of the server's answer an entry keeps."""


class DeliveryState(StrEnum):
    """Where an outbox email stands."""

    PENDING = "pending"
    SENDING = "sending"
    """Claimed by a relay pass (until :data:`LEASE` runs out: then another may)."""
    DELIVERED = "delivered"
    BOUNCED = "bounced"


LEASE = timedelta(minutes=15)
"""How long a pass's claim on an email keeps other passes off it: longer than a pass
(:data:`PASS_LIMIT` emails of at most a 20-second exchange each), so no two passes send
one email at once; a pass that died releases its claims when the lease runs out."""
PASS_LIMIT = 20
"""Emails one relay pass claims."""


class Outcome(StrEnum):
    """What one attempt came to."""

    DELIVERED = "delivered"
    BOUNCED = "bounced"
    RETRIED = "retried"


class OutboundEmail(Frozen):
    """An email waiting in the outbox."""

    intent_id: str
    org_id: str
    to: str
    subject: str
    body: str
    attempts: int = 0
    """Attempts made so far."""


class Attempt(Frozen):
    """One delivery attempt and what came of it."""

    intent_id: str
    org_id: str
    attempt: int
    """1 for the first."""
    outcome: Outcome
    code: int | None = None
    """The SMTP reply code; None when the server could not be reached."""
    detail: str = ""


def outcome_of(code: int | None, attempt: int, max_attempts: int = MAX_ATTEMPTS) -> Outcome:
    """A 2xx delivers, a 5xx bounces; anything else is retried, until ``max_attempts``."""
    if code is not None and 200 <= code < 300:
        return Outcome.DELIVERED
    if code is not None and 500 <= code < 600:
        return Outcome.BOUNCED
    return Outcome.BOUNCED if attempt >= max_attempts else Outcome.RETRIED


def state_after(outcome: Outcome) -> DeliveryState:
    """The email's state once an attempt came to ``outcome``."""
    if outcome is Outcome.DELIVERED:
        return DeliveryState.DELIVERED
    if outcome is Outcome.BOUNCED:
        return DeliveryState.BOUNCED
    return DeliveryState.PENDING


def attempt_draft(attempt: Attempt) -> AuditDraft:
    """An attempt on the chain (one per attempt: its key), about the email's intent."""
    return AuditDraft(
        event_key=f"relay:{attempt.intent_id}:{attempt.attempt}",
        actor="relay:smtp",
        intent_id=attempt.intent_id,
        decision=attempt.outcome.value,
        stage=RELAY,
        rule=f"email_{attempt.outcome.value}",
        payload={
            "attempt": attempt.attempt,
            "code": attempt.code,
            "detail": attempt.detail[:DETAIL_CHARS],
        },
    )


class RelayInput(Frozen):
    """Deliver up to ``limit`` pending emails (of every organization)."""

    limit: int = PASS_LIMIT


class RelayReport(Frozen):
    """What one pass did."""

    attempts: tuple[Attempt, ...] = ()


class Outbox(Protocol):
    """The email outbox as the relay sees it."""

    def claim(self, limit: int, now: datetime) -> list[OutboundEmail]:
        """Up to ``limit`` emails not yet delivered or bounced (oldest first) that no
        live lease holds, each now claimed for this pass (:data:`LEASE`)."""
        ...

    def record(self, attempt: Attempt, now: datetime) -> None:
        """Keep ``attempt``'s outcome on the row and on the chain, in one transaction
        under the organization's lock (once per attempt: a retried recording adds
        nothing)."""
        ...


class Mailer(Protocol):
    """Something that hands an email to a mail server."""

    def send(self, email: OutboundEmail) -> tuple[int | None, str]:
        """The server's reply code and words (None: it could not be reached)."""
        ...
