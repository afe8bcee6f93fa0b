"""The error vocabulary: what adapters raise and use cases and activities catch by name.

A decision is a returned value, never an exception (the broker is total). These are
for the other cases: a request that cannot be served as asked.
"""

from __future__ import annotations


class NotFound(LookupError):
    """No such thing, or none the acting principal may know of."""


class UnknownOrganization(NotFound):
    """No such organization: there is no chain to record anything on."""


class Conflict(ValueError):
    """The request contradicts what is stored (a duplicate key, a wrong state)."""


class Refused(ValueError):
    """Input that screening refuses (instruction-like text), with the reasons."""


class Forbidden(PermissionError):
    """The acting principal may not do this."""


class Unavailable(RuntimeError):
    """An outside system (Temporal, say) cannot be reached; the request can be retried."""


class FoundationBroken(RuntimeError):
    """A dispatch invariant failed: an allowing entry is missing, altered or not the
    intent's; the audit foundation cannot be trusted and the broker is poisoned."""


class TokenRefused(PermissionError):
    """A connector refused a dispatch token: it does not name an audited allow of this
    very intent, or the intent was closed since."""

    def __init__(self, reason: str, foundation: bool = False) -> None:
        super().__init__(reason)
        self.foundation = foundation
        """True when the record itself is broken (the broker must be poisoned)."""


class BrokerPoisoned(RuntimeError):
    """The organization's broker is poisoned: it decides nothing and dispatches nothing
    until a human clears it after a successful verification."""


class StoreFailure(RuntimeError):
    """The database failed (unreachable, a lock timeout, an error it raised); the
    operation may be retried."""
