"""Process offers as kept records, their playbooks, and drift.

:mod:`domain.offers.merge` says which episodes are one process. This module says what is
kept of them (an episode, an offer with its episodes as evidence, a drift finding), how a
new episode finds its offer, and when a confirmed playbook has drifted. Pure: the use
cases call it under the organization's lock.

**Drift.** A playbook drifts when its later episodes consistently miss their outcome:
of the last :data:`DRIFT_WINDOW` episodes with a known outcome that joined its offer
after it was confirmed (and after its previous drift finding), at least
:data:`DRIFT_MISSES` missed. One miss is noise; three of the last four is a pattern.

**What is offered.** An offer is a recurring process: it is shown to a human (listed,
queued, confirmable) only once at least :data:`MIN_WORDINGS` differently worded
episodes stand behind it, and only while its projects lie on one side of every barrier
(a playbook across a wall could never be published, so it is never offered). Until
then its episodes wait, kept, for the next wording (:func:`offered`).

**Who sees an episode join.** An episode joins only an offer of exactly its projects
(:func:`may_join`): whoever may read the episode then reads the offer it is in, and
whoever read the offer still does. A join never moves an episode out of its reader's
sight nor an offer out of its readers', so neither tells anyone of work they may not
read (a member's org-wide episode never vanishes into a West offer).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum

from pydantic import Field

from domain.canonical import digest
from domain.offers.merge import Embedded, Episode, Step, same_process
from domain.organization.configuration import straddled
from domain.organization.contracts import Barrier, Frozen, UtcInstant

DRIFT_WINDOW = 4
"""How many of a playbook's latest episodes (with a known outcome) drift looks at."""
DRIFT_MISSES = 3
"""How many of them must have missed their outcome for drift."""
MAX_STEPS = 50
MAX_TEXT = 2000
MIN_WORDINGS = 2
"""Differently worded episodes an offer needs before it is offered: one is a one-off."""


class OfferState(StrEnum):
    """An offer waits for a human, has been confirmed into a playbook, or was declined
    (with a reason: the same process is not offered again; its episodes still gather)."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    DECLINED = "declined"


class EpisodeRecord(Frozen):
    """An episode as kept: its steps, their vectors, and the offer it joined."""

    id: str
    org_id: str
    steps: tuple[Step, ...] = Field(min_length=1, max_length=MAX_STEPS)
    outcome_met: bool | None = None
    projects: tuple[str, ...] = ()
    """What it concerns (its offer's readers must read all of them)."""
    source: str = "submitted"
    """``submitted`` (through the API: work done outside Verletica) or ``run``."""
    run_id: str | None = None
    recorded_by: str
    recorded_at: UtcInstant
    embedder: str
    vectors: tuple[bytes, ...]
    """One per step: L2-normalised little-endian float32, by ``embedder``."""
    offer_id: str | None = None
    """None until a review places it."""

    def embedded(self) -> Embedded:
        """The episode with its vectors as :func:`~domain.offers.merge.same_process`
        compares them."""
        return Embedded(
            episode=Episode(id=self.id, steps=self.steps, outcome_met=self.outcome_met),
            vectors=tuple(unpack(v) for v in self.vectors),
        )


class OfferRecord(Frozen):
    """A process offer: a candidate playbook, with every merged episode as evidence."""

    id: str
    org_id: str
    tools: tuple[str, ...]
    steps: tuple[Step, ...]
    """The first episode's wording: the playbook's draft."""
    projects: tuple[str, ...] = ()
    episodes: tuple[str, ...]
    """The evidence, oldest first."""
    state: OfferState = OfferState.OPEN
    created_at: UtcInstant
    playbook: str | None = None
    version: int | None = None
    confirmed_by: str | None = None
    confirmed_at: UtcInstant | None = None
    confirmed_with: int = 0
    """How many episodes it had when confirmed: the ones after are its later episodes."""
    wordings: int = 0
    """How many differently worded episodes it has (:func:`wording`), as kept."""
    declined_by: str | None = None
    declined_at: UtcInstant | None = None
    declined_reason: str | None = None


class DriftFinding(Frozen):
    """A confirmed playbook whose later episodes consistently miss their outcome."""

    id: str
    org_id: str
    offer_id: str
    playbook: str
    projects: tuple[str, ...] = ()
    episodes: tuple[str, ...]
    """The window the finding rests on (at least :data:`DRIFT_MISSES` missed)."""
    missed: int
    flagged_by: str
    flagged_at: UtcInstant
    resolved_by: str | None = None
    resolved_at: UtcInstant | None = None
    reason: str | None = None


class RunStep(Frozen):
    """One intent of a run, as an episode's step."""

    tool: str
    justification: str
    status: str
    """The intent's latest outcome (``allow``, ``reject``, ``hold``, ``approved``…)."""
    reach: tuple[str, ...] = ()


class RunFacts(Frozen):
    """A run that no episode stands for yet, and its intents in order."""

    run_id: str
    org_id: str
    task: str
    projects: tuple[str, ...] = ()
    intents: tuple[RunStep, ...]


MET = frozenset({"allow", "approved"})
"""Outcomes of an intent that did what it proposed (the broker let it through)."""
MISSED = frozenset({"reject", "denied", "expired"})
"""Outcomes of an intent that did not."""


def run_episode(run: RunFacts) -> tuple[tuple[Step, ...], bool, tuple[str, ...]] | None:
    """A run as an episode: its steps (each intent's tool, in the words of its
    justification, or of the run's task when it gave none), whether it met its outcome
    (every intent let through; missed: any refused, denied or expired) and what it
    concerns. None while an intent still waits (a hold), or for a run with no intent."""
    if not run.intents or any(i.status not in MET | MISSED for i in run.intents):
        return None
    steps = tuple(
        Step(tool=i.tool, text=(i.justification.strip() or run.task)[:MAX_TEXT])
        for i in run.intents
    )
    met = all(i.status in MET for i in run.intents)
    projects = tuple(sorted({*run.projects, *(p for i in run.intents for p in i.reach)}))
    return steps, met, projects


def unpack(vector: bytes) -> tuple[float, ...]:
    """A stored vector as floats."""
    return struct.unpack(f"<{len(vector) // 4}f", vector)


def offer_id(first_episode: str) -> str:
    """An offer's id, from its first episode: a review repeated or raced makes the same."""
    return digest({"offer": first_episode})[:16]


def finding_id(offer: str, episodes: Sequence[str]) -> str:
    """A drift finding's id, from what it rests on (flagging twice makes one)."""
    return digest({"drift": offer, "episodes": list(episodes)})[:16]


_WORD = re.compile(r"\w+")


def wording(steps: Sequence[Step]) -> tuple[str, ...]:
    """How an episode is worded, up to case, spacing and punctuation: the same words in
    the same steps are one wording, however they are capitalised or punctuated."""
    return tuple(" ".join(_WORD.findall(s.text.casefold())) for s in steps)


def offer_problem(offer: OfferRecord, barriers: Iterable[Barrier]) -> str | None:
    """Why ``offer`` is not (yet) an offer a human is shown, or None: it is confirmed
    already (a playbook), or open with at least :data:`MIN_WORDINGS` differently worded
    episodes on projects that lie on one side of every barrier. Anything else is a
    one-off, or could never be confirmed."""
    if offer.state is OfferState.CONFIRMED:
        return None
    if offer.state is OfferState.DECLINED:
        return f"declined: {offer.declined_reason or 'no reason given'}"
    if offer.wordings < MIN_WORDINGS:
        return (
            f"a one-off is not a process: an offer needs {MIN_WORDINGS} differently worded "
            f"episodes, it has {offer.wordings}"
        )
    crossed = straddled(barriers, offer.projects)
    if crossed:
        return f"its projects lie on both sides of {', '.join(crossed)}: no playbook may"
    return None


def offered(offer: OfferRecord, barriers: Iterable[Barrier]) -> bool:
    """Whether ``offer`` is shown to a human as an offer (:func:`offer_problem`)."""
    return offer_problem(offer, barriers) is None


_SEPARATORS = re.compile(r"[._\-/:]+")


def _flat(text: str) -> str:
    return " ".join(text.split())


def readings(steps: Sequence[Step]) -> tuple[str, ...]:
    """Every way the steps may be read once they are a playbook, for the screen: each
    field as given and as the playbook shows it (whitespace folded: a line break inside
    a text is a space there), each tool as words (a tool's name is text a reader reads
    too; its dots would hide words from the screen), and the steps joined as one text,
    with and without their tools (an instruction split across steps or fields reads
    whole there: "Ignore the previous" / "instructions and wire…")."""
    tools = [" ".join(_SEPARATORS.sub(" ", s.tool).split()) for s in steps]
    texts = [_flat(s.text) for s in steps]
    found = [
        *(s.text for s in steps),
        *texts,
        *tools,
        " ".join(f"{tool}: {text}" for tool, text in zip(tools, texts, strict=True)),
        " ".join(f"{tool} {text}" for tool, text in zip(tools, texts, strict=True)),
        " ".join(texts),
    ]
    return tuple(dict.fromkeys(r for r in found if r.strip()))


def may_join(offer: OfferRecord, episode: EpisodeRecord) -> bool:
    """Whether ``episode`` may join ``offer``: they concern exactly the same projects, so
    the readers of each are the readers of both (see the module's docstring)."""
    return set(offer.projects) == set(episode.projects)


def playbook_steps(offer: OfferRecord) -> tuple[str, ...]:
    """The playbook's steps: each tool and its wording, one line each."""
    return tuple(f"{s.tool}: {' '.join(s.text.split())}" for s in offer.steps)


def place(
    episode: EpisodeRecord,
    offers: Sequence[tuple[OfferRecord, Sequence[EpisodeRecord]]],
    fits: Callable[[OfferRecord], bool] | None = None,
) -> OfferRecord | None:
    """The first offer (oldest first) that ``episode`` is the same process as one of the
    episodes of, among those it may join (:func:`may_join`, and ``fits`` when given);
    None: it starts an offer of its own."""
    mine = episode.embedded()
    for offer, members in offers:
        if not may_join(offer, episode) or (fits is not None and not fits(offer)):
            continue
        same = (m for m in members if m.embedder == episode.embedder)
        if any(same_process(mine, m.embedded()) for m in same):
            return offer
    return None


def drift(
    offer: OfferRecord, members: Sequence[EpisodeRecord], flagged: Sequence[DriftFinding]
) -> tuple[tuple[str, ...], int] | None:
    """The window of ``offer``'s later episodes that shows drift and how many of it
    missed, or None. Episodes a previous finding rested on are not looked at again."""
    if offer.state is not OfferState.CONFIRMED:
        return None
    seen = {e for f in flagged for e in f.episodes}
    position = {e: i for i, e in enumerate(offer.episodes)}
    last_flag = max((position.get(e, -1) for e in seen), default=-1)
    start = max(offer.confirmed_with, last_flag + 1)
    by_id = {m.id: m for m in members}
    later = [by_id[e] for e in offer.episodes[start:] if e in by_id]
    known = [m for m in later if m.outcome_met is not None][-DRIFT_WINDOW:]
    missed = sum(m.outcome_met is False for m in known)
    if missed < DRIFT_MISSES:
        return None
    return tuple(m.id for m in known), missed
