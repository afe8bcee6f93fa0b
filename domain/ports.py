"""Ports: what the domain and activities need from the outside world.

Adapters implement these Protocols; the domain and the activities only see them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field

from domain.audit import AuditEntry
from domain.intents import ApprovalRequest, Decision, DispatchResult, DispatchToken, Intent
from domain.model import AgentDefinition, Charter, Frozen, Principal, Staffing, ToolSpec

if TYPE_CHECKING:  # the broker module imports this one
    from domain.broker import BrokerSnapshot, ReviewResult


class ClaimRegistry(Protocol):
    """Atomic check-and-register of in-flight operation keys."""

    def claim(self, key: str, intent_id: str) -> str | None:
        """Register ``key`` for ``intent_id``; return the other holder if already held."""
        ...


class ModelRequest(Frozen):
    """One reasoning call: everything the model sees."""

    agent_handle: str
    task: str
    system_prompt: str
    prompt: str
    scripted_reply: str | None = None
    """Only the scripted provider honours this: the exact reply text."""


class ModelReply(Frozen):
    """The model's raw text and where it came from."""

    text: str
    provider: str
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None


class ModelProvider(Protocol):
    """Generates one reply for one request."""

    name: str

    async def generate(self, request: ModelRequest) -> ModelReply:
        """Return the model's reply text; raise on transport failure."""
        ...


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
        entry) in the same commit; a replay returns the first result."""
        ...


class RecallResult(Frozen):
    """What a memory read gave one asker."""

    released: tuple[str, ...] = ()
    """Texts released to the asker."""
    released_refs: tuple[str, ...] = ()
    withheld: int = Field(default=0, ge=0)


class AgentDirectory(Protocol):
    """What the resolve and reasoning steps read of the directory."""

    def find_principal(self, principal_id: str) -> Principal | None: ...

    def agent_profile(self, principal_id: str) -> tuple[AgentDefinition | None, Charter | None]: ...

    def staffing(self, org_id: str, principal_id: str | None = None) -> list[Staffing]: ...


class MemoryRecall(Protocol):
    """The gated read path of the memory bank."""

    def recall(
        self, *, asker_principal_id: str, org_id: str, query: str, now: datetime, limit: int = 5
    ) -> RecallResult: ...


class GovernanceLedger(Protocol):
    """The broker's transactions: each decision is persisted and audited atomically."""

    def decide(
        self,
        intent: Intent,
        now: datetime,
        policy: Callable[[Intent, BrokerSnapshot, ClaimRegistry], Decision],
    ) -> Decision: ...

    def review(
        self,
        org_id: str,
        run_id: str,
        request: ApprovalRequest,
        attempt: int,
        now: datetime,
        policy: Callable[..., ReviewResult],
        recheck: Callable[[Intent, BrokerSnapshot, ClaimRegistry], Decision],
    ) -> tuple[ReviewResult, Decision | None]: ...

    def expire(
        self, org_id: str, intent_id: str, now: datetime, rule: str = ..., reason: str = ...
    ) -> Decision: ...

    def record_run_rejection(
        self,
        org_id: str,
        run_id: str,
        agent_id: str,
        stage: str,
        rule: str,
        payload: dict[str, Any],
        now: datetime,
    ) -> AuditEntry: ...

    def dispatch_token(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]: ...

    def record_dispatch_failure(
        self, org_id: str, intent_id: str, problem: str, now: datetime
    ) -> AuditEntry: ...
