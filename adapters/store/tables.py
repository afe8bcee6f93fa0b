"""SQLModel tables. Times are stored in UTC; JSON columns hold domain value objects."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    Dialect,
    Table,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


class UTCDateTime(TypeDecorator[datetime]):
    """Stores instants in UTC and reads them back timezone-aware.

    SQLite keeps no offset, so a time written as 12:00+05:00 would read back as
    12:00 UTC; converting on the way in keeps the instant on every database.
    A naive time is refused: its instant is unknowable.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value.isoformat()} has no instant; give an offset")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(UTCDateTime(), nullable=nullable))


def _cents() -> Any:
    """Money in cents: 64-bit, amounts reach 10^12."""
    return Field(sa_column=Column(BigInteger, nullable=False))


def _json() -> Any:
    return Field(sa_column=Column(JSON, nullable=False))


class OrgRow(SQLModel, table=True):
    __tablename__ = "orgs"
    id: str = Field(primary_key=True)
    name: str
    founder_id: str
    created_at: datetime = _ts()


class PrincipalRow(SQLModel, table=True):
    __tablename__ = "principals"
    __table_args__ = (UniqueConstraint("org_id", "handle"),)
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    kind: str
    handle: str
    display_name: str
    email: str | None = None
    agent_kind: str | None = None
    status: str
    status_since: datetime | None = _ts(nullable=True)
    status_reason: str | None = None
    created_at: datetime = _ts()


class AgentDefinitionRow(SQLModel, table=True):
    __tablename__ = "agent_definitions"
    principal_id: str = Field(primary_key=True)
    version: int = Field(primary_key=True)
    instructions: str
    budget_cents: int = _cents()
    created_at: datetime = _ts()


class CharterRow(SQLModel, table=True):
    __tablename__ = "charters"
    principal_id: str = Field(primary_key=True)
    version: int = Field(primary_key=True)
    status: str
    role: str
    purpose: str
    tools: list[str] = _json()
    budget_ceiling_cents: int = _cents()
    definition_pin: int
    skills: list[dict[str, str]] = _json()
    created_at: datetime = _ts()


class RolloutRow(SQLModel, table=True):
    """Which version of an agent new runs get (absent: its newest published one)."""

    __tablename__ = "agent_rollouts"
    principal_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    stable: int
    candidate: int | None = None
    share: int = 0
    previous: int | None = None
    rolled_back: list[int] = _json()
    updated_at: datetime = _ts()


class ProjectRow(SQLModel, table=True):
    __tablename__ = "projects"
    org_id: str = Field(primary_key=True)
    slug: str = Field(primary_key=True)
    name: str
    created_at: datetime = _ts()


class StaffingRow(SQLModel, table=True):
    __tablename__ = "staffing"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    principal_id: str = Field(index=True)
    project: str
    role: str
    valid_from: datetime = _ts()
    valid_until: datetime | None = _ts(nullable=True)


class BarrierRow(SQLModel, table=True):
    __tablename__ = "barriers"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    name: str
    groups: list[list[str]] = _json()
    created_at: datetime = _ts()


class DestinationRow(SQLModel, table=True):
    """An established destination of a project (see ``domain.governance.destinations``)."""

    __tablename__ = "destinations"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    project: str
    kind: str
    value: str
    account: str | None = None
    label: str = ""
    established_by: str
    established_at: datetime = _ts()
    retired_at: datetime | None = _ts(nullable=True)


class CommitmentRow(SQLModel, table=True):
    __tablename__ = "commitments"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    title: str
    constraint: dict[str, Any] = _json()
    provenance: dict[str, Any] = _json()
    state: str
    projects: list[str] = _json()
    valid_from: datetime = _ts()
    valid_until: datetime | None = _ts(nullable=True)
    confirmed_by: str | None = None
    confirmed_at: datetime | None = _ts(nullable=True)
    rejected_by: str | None = None
    rejected_at: datetime | None = _ts(nullable=True)
    rejection_reason: str | None = None
    fulfilled_by: str | None = None
    fulfilled_at: datetime | None = _ts(nullable=True)
    fulfilment_note: str | None = None
    created_at: datetime = _ts()


class RunRow(SQLModel, table=True):
    __tablename__ = "runs"
    __table_args__ = (UniqueConstraint("org_id", "client_key"),)
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    agent_id: str
    task: str
    workflow_id: str
    client_key: str | None = None
    started_by: str | None = None
    """The human who started the run."""
    projects: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    """The agent's projects when the run started (part of what the run reaches)."""
    hold_timeout_seconds: int | None = None
    """How long the run's holds wait for a human (None: recorded before it was kept)."""
    created_at: datetime = _ts()


class IntentRow(SQLModel, table=True):
    __tablename__ = "intents"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    run_id: str = Field(index=True)
    principal_id: str
    tool: str
    body: dict[str, Any] = _json()
    digest: str
    status: str
    """Latest outcome: allow, reject, hold, approved, denied, expired."""
    reach: list[str] = _json()
    spend_cents: int = _cents()
    dispatched: bool = False
    op_key: str | None = Field(default=None, index=True)
    """``system.action:resource``: finds earlier writes to the same resource."""
    created_at: datetime = _ts()


class DecisionRow(SQLModel, table=True):
    __tablename__ = "decisions"
    id: int | None = Field(default=None, primary_key=True)
    org_id: str = Field(index=True)
    intent_id: str = Field(index=True)
    outcome: str
    stage: str
    rule: str
    reason: str
    release: list[str] = _json()
    reach: list[str] = _json()
    evidence: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    reasons: list[list[str]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    """For a hold of several causes: each one's [rule, reason]."""
    mode: str = Field(default="enforce", sa_column_kwargs={"server_default": "enforce"})
    enforced: str | None = None
    """In observe mode: what enforcement would have decided."""
    intent_digest: str
    audit_seq: int
    entry_hash: str
    decided_at: datetime = _ts()


class HoldRow(SQLModel, table=True):
    __tablename__ = "holds"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    state: str
    """open, approved, denied, expired."""
    release: list[str] = _json()
    opened_at: datetime = _ts()
    resolved_by: str | None = None
    resolved_at: datetime | None = _ts(nullable=True)


class ClaimRow(SQLModel, table=True):
    """An operation key in flight and the intent holding it; the primary key makes
    registration atomic. Released when the intent is done, rejected or closed."""

    __tablename__ = "claims"
    org_id: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    intent_id: str
    claimed_at: datetime = _ts()


class AuditHeadRow(SQLModel, table=True):
    __tablename__ = "audit_heads"
    org_id: str = Field(primary_key=True)
    seq: int
    entry_hash: str
    signature: str = Field(default="", sa_column_kwargs={"server_default": ""})
    poisoned: str | None = None
    """Why the organization's broker is poisoned (it then decides and dispatches nothing)."""
    config_seq: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """The sequence of the newest ``configuration`` entry: what a cached copy of the
    organization's configuration is checked against."""
    tree: str | None = None
    """The Merkle tree's frontier (``domain.audit.merkle.Frontier.encode``) after ``seq``
    entries; None for a chain written before the tree (built at its next append)."""
    checkpoint_size: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """The tree size of the newest checkpoint."""


class AuditTreeNodeRow(SQLModel, table=True):
    """A node of an organization's Merkle tree at a kept level (every eighth): the nodes
    below it are recomputed from entry hashes when a proof needs them."""

    __tablename__ = "audit_tree_nodes"
    org_id: str = Field(primary_key=True)
    level: int = Field(primary_key=True)
    idx: int = Field(sa_column=Column("idx", BigInteger, primary_key=True))
    hash: str


class AuditCheckpointRow(SQLModel, table=True):
    """A signed checkpoint of an organization's tree: a C2SP signed note (its witnesses'
    cosignatures added to it when they sign)."""

    __tablename__ = "audit_checkpoints"
    org_id: str = Field(primary_key=True)
    size: int = Field(sa_column=Column("size", BigInteger, primary_key=True))
    root: str
    note: str
    at: datetime = _ts()


class AuditEntryRow(SQLModel, table=True):
    __tablename__ = "audit_entries"
    __table_args__ = (UniqueConstraint("org_id", "event_key"),)
    org_id: str = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    at: str
    event_key: str
    actor: str
    intent_id: str | None = Field(default=None, index=True)
    decision: str
    stage: str
    rule: str
    payload: dict[str, Any] = _json()
    prev_hash: str
    entry_hash: str
    signature: str = Field(default="", sa_column_kwargs={"server_default": ""})


class PaymentRow(SQLModel, table=True):
    """The payments ledger sandbox: one row per paid intent."""

    __tablename__ = "payments_ledger"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    payee: str
    invoice: str
    amount_cents: int = _cents()
    currency: str
    memo: str
    account: str | None = None
    """The bank account paid to, when the payment named one (the payee's usual one
    otherwise)."""
    audit_seq: int
    entry_hash: str
    created_at: datetime = _ts()


class EmailRow(SQLModel, table=True):
    """The email outbox: one row per sent intent."""

    __tablename__ = "email_outbox"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    to: str
    subject: str
    body: str
    audit_seq: int
    entry_hash: str
    created_at: datetime = _ts()
    delivery_state: str = Field(default="pending", index=True)
    """pending, delivered or bounced (the relay's; ``domain/relay.py``)."""
    attempts: int = 0
    last_code: int | None = None
    last_detail: str | None = None
    delivered_at: datetime | None = _ts(nullable=True)
    claimed_at: datetime | None = _ts(nullable=True)
    """When a relay pass claimed it (``sending``), for its lease."""


class NoticeRow(SQLModel, table=True):
    """A notice to one person on one channel (``domain/notices.py``), and its delivery."""

    __tablename__ = "notices"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    person_id: str
    channel: str
    address: str
    name: str
    kind: str
    items: list[str] = _json()
    subject: str
    body: str
    link: str
    created_at: datetime = _ts()
    delivery_state: str = Field(default="pending", index=True)
    """pending, sending (claimed), delivered or bounced (given up)."""
    attempts: int = 0
    last_code: int | None = None
    last_detail: str | None = None
    delivered_at: datetime | None = _ts(nullable=True)
    claimed_at: datetime | None = _ts(nullable=True)


class ToldRow(SQLModel, table=True):
    """An item a person was told of, while it waits (forgotten once it no longer does)."""

    __tablename__ = "notices_told"
    org_id: str = Field(primary_key=True)
    person_id: str = Field(primary_key=True)
    item: str = Field(primary_key=True)
    told_at: datetime = _ts()


class WebhookRow(SQLModel, table=True):
    """A webhook post that was delivered (a 2xx): one row per intent, written with its
    ``dispatched`` entry after the receiver answered."""

    __tablename__ = "webhook_posts"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    target: str
    event: str
    body: str
    status_code: int
    audit_seq: int
    entry_hash: str
    created_at: datetime = _ts()


CONNECTOR_TABLES: tuple[tuple[str, type[PaymentRow] | type[EmailRow] | type[WebhookRow]], ...] = (
    ("payments", PaymentRow),
    ("email", EmailRow),
    ("webhook", WebhookRow),
)
"""Tables written by connectors; each row names the audited decision that allowed it."""


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a SQLModel class (for statements built once and run on a
    connection: the hot paths skip the ORM's per-statement work)."""
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


class IngressNonceRow(SQLModel, table=True):
    """A nonce the front door has seen (a Slack timestamp and signature, a Teams activity
    id, a token's ``jti``), kept until the request it came with would be stale anyway."""

    __tablename__ = "ingress_nonces"
    channel: str = Field(primary_key=True)
    nonce: str = Field(primary_key=True)
    expires_at: datetime = _ts()
    seen_at: datetime = _ts()


class IngressUsageRow(SQLModel, table=True):
    """Requests counted against a budget ceiling: per principal (or ``*`` for the whole
    organization) and period."""

    __tablename__ = "ingress_usage"
    org_id: str = Field(primary_key=True)
    principal_id: str = Field(primary_key=True)
    period: str = Field(primary_key=True)
    requests: int = 0
    model_cents: int = Field(
        default=0, sa_column=Column(BigInteger, nullable=False, server_default="0")
    )
    """Model spend reserved by the runs started in the period."""


class IngressRefusalRow(SQLModel, table=True):
    """A request the front door refused: when, on which channel, why. Never the token,
    secret or body that was refused."""

    __tablename__ = "ingress_refusals"
    id: int | None = Field(default=None, primary_key=True)
    at: datetime = _ts()
    channel: str
    reason: str = Field(index=True)
    detail: str
    path: str
    org_id: str | None = Field(default=None, index=True)
    principal_id: str | None = None


class IdentityRow(SQLModel, table=True):
    """An outside identity (an OIDC subject, a Slack or Teams user) of a human principal."""

    __tablename__ = "identities"
    kind: str = Field(primary_key=True)
    external_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    principal_id: str
    linked_by: str | None = None
    created_at: datetime = _ts()


class FindingRow(SQLModel, table=True):
    """A finding a principal filed through the broker (``findings.file``): one row per
    allowed intent, written by its connector with the dispatch."""

    __tablename__ = "findings"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    principal_id: str
    kind: str
    subject: str = Field(index=True)
    severity: str
    summary: str
    evidence: list[str] = _json()
    cites: str | None = None
    """The commitment it cites, if any."""
    projects: list[str] = _json()
    audit_seq: int
    entry_hash: str
    created_at: datetime = _ts()
    resolved_by: str | None = None
    resolved_at: datetime | None = _ts(nullable=True)
    resolution: str | None = None
    """Why a human resolved it."""


class StandingHoldRow(SQLModel, table=True):
    """A standing hold placed through the broker (``holds.place``): one row per allowed
    intent, written by its connector with the dispatch; released once, by a human."""

    __tablename__ = "standing_holds"
    intent_id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    subject: str = Field(index=True)
    projects: list[str] = _json()
    cites: str | None = None
    reason: str
    placed_by: str
    audit_seq: int
    entry_hash: str
    created_at: datetime = _ts()
    released_by: str | None = None
    released_at: datetime | None = _ts(nullable=True)
    release_reason: str | None = None


class HeartbeatRunRow(SQLModel, table=True):
    """One heartbeat over one organization: its checks, findings and Sentinel's
    proposals (``body``, a HeartbeatRun), the only row a heartbeat writes itself."""

    __tablename__ = "heartbeat_runs"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    workflow_id: str
    started_at: datetime = _ts()
    ended_at: datetime | None = _ts(nullable=True)
    body: dict[str, Any] = _json()


class ExperienceRow(SQLModel, table=True):
    """An insight a learning pass accepted: a candidate (until a human promotes it),
    never policy. Its acceptance is in the audit chain (``audit_seq``)."""

    __tablename__ = "experiences"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    pass_id: str
    lesson: str
    cites: list[str] = _json()
    episodes: list[str] = _json()
    general: bool
    status: str
    """candidate, promoted or dismissed."""
    audit_seq: int
    created_at: datetime = _ts()
    reviewed_by: str | None = None
    reviewed_at: datetime | None = _ts(nullable=True)
    review_reason: str | None = None


class OfferRow(SQLModel, table=True):
    """A process offer: episodes found to be one process, for a human to confirm into a
    playbook (its episodes are the ``episodes`` rows that name it)."""

    __tablename__ = "offers"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    tools: list[str] = _json()
    steps: list[dict[str, Any]] = _json()
    projects: list[str] = _json()
    state: str
    playbook: str | None = None
    version: int | None = None
    confirmed_by: str | None = None
    confirmed_at: datetime | None = _ts(nullable=True)
    confirmed_with: int = 0
    declined_by: str | None = None
    declined_at: datetime | None = _ts(nullable=True)
    declined_reason: str | None = None
    created_at: datetime = _ts()


class EpisodeRow(SQLModel, table=True):
    """An episode of work (a run, or one submitted through the API), its step vectors,
    and its place in an offer's evidence."""

    __tablename__ = "episodes"
    __table_args__ = (UniqueConstraint("org_id", "run_id"),)
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    source: str
    run_id: str | None = None
    steps: list[dict[str, Any]] = _json()
    outcome_met: bool | None = None
    projects: list[str] = _json()
    embedder: str
    vectors: list[str] = _json()
    """Hex of each step's little-endian float32 vector."""
    offer_id: str | None = Field(default=None, index=True)
    position: int | None = None
    """Its place in its offer's evidence (0: the first)."""
    recorded_by: str
    recorded_at: datetime = _ts()


class DriftFindingRow(SQLModel, table=True):
    """A confirmed playbook whose later episodes consistently missed their outcome;
    resolved once, with a reason."""

    __tablename__ = "drift_findings"
    id: str = Field(primary_key=True)
    org_id: str = Field(index=True)
    offer_id: str = Field(index=True)
    playbook: str
    projects: list[str] = _json()
    episodes: list[str] = _json()
    missed: int
    flagged_by: str
    flagged_at: datetime = _ts()
    resolved_by: str | None = None
    resolved_at: datetime | None = _ts(nullable=True)
    reason: str | None = None
