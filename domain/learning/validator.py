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
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from domain.learning.overreach import overreach
from domain.learning.records import Experience, Insight, InsightStatus, Refused, WorkEvent
from domain.organization.contracts import Frozen

MAX_INSIGHTS = 5


class LearningVerdict(Frozen):
    """What the validator kept (as candidates) and what it refused."""

    accepted: tuple[Insight, ...] = ()
    refused: tuple[Refused, ...] = ()
    status: InsightStatus = InsightStatus.CANDIDATE


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
