"""Contracts of the organization: principals, charters, projects, staffing,
barriers, commitments and the tool registry.

Authority is never a field on a principal: it is resolved from current staffing
when a question is asked (see :mod:`domain.governance.broker`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from domain.organization.kinds import (
    CharterStatus,
    DestinationKind,
    IdentityKind,
    ParamType,
    PrincipalKind,
    PrincipalStatus,
    ReviewState,
    StaffRole,
)

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"


_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")  # fullmatch: "$" would admit a final newline


Slug = Annotated[str, Field(pattern=SLUG_PATTERN)]


EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)


LATEST = datetime(9000, 1, 1, tzinfo=UTC)
"""Instants are accepted in [EARLIEST, LATEST): wide enough for any business date, far
enough from the ends of the calendar that no conversion or date arithmetic overflows."""


def as_utc(value: datetime) -> datetime:
    """The same instant in UTC; refuses one outside [1900, 9000) in UTC (e.g.
    ``9999-12-31T23:59:59-01:00``, which has no UTC form at all)."""
    try:
        instant = value.astimezone(UTC)
    except (OverflowError, ValueError):
        instant = None
    if instant is None or not EARLIEST <= instant < LATEST:
        raise ValueError(
            f"{value.isoformat()} lies outside the years 1900 to 8999 once converted to UTC"
        )
    return instant


UtcInstant = Annotated[AwareDatetime, AfterValidator(as_utc)]
"""An instant with an offset, normalised to UTC; out-of-range instants are refused."""


def is_slug(value: object) -> bool:
    """True when ``value`` is a project or record key: lower-case, digits, dashes."""
    return isinstance(value, str) and _SLUG.fullmatch(value) is not None


MAX_REASON = 2000
"""The longest reason, note or answer a human gives with a decision (characters)."""


class Frozen(BaseModel):
    """Base for immutable value objects."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Principal(Frozen):
    """A member of an organization's directory: a human or an agent."""

    id: str
    org_id: str
    kind: PrincipalKind
    handle: Slug
    """Unique within the organization, e.g. ``east-planner`` or ``ada``."""
    display_name: str
    email: str | None = None
    agent_kind: str | None = None
    """For agents: planner, finance, diagnostic, research…"""
    status: PrincipalStatus = PrincipalStatus.ACTIVE
    status_since: UtcInstant | None = None
    """When the status last changed (None: active since the principal was added)."""
    status_reason: str | None = Field(default=None, max_length=500)
    """Why, as the founder said it when suspending, bringing back or offboarding."""


class Identity(Frozen):
    """An outside identity that proves a human principal: who signs in as whom."""

    org_id: str
    kind: IdentityKind
    external_id: str = Field(min_length=1, max_length=300)
    principal_id: str
    linked_by: str | None = None
    """Who linked it. A chat account proves its principal only when they linked it
    themselves (None: linked before this was kept, by the founder: it proves nobody)."""


class AgentDefinition(Frozen):
    """A versioned definition of an agent: its instructions and own budget."""

    principal_id: str
    version: int = Field(ge=1)
    instructions: str
    budget_cents: int = Field(ge=0)
    """The most one run of this agent may spend, by the definition."""


MAX_SKILLS = 12


MAX_SKILL_TEXT = 2000


class Skill(Frozen):
    """A named instruction the organization wrote for an agent, versioned with its
    charter and given to the model in the agent's prompt."""

    name: Slug
    instructions: str = Field(min_length=1, max_length=MAX_SKILL_TEXT)


class Charter(Frozen):
    """What an agent is for and the ceiling it works under: one version of the agent in
    the fleet registry (see :mod:`domain.fleet.registry`)."""

    principal_id: str
    version: int = Field(ge=1)
    status: CharterStatus
    role: str
    purpose: str
    tools: tuple[str, ...]
    """Tool names the agent may propose; the published tool snapshot."""
    budget_ceiling_cents: int = Field(ge=0)
    definition_pin: int = Field(ge=1)
    """The agent definition version this charter was published against."""
    skills: tuple[Skill, ...] = Field(default=(), max_length=MAX_SKILLS)
    """The organization's named instructions for this version, in prompt order."""

    @field_validator("skills")
    @classmethod
    def _distinct_skills(cls, skills: tuple[Skill, ...]) -> tuple[Skill, ...]:
        names = [s.name for s in skills]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"skill names repeat: {repeated}")
        return skills


class Project(Frozen):
    """A department or engagement; every action reaches one or more projects."""

    org_id: str
    slug: Slug
    name: str


class Staffing(Frozen):
    """A time-bounded assignment of a principal to a project."""

    id: str
    principal_id: str
    project: Slug
    role: StaffRole
    valid_from: UtcInstant
    valid_until: UtcInstant | None = None

    def active_at(self, now: datetime) -> bool:
        """True while ``now`` lies in [valid_from, valid_until)."""
        return self.valid_from <= now and (self.valid_until is None or now < self.valid_until)


class Destination(Frozen):
    """An established counterparty of a project: where an outbound or irreversible action
    on it may go without a human deciding (see :mod:`domain.governance.destinations`). Kept as
    configuration, on the chain; the founder establishes and retires them."""

    id: str
    project: Slug
    kind: DestinationKind
    value: str = Field(min_length=1, max_length=320)
    """As :func:`domain.governance.destinations.normalized` folds it: a domain, an address or a
    payee's name."""
    account: str | None = Field(default=None, max_length=64)
    """A payee's bank details (an IBAN or account number, folded); None: the payee is
    paid at whatever the ledger holds, and a payment naming an account is held."""
    label: str = Field(default="", max_length=200)
    """Who it is, in the owner's words (``Atlas Capital, the client``)."""
    established_by: str
    established_at: UtcInstant
    retired_at: UtcInstant | None = None

    def current(self, now: datetime) -> bool:
        """True from its establishment until it is retired."""
        return self.established_at <= now and (self.retired_at is None or now < self.retired_at)


MAX_GROUP = 500


class Barrier(Frozen):
    """An information barrier: disjoint project groups that no action may span."""

    id: str
    org_id: str
    name: str
    groups: tuple[tuple[Slug, ...], ...]

    @field_validator("groups")
    @classmethod
    def _disjoint(cls, groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        if len(groups) < 2:
            raise ValueError("a barrier separates at least two groups")
        seen: set[str] = set()
        for group in groups:
            if not group:
                raise ValueError("a barrier group names at least one project")
            if len(group) > MAX_GROUP:
                raise ValueError(f"a barrier group names at most {MAX_GROUP} projects")
            if len(set(group)) != len(group):
                raise ValueError(f"a barrier group names a project twice: {sorted(group)}")
            overlap = seen.intersection(group)
            if overlap:
                raise ValueError(f"barrier groups must be disjoint; repeated: {sorted(overlap)}")
            seen.update(group)
        return groups

    def groups_touched(self, reach: frozenset[str]) -> list[int]:
        """Indexes of the groups that ``reach`` touches."""
        return [i for i, group in enumerate(self.groups) if reach.intersection(group)]


class SpendCap(Frozen):
    """The most that allowed intents may spend, in total, while the commitment is valid."""

    kind: Literal["spend_cap"] = "spend_cap"
    limit_cents: int = Field(ge=0, le=10**15)
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    """An ISO 4217 code."""


class Obligation(Frozen):
    """A promise that binds no action by itself (a delivery date is a :class:`Delivery`)."""

    kind: Literal["obligation"] = "obligation"
    text: str = Field(min_length=1, max_length=4000)


class Delivery(Frozen):
    """Something promised to a counterparty by a due date (a report, a data-room index).

    Once confirmed it binds: the broker holds a late delivery to its recipient (see
    :mod:`domain.governance.broker`), and the heartbeat reports it once past due."""

    kind: Literal["delivery"] = "delivery"
    deliverable: str = Field(min_length=1, max_length=500)
    """What is to be delivered, as the document says it."""
    due: UtcInstant
    """The moment by which it must have been delivered."""
    recipient: str | None = Field(default=None, min_length=3, max_length=320)
    """Where it goes (an email address), when the document says; None: anyone on the
    commitment's projects."""


class NoticePeriod(Frozen):
    """How long in advance something must be announced (termination, a price change)."""

    kind: Literal["notice_period"] = "notice_period"
    days: int = Field(ge=1, le=3650)
    text: str = Field(min_length=1, max_length=4000)
    """What the notice is for, as the document says it."""


Constraint = Annotated[SpendCap | Obligation | Delivery | NoticePeriod, Field(discriminator="kind")]


class Provenance(Frozen):
    """Where a commitment came from."""

    source: str
    excerpt: str = ""
    recorded_by: str
    document: str | None = None
    """The memory record it was extracted from, by reference (None: entered by hand)."""
    span: tuple[int, int] | None = None
    """[start, end) of ``excerpt`` in the document's text as the extractor read it (an
    agent's view masks identifying detail, so offsets count the masked text)."""
    extractor: str | None = None
    """The agent principal that extracted it."""
    model: str | None = None
    """The model that answered the extractor, as ``provider/model`` (``replay/authored``
    for an authored fixture)."""


class StandingHold(Frozen):
    """A hold placed on projects through the broker (by Sentinel, when a spend cap has
    expired): until a human releases it, every intent that moves money on them waits for
    a human's approval. Placing one only narrows what may happen; releasing one is a
    human's decision, with a reason, once."""

    id: str
    """The placing intent's id."""
    org_id: str
    subject: str
    """What it is about, stably (``commitment_expired:<id>``): one hold per subject."""
    projects: tuple[str, ...]
    """The projects it holds spending on (none: the whole organization)."""
    cites: str | None = None
    """The commitment it is about, if any."""
    reason: str
    placed_by: str
    placed_at: UtcInstant
    released_by: str | None = None
    released_at: UtcInstant | None = None
    release_reason: str = ""

    def holds(self, reach: frozenset[str]) -> bool:
        """Whether spending that reaches ``reach`` waits on this hold (while open)."""
        if self.released_at is not None:
            return False
        return not self.projects or bool(reach & set(self.projects))


class Commitment(Frozen):
    """A business commitment with provenance, review state and validity window."""

    id: str
    org_id: str
    title: str
    constraint: Constraint
    provenance: Provenance
    state: ReviewState = ReviewState.EXTRACTED
    projects: tuple[Slug, ...] = ()
    """Projects it binds; empty binds the whole organization."""
    valid_from: UtcInstant
    valid_until: UtcInstant | None = None
    confirmed_by: str | None = None
    confirmed_at: UtcInstant | None = None
    rejected_by: str | None = None
    """The human who rejected it; a rejected commitment never binds."""
    rejected_at: UtcInstant | None = None
    rejection_reason: str | None = None
    fulfilled_by: str | None = None
    """The human who marked it kept (a delivery delivered, an obligation met); a kept
    commitment binds no more."""
    fulfilled_at: UtcInstant | None = None
    fulfilment_note: str | None = None

    @model_validator(mode="after")
    def _window(self) -> Commitment:
        if self.valid_until is not None and self.valid_until <= self.valid_from:
            raise ValueError("a commitment's valid_until must come after its valid_from")
        return self

    def binds(self, now: datetime) -> bool:
        """True when confirmed, not yet kept, and ``now`` lies in its validity window."""
        return (
            self.state is ReviewState.CONFIRMED
            and self.fulfilled_at is None
            and self.valid_from <= now
            and (self.valid_until is None or now < self.valid_until)
        )

    def covers(self, reach: frozenset[str]) -> bool:
        """True when an action reaching ``reach`` falls under this commitment."""
        return not self.projects or bool(reach.intersection(self.projects))


class ToolSpec(Frozen):
    """A tool an agent may propose, and the connector (system, action) it maps to."""

    name: str
    system: str
    action: str
    description: str
    params: dict[str, ParamType]
    """Required parameters; no others are accepted."""
    resource_param: str
    """The parameter naming the resource written; the collision key."""
    money_param: str | None = None
    """The parameter holding an amount in cents; the action's spend."""
    approval_over_cents: int | None = None
    """Spending more than this needs a human decision (at once, or split across several
    payments to one payee: :data:`~domain.governance.spend.SPLIT_WINDOW`)."""
    payee_param: str | None = None
    """The parameter naming who receives the money: what one payee is paid is added up,
    and the payee must be established for the projects it reaches."""
    account_param: str | None = None
    """The optional parameter naming the bank details paid to: they must be the payee's
    established ones."""
    recipient_param: str | None = None
    """The parameter naming who receives what is sent (addresses): each must be an
    established destination of the projects it reaches."""
    content_params: tuple[str, ...] = ()
    """Parameters whose text leaves the firm: links, addresses and bank details in them
    are destinations too, and text copied from outside content is named."""
    optional_params: dict[str, ParamType] = Field(default_factory=dict)
    """Parameters a payload may leave out."""
    repeatable: bool = True
    """False when doing it twice to one resource is a mistake (an invoice is paid once):
    a completed write keeps its resource's key, and a later intent on it is held."""

    @model_validator(mode="after")
    def _params_exist(self) -> ToolSpec:
        named = (self.resource_param, self.money_param, self.payee_param, self.recipient_param)
        for name in (*named, *self.content_params):
            if name is not None and name not in self.params:
                raise ValueError(f"tool {self.name}: {name!r} is not a parameter")
        if self.account_param is not None and self.account_param not in self.optional_params:
            raise ValueError(f"tool {self.name}: {self.account_param!r} is not a parameter")
        if self.optional_params.keys() & self.params.keys():
            raise ValueError(f"tool {self.name}: a parameter is both required and optional")
        if self.money_param and self.params[self.money_param] is not ParamType.INTEGER:
            raise ValueError(f"tool {self.name}: money parameter must be an integer")
        return self


def payload_problem(tool: ToolSpec, payload: object) -> str | None:
    """Why ``payload`` does not fit ``tool`` exactly, or None when it does."""
    if not isinstance(payload, dict):
        return "payload must be an object"
    missing = tool.params.keys() - payload.keys()
    if missing:
        return f"payload misses {sorted(missing)}"
    unexpected = payload.keys() - tool.params.keys() - tool.optional_params.keys()
    if unexpected:
        return f"payload has unexpected {sorted(unexpected)}"
    kinds = {**tool.params, **tool.optional_params}
    for name in payload:
        value, kind = payload[name], kinds[name]
        if kind is ParamType.INTEGER:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"payload.{name} must be an integer"
        elif not isinstance(value, str):
            return f"payload.{name} must be a string"
    if tool.payee_param is not None and not str(payload[tool.payee_param]).strip():
        return f"payload.{tool.payee_param} names no one"  # money to nobody is not a payment
    if "currency" in payload and not _CURRENCY.fullmatch(str(payload["currency"])):
        # shown to the approver beside the amount: a code, never a sentence
        return "payload.currency must be a three-letter code (ISO 4217), e.g. USD"
    return None


_CURRENCY = re.compile(r"[A-Z]{3}")


class Organization(Frozen):
    """A tenant: one firm, its founder and its directory."""

    id: str
    name: str
    founder_id: str
