"""Ports of governance: connectors the broker dispatches to, and its unit of work."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from domain.audit.chain import AuditDraft, AuditEntry
from domain.governance.intents import Decision, DispatchResult, DispatchToken, Intent
from domain.governance.values import BrokerSnapshot, Effects, StoredIntent
from domain.organization.contracts import Frozen, Principal, Staffing, ToolSpec


class ConnectorWrite(Frozen):
    """A write the broker allowed, with the token naming its audited decision."""

    intent: Intent
    tool: ToolSpec
    token: DispatchToken


class Connector(Protocol):
    """An outside system reachable only through the broker's dispatch path."""

    @property
    def system(self) -> str:
        """The outside system this connector writes to."""
        ...

    @property
    def actions(self) -> frozenset[str]:
        """The actions of ``system`` this connector performs."""
        ...

    def write(self, write: ConnectorWrite) -> DispatchResult:
        """Perform the write once per intent id, and record it (the ``dispatched`` audit
        entry) in the same commit; a replay returns the first result. Refuses with
        :class:`~domain.errors.BrokerPoisoned` for a poisoned broker and
        :class:`~domain.errors.TokenRefused` for a token that does not permit the write."""
        ...


class GovernanceUnit(Protocol):
    """One organization's governance state inside one transaction under its lock.

    Everything read here is as of the lock; everything written commits together when the
    unit ends without an error. Storage failures raise
    :class:`~domain.errors.StoreFailure`.
    """

    def poisoned(self) -> str | None:
        """Why the organization's broker is poisoned, or None."""
        ...

    def stored(self, intent_id: str) -> StoredIntent | None:
        """The intent as recorded, if it is this organization's."""
        ...

    def latest(self, intent_id: str) -> Decision | None:
        """The intent's newest decision, if it has one."""
        ...

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        """What the broker reads to decide ``intent`` now."""
        ...

    def principal(self, principal_id: str) -> tuple[Principal | None, tuple[Staffing, ...]]:
        """A principal of any organization and its staffing rows."""
        ...

    def project_names(self) -> Mapping[str, str]:
        """The organization's projects' names, by slug (what a refusal names them by)."""
        ...

    def recorded(self, event_key: str) -> AuditEntry | None:
        """The entry appended under ``event_key`` before, if any."""
        ...

    def record(
        self, intent: Intent, decision: Decision, effects: Effects, draft: AuditDraft
    ) -> Decision:
        """Store ``decision`` (and the intent, the first time), apply ``effects``, append
        ``draft``; the decision with its audit sequence and hash."""
        ...

    def append(self, draft: AuditDraft) -> AuditEntry:
        """Append ``draft`` to the chain (idempotent by its event key)."""
        ...

    def poison(self, draft: AuditDraft, reason: str) -> None:
        """Mark the organization's broker poisoned, on the record."""
        ...

    def unpoison(self, draft: AuditDraft) -> None:
        """Clear the poison, on the record."""
        ...


class GovernanceStore(Protocol):
    """Hands out governance units and dispatch tokens."""

    def unit(self, org_id: str, now: datetime) -> AbstractContextManager[GovernanceUnit]:
        """Lock ``org_id`` and open a unit whose appends carry ``now``."""
        ...

    def token_for(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        """The intent ``decision`` is about and the token naming it (the connector checks
        the token, in the write's own transaction)."""
        ...
