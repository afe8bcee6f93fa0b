"""What the learning pass reads and keeps: work events, insights, experiences, and the
record of each pass."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from domain.organization.contracts import Frozen

MAX_TEXT = 2000


class Refused(Frozen):
    """An insight (or the whole reply) refused, and why."""

    rule: str
    reason: str
    index: int | None = None
    """The insight's position in the reply; None: the reply as a whole."""


class WorkEvent(Frozen):
    """One structured event of the window the model reads (a run's step, a decision)."""

    id: str
    episode_id: str
    """What the event belongs to (a run, a work graph): lessons generalise across these."""
    at: datetime
    principal_id: str
    kind: str
    summary: str


class Insight(Frozen):
    """A lesson the model drew, as it proposed it."""

    lesson: str = Field(min_length=1, max_length=MAX_TEXT)
    cites: tuple[str, ...]
    general: bool = False
    """A general lesson (a pattern), as opposed to a remark on one episode."""


class InsightStatus(StrEnum):
    """Where an accepted insight stands: a candidate until a human promotes it (vouches
    for it: still a lesson, never policy) or dismisses it (later passes no longer see it)."""

    CANDIDATE = "candidate"
    PROMOTED = "promoted"
    DISMISSED = "dismissed"


class Experience(Frozen):
    """An accepted insight, kept: a candidate until a human promotes it; never policy."""

    id: str
    org_id: str
    lesson: str
    cites: tuple[str, ...]
    episodes: tuple[str, ...]
    """The distinct episodes its events belong to."""
    general: bool
    status: InsightStatus = InsightStatus.CANDIDATE
    pass_id: str
    created_at: datetime
    reviewed_by: str | None = None
    """The human who promoted or dismissed it."""
    reviewed_at: datetime | None = None
    review_reason: str | None = None


class LearningInput(Frozen):
    """Start a learning pass: over one organization, or (None) over every one."""

    org_id: str | None = None
    requested_by: str | None = None
    """The human who asked for it (None: the Schedule)."""
    scripted_reply: str | None = None
    """Only the scripted provider honours this: the exact reply text (tests, rehearsals)."""


class LearnRequest(Frozen):
    """One organization's pass, as of ``now`` (the workflow's time)."""

    org_id: str
    pass_id: str
    workflow_id: str
    now: datetime
    requested_by: str | None = None
    scripted_reply: str | None = None


class LearningPass(Frozen):
    """What one pass read, what the model answered and what the validator made of it."""

    id: str
    org_id: str
    workflow_id: str
    window_from: datetime
    window_to: datetime
    events: int = 0
    prior: int = 0
    accepted: tuple[Experience, ...] = ()
    refused: tuple[Refused, ...] = ()
    provider: str = ""
    model: str = ""
    reply_digest: str = ""
    requested_by: str | None = None
    error: str | None = None


class LearningReport(Frozen):
    """Every pass one LearningWorkflow made."""

    passes: tuple[LearningPass, ...] = ()
