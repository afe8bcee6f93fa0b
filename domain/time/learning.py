"""The learning pass's validator: what a model may teach the organization.

The model reads a window of structured work events (and earlier candidate or promoted
experiences) and answers with insights. Nothing it says is trusted as it stands: the
reply must be strict JSON, and each insight must stand on evidence the organization
recorded. An accepted insight is a *candidate*, never policy: it grants nothing,
changes no rule and decides no approval. Those are refused outright, with the reason.

The rules, each with its own refusal:

- the reply is a JSON object ``{"insights": [...]}``, nothing repaired (``malformed``);
- at most :data:`MAX_INSIGHTS` insights (``too_many_insights``: the reply is refused);
- an insight cites known event ids only (``unknown_event``), at least one
  (``no_evidence``);
- no event is cited twice, within an insight or across the reply (``event_cited_twice``:
  the later insight is refused);
- a general lesson cites events of at least two distinct episodes
  (``single_episode``);
- an insight that would grant access, change policy or assume approval authority is
  refused (``grants_access``, ``changes_policy``, ``assumes_authority``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from domain.model import Frozen

MAX_INSIGHTS = 5
MAX_TEXT = 2000


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


class Refused(Frozen):
    """An insight (or the whole reply) refused, and why."""

    rule: str
    reason: str
    index: int | None = None
    """The insight's position in the reply; None: the reply as a whole."""


class LearningVerdict(Frozen):
    """What the validator kept (as candidates) and what it refused."""

    accepted: tuple[Insight, ...] = ()
    refused: tuple[Refused, ...] = ()
    status: InsightStatus = InsightStatus.CANDIDATE


# Overreach: an insight phrased as a change of who may do what. The patterns look for an
# act and its object near each other; they are deliberately broad (a refused candidate
# costs little, a lesson that turns into policy costs much).
_NEAR = r"[^.;:!?\n]{0,60}?"
_GRANTS = re.compile(
    rf"\b(grant|give|allow|let|enable|add|extend|share){_NEAR}"
    rf"\b(access|permission|permissions|read|write|visibility|clearance|staffing|staff)\b"
    rf"|\b(access|permission){_NEAR}\b(granted|given|extended|opened)\b"
    rf"|\b(across|through|past|over){_NEAR}\b(wall|barrier)s?\b",
    re.IGNORECASE,
)
_POLICY = re.compile(
    rf"\b(change|update|raise|increase|lower|decrease|relax|loosen|remove|drop|disable|"
    rf"bypass|skip|ignore|override|waive|suspend|exempt){_NEAR}"
    rf"\b(policy|policies|rule|rules|cap|caps|limit|limits|threshold|thresholds|"
    rf"barrier|barriers|wall|walls|commitment|commitments|charter|budget|check|checks)\b",
    re.IGNORECASE,
)
_AUTHORITY = re.compile(
    rf"\b(approve|approves|approved|approval|authori[sz]e|sign[- ]off|decide){_NEAR}"
    rf"\b(itself|themselves|myself|automatically|on behalf|without|no longer|unattended)\b"
    rf"|\b(no|without|skip|bypass|no longer need){_NEAR}\b(human|approval|approver|review)\b"
    rf"|\bact(s|ing)? as (an? )?(approver|founder|admin|administrator)\b",
    re.IGNORECASE,
)
OVERREACH = (
    ("grants_access", _GRANTS, "it would grant access"),
    ("changes_policy", _POLICY, "it would change policy"),
    ("assumes_authority", _AUTHORITY, "it would assume approval authority"),
)


def overreach(text: str) -> tuple[str, str] | None:
    """Whether ``text`` reads as granting access, changing policy or assuming authority:
    the rule and the reason, or None."""
    for rule, pattern, why in OVERREACH:
        found = pattern.search(text)
        if found is not None:
            return rule, f"{why}: {found.group(0)!r}"
    return None


def _insights(reply: str) -> list[object] | Refused:
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as exc:
        return Refused(rule="malformed", reason=f"the reply is not JSON: {exc.msg}")
    if not isinstance(data, dict) or set(data) != {"insights"}:
        return Refused(rule="malformed", reason='the reply must be {"insights": [...]} alone')
    items = data["insights"]
    if not isinstance(items, list):
        return Refused(rule="malformed", reason="insights is not a list")
    if len(items) > MAX_INSIGHTS:
        return Refused(
            rule="too_many_insights",
            reason=f"{len(items)} insights; at most {MAX_INSIGHTS} are read",
        )
    return items


def _insight(item: object) -> Insight | str:
    if not isinstance(item, dict) or not set(item) <= {"lesson", "cites", "general"}:
        return "an insight is an object with lesson, cites and general only"
    cites = item.get("cites")
    if not isinstance(cites, list) or not all(isinstance(c, str) for c in cites):
        return "cites must be a list of event ids"
    if not isinstance(item.get("lesson"), str) or not isinstance(item.get("general", False), bool):
        return "lesson must be text and general true or false"
    try:
        return Insight(
            lesson=item["lesson"], cites=tuple(cites), general=item.get("general", False)
        )
    except ValueError as exc:
        return f"invalid insight: {exc.__class__.__name__}"


def validate(reply: str, events: Iterable[WorkEvent]) -> LearningVerdict:
    """The insights of ``reply`` that stand on ``events``, as candidates, and every
    refusal with its rule (see the module)."""
    known: Mapping[str, WorkEvent] = {e.id: e for e in events}
    items = _insights(reply)
    if isinstance(items, Refused):
        return LearningVerdict(refused=(items,))
    accepted: list[Insight] = []
    refused: list[Refused] = []
    cited: set[str] = set()
    for index, item in enumerate(items):
        insight = _insight(item)
        if isinstance(insight, str):
            refused.append(Refused(rule="malformed", reason=insight, index=index))
            continue
        problem = _problem(insight, known, cited)
        if problem is not None:
            refused.append(Refused(rule=problem[0], reason=problem[1], index=index))
            continue
        cited.update(insight.cites)
        accepted.append(insight)
    return LearningVerdict(accepted=tuple(accepted), refused=tuple(refused))


def _problem(
    insight: Insight, known: Mapping[str, WorkEvent], cited: set[str]
) -> tuple[str, str] | None:
    if not insight.cites:
        return "no_evidence", "an insight cites at least one event"
    unknown = [c for c in insight.cites if c not in known]
    if unknown:
        return "unknown_event", f"no event {unknown[0]!r} in the window"
    twice = len(set(insight.cites)) != len(insight.cites) or cited & set(insight.cites)
    if twice:
        return "event_cited_twice", "an event supports one insight, once"
    episodes = {known[c].episode_id for c in insight.cites}
    if insight.general and len(episodes) < 2:
        return "single_episode", "a general lesson needs events of two episodes or more"
    return overreach(insight.lesson)


# The pass -------------------------------------------------------------------------------

WINDOW = timedelta(days=7)
"""How far back a learning pass reads."""
MAX_EVENTS = 400
"""The most recent events of the window a pass shows the model (a bounded prompt)."""
MAX_PRIOR = 50
"""The most recent candidate or promoted experiences shown with them."""
LEARNING_AGENT = "learning"
"""Who asks the model (the fixture key's agent): the pass, not any principal of the org."""
LEARNING_TASK = "Learning pass"
"""The model task (the fixture key's task): the same for every pass; the window is in the
prompt, never in the key."""
LEARNING = "learning"
"""The audit stage of a pass's entries: each accepted candidate, each refusal."""
LEARNING_SYSTEM_PROMPT = (
    "You read an organization's recent work events and draw lessons from them. Answer "
    'with strict JSON only: {"insights": [{"lesson": "...", "cites": ["<event id>", ...], '
    '"general": true|false}]}. At most 5 insights. Cite only event ids from the window, '
    "each event at most once in the whole reply. A general lesson (a pattern) cites "
    "events of at least two different episodes. A lesson describes what happened; it "
    "never grants access, changes a policy, rule, cap or barrier, or approves anything: "
    "such insights are refused. Earlier lessons are listed so that you do not repeat them."
)


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


def learning_prompt(events: Sequence[WorkEvent], prior: Sequence[Experience]) -> str:
    """The window and the earlier lessons, as the model reads them (JSON lines)."""
    lines = ["Work events of the last 7 days (one JSON object a line):"]
    lines += [
        json.dumps(
            {
                "id": e.id,
                "episode": e.episode_id,
                "at": e.at.isoformat(),
                "principal": e.principal_id,
                "kind": e.kind,
                "summary": e.summary,
            },
            sort_keys=True,
        )
        for e in events
    ]
    lines.append("Earlier lessons (candidate or promoted):")
    lines += [
        json.dumps({"lesson": x.lesson, "status": x.status.value}, sort_keys=True) for x in prior
    ] or ["(none)"]
    return "\n".join(lines)


def experiences_of(
    verdict: LearningVerdict,
    events: Iterable[WorkEvent],
    org_id: str,
    pass_id: str,
    now: datetime,
    ids: Callable[[int], str],
) -> tuple[Experience, ...]:
    """The verdict's accepted insights as candidate experiences (``ids(i)``: the i-th's id)."""
    episode = {e.id: e.episode_id for e in events}
    return tuple(
        Experience(
            id=ids(i),
            org_id=org_id,
            lesson=insight.lesson,
            cites=insight.cites,
            episodes=tuple(sorted({episode[c] for c in insight.cites})),
            general=insight.general,
            status=InsightStatus.CANDIDATE,
            pass_id=pass_id,
            created_at=now,
        )
        for i, insight in enumerate(verdict.accepted)
    )
