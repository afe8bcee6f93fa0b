"""The organization's vocabulary: the kinds and statuses its contracts are made of
(plain enums, so that a command line can name them without loading the models)."""

from __future__ import annotations

from enum import StrEnum


class PrincipalKind(StrEnum):
    """A principal is either a person or an agent."""

    HUMAN = "human"
    AGENT = "agent"


class PrincipalStatus(StrEnum):
    """Only active principals may act. A suspended one may be brought back; an
    offboarded one has left for good (its staffing ended, its sign-ins unlinked)."""

    ACTIVE = "active"
    SUSPENDED = "suspended"
    OFFBOARDED = "offboarded"


class IdentityKind(StrEnum):
    """Where a person proves who they are."""

    OIDC = "oidc"
    """The subject (``sub``) of the configured OpenID Connect issuer's ID tokens."""
    SLACK = "slack"
    """A Slack user, as ``{team_id}:{user_id}``."""
    TEAMS = "teams"
    """A Microsoft Teams user (AAD object id), as ``{tenant_id}:{aad_object_id}``."""


class CharterStatus(StrEnum):
    """Only a published charter lets an agent run."""

    DRAFT = "draft"
    PUBLISHED = "published"
    RETIRED = "retired"


class StaffRole(StrEnum):
    """What a staffing grants in its project."""

    MEMBER = "member"
    """May act (agents) or read (humans) in the project."""
    APPROVER = "approver"
    """May also decide held intents that reach the project (humans only)."""


class ReviewState(StrEnum):
    """Extracted commitments are evidence until a human confirms them."""

    EXTRACTED = "extracted"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class ParamType(StrEnum):
    """Types a tool parameter may have."""

    STRING = "string"
    INTEGER = "integer"


class DestinationKind(StrEnum):
    """What sort of counterparty a project has established: where its outbound work may
    go without a human deciding."""

    EMAIL_DOMAIN = "email_domain"
    """Anyone at a domain (``atlas.example``): the client's people."""
    EMAIL = "email"
    """One address (``cfo@atlas.example``)."""
    PAYEE = "payee"
    """Someone the firm pays, with the bank details it pays them at."""
