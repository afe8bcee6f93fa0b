"""The counterfactual of a held or rejected intent, for one asker.

Read top-down: who may see it, the record read back in one read-only transaction (the
decision replayed and the snapshot the broker read then), the stages run again with
enforcement off (pure), the referenced records seen through the memory gate as this
asker, and the view redacted for this asker. Nothing is decided, claimed, written or
appended to the chain; the memory gate logs its reads, as it logs every read.
"""

from __future__ import annotations

from domain.counterfactual.replay import Counterfactual, replay, replayed_decision, view
from domain.errors import Conflict, NotFound, Unavailable
from domain.memory.release import Release
from domain.organization.visibility import decision_for, may_read
from usecases.access import member, readable
from usecases.context import Ports


def counterfactual(ports: Ports, intent_id: str, actor_id: str) -> Counterfactual:
    """What ``intent_id`` would have done without enforcement, as ``actor_id`` may see it.

    The asker must be an active human of the intent's organization who may read the
    projects the intent was proposed in (its declared projects and its run's); to anyone
    else it does not exist (:class:`NotFound`). What the intent reached beyond them (a
    record across a wall) is withheld in the view, never shown. An intent that was let
    through has no counterfactual (:class:`Conflict`)."""
    unknown = NotFound(f"no intent {intent_id}")
    found = ports.runs.intent(intent_id)
    if found is None:
        raise unknown
    intent, _, run_id = found
    try:
        org, actor = member(ports, intent.org_id, actor_id)
    except NotFound:
        raise unknown from None
    projects = readable(ports, org, actor)
    run = ports.runs.get(run_id)
    proposed = {*intent.projects, *intent.read_reach, *(() if run is None else run.projects)}
    if not may_read(projects, proposed):
        raise unknown
    if ports.replays is None:
        raise Unavailable("this process cannot read the governance record back")
    with ports.replays.read(intent.org_id) as unit:
        stored = unit.stored(intent_id)
        if stored is None:
            raise unknown
        decision = replayed_decision(stored, unit.decisions(intent_id))
        if decision is None:
            raise Conflict(
                f"intent {intent_id} is {stored.status}"
                f"{', written' if stored.dispatched else ''}: only an intent that "
                "enforcement held or rejected has a counterfactual"
            )
        snapshot, basis = unit.snapshot_at(stored.intent, decision)
        replayed = replay(stored.intent, snapshot)
        others = unit.others([*replayed.in_flight, *replayed.completed])
    if projects is not None:  # the decision may rest on intents the asker may not read
        decision = decision_for(projects, decision, ports.runs.reaches(intent.org_id)[1])
    now = ports.clock()
    released: dict[str, tuple[str, ...] | None] = {}
    for ref in dict.fromkeys(stored.intent.references):
        node = ports.memory.get(asker_principal_id=actor_id, org_id=org.id, ref=ref, now=now)
        released[ref] = None if node.release is Release.WITHHELD else node.projects
    return view(replayed, stored, decision, basis, projects, released, others)
