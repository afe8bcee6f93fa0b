"""Process offers: episodes of work merged into offers, confirmed into playbooks, and the
drift of confirmed playbooks, found and resolved.

An episode is a sequence of steps (a tool and the words used for it) with whether it met
its outcome; it comes from a run (its intents, in order, with their justifications) or is
submitted for work done outside Verletica. A review places every episode no offer holds
yet: it joins the first offer one of whose episodes it is the same process as
(:func:`domain.offers.merge.same_process`), or starts an offer of its own. Reviewing again
adds nothing. A human (the founder, or an approver on every project of the offer)
confirms an offer into a named playbook in procedural memory, readable through the memory
gate like any record of its projects. A drift review flags a confirmed playbook whose
later episodes consistently miss their outcome (:func:`domain.offers.playbooks.drift`); a
finding is resolved once, with a reason (a second resolution is a Conflict).

Every change is made under the organization's lock and recorded in its audit chain.
"""

from __future__ import annotations

import re
import uuid

from pydantic import BaseModel

from domain.audit.chain import AuditDraft
from domain.canonical import digest
from domain.errors import Conflict, Forbidden, NotFound, Refused
from domain.governance.broker import current_projects
from domain.memory.ports import EmbedPurpose
from domain.offers.merge import Step
from domain.offers.playbooks import (
    MAX_TEXT,
    EpisodeRecord,
    OfferRecord,
    offer_id,
    offer_problem,
    offered,
    place,
    playbook_steps,
    readings,
    run_episode,
)
from domain.offers.ports import OfferChange, OfferStore
from domain.organization.contracts import Organization, Principal
from domain.organization.kinds import StaffRole
from domain.organization.visibility import may_read
from usecases.access import check_reviewer, member, readable, stated
from usecases.context import Ports
from usecases.memory import screen_text
from usecases.organization import check_placement

STAGE = "learning"
"""The audit stage of offers, playbooks and drift findings."""


MAX_NAME = 120


MAX_TOOL = 100


TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
"""What a step's tool is: a tool's name (``email.send``, ``docs.draft``), never prose:
it is part of the playbook a reader follows."""


class Reviewed(BaseModel):
    """What a review of episodes did."""

    placed: int
    """Episodes this review placed that the reviewer may read (in an offer, or kept
    as a one-off until a differently worded episode of the same process comes)."""
    created: list[str]
    """Offers this review made (the reviewer may read them): a process that became a
    recurring one, offered on one side of every barrier."""
    joined: list[str]
    """Offers already offered that this review added evidence to (the reviewer may
    read them)."""
    offers: list[OfferRecord]
    """The organization's offers the reviewer may read, after the review (only what is
    offered: :func:`domain.offers.playbooks.offered`)."""


def offer_store(ports: Ports) -> OfferStore:
    if ports.offers is None:
        raise NotFound("process offers are not kept by this process")
    return ports.offers


def offer_draft(key: str, actor: str, decision: str, rule: str, **payload: object) -> AuditDraft:
    return AuditDraft(
        event_key=key, actor=actor, decision=decision, stage=STAGE, rule=rule, payload=payload
    )


def check_offer_reviewer(
    change: OfferChange, org: Organization, actor: Principal, projects: tuple[str, ...], what: str
) -> None:
    """Refuse (:class:`Forbidden`) an ``actor`` who is neither the founder nor an approver,
    now, on every one of ``projects`` (none: the founder alone)."""
    if actor.id == org.founder_id:
        return
    approves = current_projects(tuple(change.staffing(actor.id)), change.now, StaffRole.APPROVER)
    if projects and set(projects) <= approves:
        return
    raise Forbidden(f"only the founder or an approver on every project of it may {what}")


def record_episode(
    ports: Ports,
    org_id: str,
    actor_id: str,
    steps: list[Step],
    outcome_met: bool | None = None,
    projects: tuple[str, ...] = (),
) -> EpisodeRecord:
    """Record an episode of work done outside Verletica (a member's, on projects it may
    read). Its words are screened like memory (instruction-like text is refused: they
    may become a playbook's) and embedded with this process's embedder."""
    org, actor = member(ports, org_id, actor_id)
    store = offer_store(ports)
    if not steps:
        raise ValueError("an episode needs at least one step")
    for step in steps:
        tool_ok = len(step.tool) <= MAX_TOOL and TOOL_NAME.fullmatch(step.tool) is not None
        if not tool_ok or not step.text.strip() or len(step.text) > MAX_TEXT:
            raise ValueError(
                f"each step needs a one-line tool name (letters, digits, '.', '_', '-'; at "
                f"most {MAX_TOOL} characters) and a text of at most {MAX_TEXT}"
            )
    refused = _screened(ports, steps)
    if refused:
        raise Refused("the steps read as instructions: " + "; ".join(refused))
    projects = tuple(sorted(set(projects)))
    if not may_read(readable(ports, org, actor), projects):
        raise Forbidden("an episode may concern only projects you may read")
    # Embedded before the organization's lock is taken: a model call never holds it.
    vectors = ports.embedder.embed([s.text for s in steps], EmbedPurpose.DOCUMENT)
    with store.change(org_id, actor_id, ports.clock) as change:
        check_placement(change, projects)
        episode = EpisodeRecord(
            id=str(uuid.uuid4()),
            org_id=org_id,
            steps=tuple(steps),
            outcome_met=outcome_met,
            projects=projects,
            recorded_by=actor_id,
            recorded_at=change.now,
            embedder=ports.embedder.name,
            vectors=tuple(vectors),
        )
        change.add_episode(episode)
        change.note(_episode_draft(episode, actor_id))
    return episode


def _screened(ports: Ports, steps: list[Step] | tuple[Step, ...]) -> list[str]:
    """Why the steps read as instructions once they are a playbook (empty: they do
    not): every field, and the steps joined as the playbook reads them
    (:func:`domain.offers.playbooks.readings`), through the ingestion screen."""
    reasons: list[str] = []
    for text in readings(steps):
        screened = screen_text(ports, text)
        reasons += [r for r in screened.reasons if r not in reasons]
        if reasons:
            return reasons
    return reasons


def _new_offer(change: OfferChange, actor_id: str, episode: EpisodeRecord) -> OfferRecord:
    """An offer of ``episode``'s process, with it as its first evidence."""
    offer = change.add_offer(
        OfferRecord(
            id=offer_id(episode.id),
            org_id=episode.org_id,
            tools=tuple(s.tool for s in episode.steps),
            steps=episode.steps,
            projects=episode.projects,
            episodes=(episode.id,),
            created_at=change.now,
        )
    )
    change.note(
        offer_draft(
            f"offer:{offer.id}",
            actor_id,
            "offered",
            "offer_created",
            offer=offer.id,
            tools=list(offer.tools),
            episodes=list(offer.episodes),
            projects=list(offer.projects),
        )
    )
    return offer


def _join(
    change: OfferChange, actor_id: str, offer: OfferRecord, episode: EpisodeRecord
) -> OfferRecord:
    """``offer`` with ``episode`` as its newest evidence."""
    joined = change.join(offer.id, episode.id)
    change.note(
        offer_draft(
            f"offer:{offer.id}:{episode.id}",
            actor_id,
            "merged",
            "offer_evidence_added",
            offer=offer.id,
            episode=episode.id,
            projects=list(joined.projects),
        )
    )
    return joined


HARVEST_BATCH = 500
"""The most runs one review turns into episodes (the rest wait for the next)."""


def _episode_draft(episode: EpisodeRecord, actor_id: str) -> AuditDraft:
    return offer_draft(
        f"episode:{episode.id}",
        actor_id,
        "recorded",
        "episode_recorded",
        episode=episode.id,
        source=episode.source,
        run_id=episode.run_id,
        tools=[s.tool for s in episode.steps],
        outcome_met=episode.outcome_met,
        projects=list(episode.projects),
    )


def harvest_runs(ports: Ports, org_id: str, actor_id: str) -> int:
    """Turn the organization's settled runs into episodes (:func:`run_episode`): a run is
    an episode, once. Embedded before the lock is taken; a run another review harvested
    meanwhile is skipped. How many episodes were recorded."""
    store = offer_store(ports)
    ready = [
        (run, found)
        for run in store.unharvested(org_id, HARVEST_BATCH)
        if (found := run_episode(run)) is not None
    ]
    if not ready:
        return 0
    texts = [step.text for _, (steps, _, _) in ready for step in steps]
    vectors = iter(ports.embedder.embed(texts, EmbedPurpose.DOCUMENT))
    count = 0
    with store.change(org_id, actor_id, ports.clock) as change:
        have = {e.run_id for e in change.episodes() if e.run_id is not None}
        for run, (steps, met, projects) in ready:
            mine = tuple(next(vectors) for _ in steps)
            if run.run_id in have:
                continue
            episode = change.add_episode(
                EpisodeRecord(
                    id=f"run-{run.run_id}",
                    org_id=org_id,
                    steps=steps,
                    outcome_met=met,
                    projects=projects,
                    source="run",
                    run_id=run.run_id,
                    recorded_by=actor_id,
                    recorded_at=change.now,
                    embedder=ports.embedder.name,
                    vectors=mine,
                )
            )
            change.note(_episode_draft(episode, actor_id))
            count += 1
    return count


def review_episodes(ports: Ports, org_id: str, actor_id: str) -> Reviewed:
    """Turn settled runs into episodes, then place every episode no offer holds yet (a
    member's review; oldest first): into the first offer of exactly its projects that it
    is the same process as (:func:`domain.offers.playbooks.place`), or into a new one.
    Repeated, it adds nothing. What it answers is made of what the reviewer may read
    alone: nothing in it depends on an offer the reviewer may not read."""
    org, actor = member(ports, org_id, actor_id)
    harvest_runs(ports, org_id, actor_id)
    touched: list[str] = []
    with offer_store(ports).change(org_id, actor_id, ports.clock) as change:
        barriers = change.barriers()
        episodes = change.episodes()
        kept = change.offers()
        before = {o.id for o in kept if offered(o, barriers)}
        members: dict[str, list[EpisodeRecord]] = {o.id: [] for o in kept}
        for e in episodes:
            if e.offer_id is not None:
                members[e.offer_id].append(e)
        unplaced = [e for e in episodes if e.offer_id is None]
        for episode in unplaced:
            home = place(episode, [(o, members[o.id]) for o in kept])
            if home is None:
                offer = _new_offer(change, actor_id, episode)
                kept.append(offer)
                members[offer.id] = []
            else:
                offer = _join(change, actor_id, home, episode)
                kept[kept.index(home)] = offer
            if offer.id not in touched:
                touched.append(offer.id)
            members[offer.id].append(episode)
        kept = change.offers()
    # The reviewer hears only of offers it may read: how many episodes went elsewhere
    # would tell of work it may not see.
    projects = readable(ports, org, actor)
    mine = [o for o in kept if may_read(projects, o.projects)]
    visible = {o.id: o for o in mine if offered(o, barriers)}
    new = {e.id for e in unplaced}
    return Reviewed(
        placed=sum(e in new for o in mine for e in o.episodes),
        created=[o for o in touched if o in visible and o not in before],
        joined=[o for o in touched if o in visible and o in before],
        offers=list(visible.values()),
    )


def offers(ports: Ports, org_id: str, actor_id: str) -> list[OfferRecord]:
    """The organization's offers that ``actor_id`` may read (all of its projects):
    those offered (:func:`domain.offers.playbooks.offered`), never a one-off nor one
    that could not be confirmed."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    barriers = ports.directory.barriers(org_id)
    return [
        o
        for o in offer_store(ports).offers(org_id)
        if may_read(projects, o.projects) and offered(o, barriers)
    ]


def _visible_offer(ports: Ports, offer_id: str, actor_id: str) -> tuple[Organization, Principal]:
    """The offer's organization and the actor, if the actor may read the offer; to
    anyone else it does not exist."""
    offer = offer_store(ports).offer(offer_id)
    actor = ports.directory.find_principal(actor_id)
    if offer is None or actor is None or actor.org_id != offer.org_id:
        raise NotFound(f"no offer {offer_id}")
    org, actor = member(ports, offer.org_id, actor_id)
    if not may_read(readable(ports, org, actor), offer.projects):
        raise NotFound(f"no offer {offer_id}")
    return org, actor


def decline_offer(ports: Ports, offer_id: str, actor_id: str, reason: str) -> OfferRecord:
    """Decline an open offer, with the reason (the founder, or an approver on every one
    of its projects; on the record). It is not offered again, nor is the same process:
    its later episodes still join it, as evidence. Declining twice, or a confirmed
    offer, is a Conflict."""
    said = stated(reason)
    org, actor = _visible_offer(ports, offer_id, actor_id)
    with offer_store(ports).change(org.id, actor_id, ports.clock) as change:
        offer = next((o for o in change.offers() if o.id == offer_id), None)
        if offer is None:
            raise NotFound(f"no offer {offer_id}")
        check_offer_reviewer(change, org, actor, offer.projects, "decline an offer")
        declined = change.decline_offer(offer_id, said)
        change.note(
            offer_draft(
                f"offer:{offer_id}:declined",
                actor_id,
                "declined",
                "offer_declined",
                offer=offer_id,
                reason=said,
                projects=list(declined.projects),
            )
        )
    return declined


def confirm_offer(ports: Ports, offer_id: str, actor_id: str, name: str) -> OfferRecord:
    """Confirm an open offer into playbook ``name``: its steps published as the next
    version of that procedure, belonging to the offer's projects (the founder, or an
    approver on every one of them). Confirming twice is a Conflict."""
    name = name.strip()
    if not name or len(name) > MAX_NAME or "\n" in name:
        raise ValueError(f"a playbook needs a one-line name of at most {MAX_NAME} characters")
    org, actor = _visible_offer(ports, offer_id, actor_id)
    found = offer_store(ports).offer(offer_id)
    if found is None:
        raise NotFound(f"no offer {offer_id}")
    check_reviewer(ports, org, actor, found.projects, ports.clock(), "confirm an offer")
    # Screened again as the playbook will read, whatever the episode's source (a run's
    # justifications are a model's words) and whenever it was recorded: outside the
    # lock, as the screen may ask a model. (Its steps are its first episode's: they
    # never change.)
    refused = _screened(ports, found.steps)
    if refused:
        with offer_store(ports).change(org.id, actor_id, ports.clock) as change:
            change.note(
                offer_draft(
                    f"offer:{offer_id}:refused:{digest(refused)[:16]}",
                    actor_id,
                    "refused",
                    "offer_screened",
                    offer=offer_id,
                    reasons=refused,
                )
            )
        raise Refused("the playbook would read as instructions: " + "; ".join(refused))
    with offer_store(ports).change(org.id, actor_id, ports.clock) as change:
        offer = next((o for o in change.offers() if o.id == offer_id), None)
        if offer is None:
            raise NotFound(f"no offer {offer_id}")
        check_offer_reviewer(change, org, actor, offer.projects, "confirm an offer")
        problem = offer_problem(offer, change.barriers())
        if problem is not None:
            raise Conflict(f"offer {offer_id} cannot be confirmed: {problem}")
        check_placement(change, offer.projects)
        version = change.add_procedure(name, offer.projects, playbook_steps(offer))
        confirmed = change.confirm_offer(offer_id, name, version)
        change.note(
            offer_draft(
                f"offer:{offer_id}:confirmed",
                actor_id,
                "confirmed",
                "offer_confirmed",
                offer=offer_id,
                playbook=name,
                version=version,
                episodes=list(confirmed.episodes),
                projects=list(confirmed.projects),
            )
        )
    return confirmed
