"""Request bodies of the HTTP API (responses are the services' models).

Every body refuses unknown fields and any NUL character (PostgreSQL text cannot hold
one); times are instants with an offset that have a UTC form; durations are bounded.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, EmailStr, Field, field_validator, model_validator

from domain.memory.compaction import DEFAULT_CHARS, MAX_SOURCES
from domain.memory.release import NODE_KIND
from domain.organization.contracts import MAX_REASON, Constraint, Slug, UtcInstant
from domain.organization.kinds import DestinationKind, StaffRole
from domain.runs.run import MAX_HOLD_SECONDS, MIN_HOLD_SECONDS, check_client_key
from domain.text import unstorable_at


class Body(BaseModel):
    """Unknown fields are refused, not ignored; so is text that cannot be stored (a NUL
    character, a lone surrogate) anywhere."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        problem = unstorable_at(data)
        if problem is not None:
            raise ValueError(f"{problem}, which is not allowed")
        return data


class OnboardBody(Body):
    name: str = Field(min_length=1, max_length=200)
    founder_email: EmailStr = Field(max_length=320)
    founder_name: str | None = Field(default=None, max_length=200)


class HumanBody(Body):
    email: EmailStr = Field(max_length=320)
    display_name: str = Field(min_length=1, max_length=200)


class StandingBody(Body):
    """Why a principal is suspended, brought back or offboarded (kept on the record)."""

    reason: str = Field(min_length=1, max_length=500)


class ProjectBody(Body):
    slug: Slug
    name: str = Field(min_length=1, max_length=200)


class StaffingBody(Body):
    principal_id: str = Field(max_length=100)
    project: Slug
    role: StaffRole = StaffRole.MEMBER
    valid_until: UtcInstant | None = None


class BarrierBody(Body):
    name: str = Field(min_length=1, max_length=200)
    groups: list[list[Slug]] = Field(min_length=2, max_length=50)
    """Each group at most 500 projects, none twice (checked by the domain's Barrier)."""
    founder_side: Slug | None = None
    """A project of the side the founder stays on (the founder's staffing on the other
    sides ends); omitted: the founder stays approver on every side and reads the memory
    of none."""


class CommitmentBody(Body):
    title: str = Field(min_length=1, max_length=200)
    constraint: Constraint
    source: str = Field(min_length=1, max_length=500)
    excerpt: str = Field(default="", max_length=4000)
    projects: list[Slug] = Field(default=[], max_length=500)
    valid_from: UtcInstant | None = None
    valid_until: UtcInstant | None = None

    @model_validator(mode="after")
    def _window(self) -> CommitmentBody:
        if (
            self.valid_from is not None
            and self.valid_until is not None
            and self.valid_until <= self.valid_from
        ):
            raise ValueError("valid_until must come after valid_from")
        return self


class MemoryBody(Body):
    ref: Slug
    projects: list[Slug] = Field(min_length=1, max_length=500)
    text: str = Field(min_length=1, max_length=20_000)
    kind: str = Field(default="note", pattern=NODE_KIND)
    """What sort of document: ``note``, ``email``, ``contract``, ``invoice``…"""
    source: str | None = Field(default=None, min_length=1, max_length=500)
    """Where it came from: a file name, a mailbox, a URL."""


class MemoryQueryBody(Body):
    text: str = Field(min_length=1, max_length=4000)
    k: int = Field(default=10, ge=1, le=50)


class MemoryLinkBody(Body):
    src: Slug
    dst: Slug
    kind: str = Field(max_length=40)
    span: tuple[int, int] | None = None
    """For ``derived_from``: the span of ``dst``'s text that ``src`` drew on."""


class CompactBody(Body):
    """Summarise ``refs`` into the new record ``ref``."""

    refs: list[Slug] = Field(min_length=1, max_length=MAX_SOURCES)
    ref: Slug
    agent_id: str = Field(min_length=1, max_length=200)
    """The agent whose gate the records are read through."""
    max_chars: int = Field(default=DEFAULT_CHARS, ge=1, le=20_000)


class ProcedureBody(Body):
    name: Slug
    projects: list[Slug] = Field(min_length=1, max_length=50)
    steps: list[str] = Field(min_length=1, max_length=200)


class RunBody(Body):
    agent_id: str = Field(max_length=100)
    task: str = Field(min_length=1, max_length=4000)
    scripted_reply: str | None = Field(default=None, max_length=100_000)
    client_key: str | None = Field(default=None, max_length=200)
    """Starting a run again with the same key returns the first run (never a second one);
    keys starting with a prefix the system's own runs use are refused."""
    hold_timeout_seconds: int | None = Field(default=None, ge=MIN_HOLD_SECONDS, le=MAX_HOLD_SECONDS)
    """How long a hold waits for a human (default 7 days; at least a minute, at most a
    year)."""

    @field_validator("client_key")
    @classmethod
    def _not_reserved(cls, key: str | None) -> str | None:
        check_client_key(key)
        return key


class DestinationBody(Body):
    """A destination to establish for a project: ``value`` is a domain
    (``email_domain``), an address (``email``) or a payee's name (``payee``, with the
    bank details the firm pays them at in ``account``)."""

    project: Slug
    kind: DestinationKind
    value: str = Field(min_length=1, max_length=320)
    account: str | None = Field(default=None, max_length=64)
    label: str = Field(default="", max_length=200)


class DecisionBody(Body):
    """An approve or deny. The approver is whoever the request proves; ``approver_id``,
    when given, must name them."""

    approver_id: str | None = Field(default=None, max_length=100)
    reason: str = Field(default="", max_length=2000)
    hold_seq: int | None = Field(default=None, ge=1)
    """The audit entry of the hold you were shown (a queue item's ``hold_seq``): when the
    hold open is another by now, 409 ``hold_changed`` and nothing is sent. Omitted: the
    decision answers the hold open when the API signs it."""
    establish: bool = False
    """With an approval (the founder's): also establish the new destinations the intent
    would reach (its recipients, payee, bank details) for its projects, so the next such
    action goes out without a hold."""
    again: bool = False
    """With an approval of a hold on a write already done (``already_done``: an invoice
    paid once): you mean it to be done a second time. Without it, 409 ``repeat_write``
    and nothing is sent."""


class ExtractBody(Body):
    ref: Slug
    """The memory record (a contract, an engagement letter) to extract obligations from."""
    extractor_id: str = Field(min_length=1, max_length=100)
    """The agent that reads it, through the memory gate, as itself."""
    projects: list[Slug] = Field(default=[], max_length=500)
    """What the commitments bind once confirmed; by default the document's projects."""


class RejectBody(Body):
    reason: str = Field(min_length=1, max_length=2000)


class NoteBody(Body):
    """How a commitment was kept (a reference to what was delivered)."""

    note: str = Field(min_length=1, max_length=MAX_REASON)


class ReasonBody(Body):
    """A human's decision that needs its reason (resolving a finding, releasing a hold)."""

    reason: str = Field(min_length=1, max_length=MAX_REASON)


HOLD_TIMEOUT = Field(default=None, ge=MIN_HOLD_SECONDS, le=MAX_HOLD_SECONDS)
"""How long a run of this request waits for a human at a hold, when the caller says."""


class Viewed(BaseModel):
    """A workflow's status and the state the reader may see."""

    workflow_status: str
    ui_url: str
    """Where the workflow shows in the Temporal UI."""
