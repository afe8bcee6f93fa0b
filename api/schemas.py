"""Request bodies of the HTTP API (responses are the services' models)."""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from domain.model import Constraint, Slug, StaffRole


class Body(BaseModel):
    """Unknown fields are refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class OnboardBody(Body):
    name: str = Field(min_length=1, max_length=200)
    founder_email: str = Field(pattern=r"^[^@\s]+@[^@\s]+$", max_length=320)
    founder_name: str | None = Field(default=None, max_length=200)


class HumanBody(Body):
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+$", max_length=320)
    display_name: str = Field(min_length=1, max_length=200)


class ProjectBody(Body):
    slug: Slug
    name: str = Field(min_length=1, max_length=200)


class StaffingBody(Body):
    principal_id: str
    project: Slug
    role: StaffRole = StaffRole.MEMBER
    valid_until: AwareDatetime | None = None


class BarrierBody(Body):
    name: str = Field(min_length=1, max_length=200)
    groups: list[list[Slug]] = Field(min_length=2)


class CommitmentBody(Body):
    title: str = Field(min_length=1, max_length=200)
    constraint: Constraint
    source: str = Field(min_length=1, max_length=500)
    excerpt: str = Field(default="", max_length=4000)
    projects: list[Slug] = []
    valid_from: AwareDatetime | None = None
    valid_until: AwareDatetime | None = None


class MemoryBody(Body):
    ref: Slug
    projects: list[Slug] = Field(min_length=1)
    text: str = Field(min_length=1, max_length=20_000)


class RunBody(Body):
    agent_id: str
    task: str = Field(min_length=1, max_length=4000)
    scripted_reply: str | None = Field(default=None, max_length=100_000)
    client_key: str | None = Field(default=None, max_length=200)
    hold_timeout_seconds: int | None = Field(default=None, ge=60)
    """How long a hold waits for a human (default 7 days; at least a minute)."""


class DecisionBody(Body):
    approver_id: str
    reason: str = Field(default="", max_length=2000)
