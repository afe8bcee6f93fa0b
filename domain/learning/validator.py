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
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from domain.organization.contracts import Frozen

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
# ("no" and "without" are read by :func:`assumed_authority`, which tells "no sign-off is
# needed" from "never pay without approval".)
_AUTHORITY = re.compile(
    rf"\b(approve|approves|approved|approval|authori[sz]e|sign[- ]off|decide){_NEAR}"
    rf"\b(itself|themselves|myself|automatically|on behalf|without|no longer|unattended)\b"
    rf"|\b(skip|bypass|no longer need){_NEAR}\b(human|approval|approver|review)\b"
    rf"|\bact(s|ing)? as (an? )?(approver|founder|admin|administrator)\b",
    re.IGNORECASE,
)
OVERREACH = (
    ("grants_access", _GRANTS, "it would grant access"),
    ("changes_policy", _POLICY, "it would change policy"),
    ("assumes_authority", _AUTHORITY, "it would assume approval authority"),
)

# Assumed authority in the words of the act itself: a text that approves, authorises,
# releases what is held, or declares sign-off unneeded, however it is phrased. Read
# clause by clause (a colon or a dash opens a new one: "Approved: release the held
# payment"), each rule a grammatical shape rather than a sentence:
#   - a verdict standing at the head of a clause ("Approved.", "Authorised for payment",
#     "hereby approved", "consider it approved");
#   - a first-person act ("I approve…", "we've signed off…", "I'm releasing the wire");
#   - an imperative that approves, or releases what is held ("Approve the invoice",
#     "release the held payment", "lift the hold");
#   - sign-off waived ("no further sign-off is needed", "skip the founder's review",
#     "proceed without approval").
# Saying that an approval is needed, awaited or someone else's assumes nothing ("the
# payment awaits the founder's approval"), nor does an act negated ("we cannot release
# it", "never pay without approval").
_CLAUSE = re.compile(r"[.;!?\n]+|:\s|\s[-\u2013\u2014]+\s|[\u2013\u2014]")
_CONTRACTIONS = (
    ("\u2019", "'"),
    ("ok'd", "okayed"),
    ("can't", "cannot"),
    ("won't", "will not"),
    ("n't", " not"),
    ("i'm", "i am"),
    ("'ve", " have"),
    ("'re", " are"),
    ("'ll", " will"),
    ("'d", " would"),
)
_APPROVES = (
    r"(?:approv(?:e|es|ed|ing)(?! of)|authori[sz](?:e|es|ed|ing)|sign(?:s|ed|ing)?[- ]?off|"
    r"green[- ]?light(?:s|ed|ing)?|greenlit|ratif(?:y|ies|ied|ying)|sanction(?:s|ed|ing)?|"
    r"countersign(?:s|ed|ing)?|okay(?:s|ed|ing)?)"
)
_APPROVE = (
    r"(?:approve(?! of)|authori[sz]e|sign off on|green[- ]?light|ratify|sanction|"
    r"countersign)"
)
_RELEASES = (
    r"(?:releas(?:e|es|ed|ing)(?! of)|unblock(?:s|ed|ing)?|unfreez(?:e|es|ing)|unfroze|"
    r"lift(?:s|ed|ing)?|clear(?:s|ed|ing)?|disburs(?:e|es|ed|ing)|push(?:es|ed|ing)? through|"
    r"let(?:s|ting)? through|wav(?:e|es|ed|ing) through|execut(?:e|es|ed|ing))"
)
_RELEASE = (
    r"(?:release(?! of)|unblock|unfreeze|lift|clear|disburse|push through|let through|"
    r"wave through|execute)"
)
_HELD = (
    r"\b(?:hold|holds|held|on hold|payments?|transfers?|wires?|funds|money|invoices?|"
    r"disbursements?|remittances?|freeze|escrow|retainer|intents?|it|them)\b"
)
_SIGN_OFF = (
    r"(?:sign[- ]?offs?|approvals?|approvers?|reviews?|authori[sz]ations?|countersignatures?|"
    r"second signatures?|consent|human|humans|founder|checks?|go-ahead)\b"
)
_FILLER = (
    r"(?:hereby|herewith|now|also|formally|officially|just|already|hence|therefore|thus|"
    r"fully|do|does|did|have|has|am|are|will|shall|can|would|hereupon|duly|go ahead and)"
)
_LEAD = r"(?:please|kindly|so|then|now|just|ok|okay|go ahead and|you may|you can|feel free to)"
_NEGATED = re.compile(r"\b(?:not|never|cannot|no one|nobody|nothing|none|no)\b")
_WORDS = r"(?:\S+\s+){0,3}?"
_ASSUMED = tuple(
    re.compile(pattern)
    for pattern in (
        # a verdict at the head of a clause, or declared
        rf"^(?:{_LEAD}\s+)?(?:approved|authori[sz]ed|signed[- ]off|cleared|greenlit|"
        rf"green-?lit|sanctioned|ratified|okayed)\b(?!\s+by\b)",
        r"^(?:the |this |that )?(?:[\w'-]+\s+){0,2}(?:approved|authori[sz]ed|signed[- ]off|"
        r"cleared|greenlit|green-?lit|sanctioned|ratified|released)$",
        r"^go ahead(?: with (?:it|this|the \w+))?$",
        rf"\bhereby\b.{{0,30}}\b(?:{_APPROVES}|{_RELEASES}|waiv\w*|grant\w*)",
        r"\b(?:consider|treat|deem|mark|record|count)(?:s|ed|ing)?\b.{0,40}?\b(?:as\s+)?"
        r"(?:approved|authori[sz]ed|signed[- ]off|cleared for (?:payment|release))\b",
        # a first-person act
        rf"\b(?:i|we)\b(?:\s+{_FILLER})*\s+(?:{_APPROVES}|give (?:my|our) (?:approval|"
        rf"sign-?off|go-ahead|consent|authori[sz]ation)|grant(?:ed|ing)? (?:my |our )?"
        rf"(?:approval|authori[sz]ation)|waiv(?:e|ed|ing)\b)",
        rf"\b(?:i|we)\b(?:\s+{_FILLER})*\s+{_RELEASES}\b.*{_HELD}",
        # an imperative
        rf"^(?:{_LEAD}\s+)*{_APPROVE}\b",
        rf"^(?:{_LEAD}\s+)*{_RELEASE}\b.*{_HELD}",
        # an approval said to be given, by the speaker or as a fact (found by review)
        r"\b(?:approval|authori[sz]ation|sign-?off|go-ahead|consent|clearance)\s+"
        r"(?:(?:is|has been|was|hereby)\s+){0,2}(?:granted|given|confirmed|issued)\b"
        r"(?!\s+(?:by|from)\s+(?!me\b|us\b|myself\b))",
        r"\b(?:approved|authori[sz]ed|signed[- ]off|cleared|okayed|sanctioned)\s+by\s+"
        r"(?:me|us|myself|ourselves)\b",
        # an imperative to pay or send what is held, or a verdict that it may be
        rf"^(?:{_LEAD}\s+)*(?:pay(?! attention| heed)|wire|send|transfer|remit)\b.*\b(?:held|"
        r"on hold|blocked|"
        r"frozen|stopped)\b",
        r"^(?:it'?s\s+|it is\s+|that'?s\s+|all\s+)?(?:ok|okay|fine|safe|good|clear|free)\s+"
        r"to\s+(?:pay|release|proceed|wire|send|transfer|disburse|go)\b",
        # sign-off waived
        rf"\b(?:no|without)\s+{_WORDS}{_SIGN_OFF}.{{0,30}}?\b(?:is |are )?(?:needed|required|"
        r"necessary)\b",
        rf"\b{_SIGN_OFF}\s*(?:is|are|was|will be)\s+(?:not|no longer|un)\s*(?:needed|"
        r"required|necessary)|\b" + _SIGN_OFF + r"\s*(?:is|are)\s+(?:unnecessary|optional|"
        r"superfluous|redundant|a formality)",
        rf"\b(?:needs?|needing|requires?|requiring|takes?) no\s+{_WORDS}{_SIGN_OFF}",
        rf"\b{_SIGN_OFF}\s*(?:(?:can|may|could|should|will|is|are)\s+)?(?:be\s+|been\s+)?"
        r"(?:skipped|waived|bypassed|dropped|omitted|dispensed with|ignored|overridden|"
        r"set aside)\b",
        rf"\b(?:skip|skipping|bypass|bypassing|waive|waiving|waived|forgo|forgoing|dispense "
        rf"with|circumvent|sidestep|omit|omitting|override|overriding|ignore|ignoring)\s+"
        rf"{_WORDS}{_SIGN_OFF}",
        rf"\b(?:no need|needless|need not|needs not|no longer needs?|does not need|do not "
        rf"need|is no longer required)\s+(?:to\s+|for\s+|of\s+)?(?:(?:wait for|get|seek|ask "
        rf"for|obtain|have)\s+)?{_WORDS}{_SIGN_OFF}",
        rf"(?:^|\b(?:can|may|could|should|will|shall|must|to|and|now|then|just|simply)\s+)"
        rf"(?:proceed|pay|release|send|wire|execute|approve|go ahead|move forward|continue|"
        rf"dispatch|transfer|disburse)\b[^,]{{0,50}}?\bwithout\s+{_WORDS}{_SIGN_OFF}",
    )
)
_WAIVING_WITHOUT = _ASSUMED[-1]


def _plain(text: str) -> str:
    """``text`` as it reads: compatibility forms folded (a full-width I is an I) and the
    invisible format characters dropped (a zero-width space splits no word for a reader),
    so that neither hides an approving word from the patterns."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _clauses(text: str) -> list[str]:
    lowered = " ".join(_plain(text).lower().split())
    for spelled, meant in _CONTRACTIONS:
        lowered = lowered.replace(spelled, meant)
    return [c.strip(" ,\"'()[]*") for c in _CLAUSE.split(lowered) if c.strip()]


def assumed_authority(text: str) -> str | None:
    """The words in ``text`` that approve, authorise, release what is held or waive
    sign-off (see above), or None."""
    for clause in _clauses(text):
        for pattern in _ASSUMED:
            found = pattern.search(clause)
            if found is None:
                continue
            # "Never pay without approval": a negated act is a rule stated, not one waived.
            if pattern is _WAIVING_WITHOUT and _NEGATED.search(clause[: found.start() + 1]):
                continue
            return found.group(0).strip()
    return None


def overreach(text: str) -> tuple[str, str] | None:
    """Whether ``text`` reads as granting access, changing policy or assuming authority:
    the rule and the reason, or None."""
    for rule, pattern, why in OVERREACH:
        found = pattern.search(text)
        if found is not None:
            return rule, f"{why}: {found.group(0)!r}"
    assumed = assumed_authority(text)
    if assumed is not None:
        return "assumes_authority", f"it would assume approval authority: {assumed!r}"
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
