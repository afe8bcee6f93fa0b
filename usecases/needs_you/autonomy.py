"""The autonomy metrics: how much of the organization's work the fleet did without a
human, read over the work the asker may read (the measures are
:mod:`domain.needs_you.metrics`)."""

from __future__ import annotations

from functools import partial

from domain.audit.chain import AuditEntry
from domain.needs_you.chain import read_chain
from domain.needs_you.metrics import (
    AutonomyMetrics,
    autonomy,
    finding_resolution,
    process_precision,
)
from domain.offers.playbooks import OfferState
from domain.organization.visibility import may_read
from usecases.access import member, readable
from usecases.context import Ports


def _readable(
    entries: list[AuditEntry],
    projects: frozenset[str],
    run_reach: dict[str, set[str]],
    intent_reach: dict[str, set[str]],
) -> list[AuditEntry]:
    """The entries a reader of ``projects`` may read in full (as the audit trail shows
    them): configuration entries, and entries about intents and runs within them."""
    kept = []
    for entry in entries:
        run_id = entry.payload.get("run_id")
        if entry.intent_id is not None:
            reach = intent_reach.get(entry.intent_id, set())
        elif isinstance(run_id, str):
            reach = run_reach.get(run_id, set())
        else:
            reach = set()
        if may_read(projects, reach):
            kept.append(entry)
    return kept


def metrics(ports: Ports, org_id: str, actor_id: str) -> AutonomyMetrics:
    """The organization's autonomy metrics, over the work ``actor_id`` may read (the
    founder: all of it): the chain's story, and the findings (drift, and filed through the
    broker) and process offers on projects it may read."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    store, filed = ports.offers, ports.heartbeats
    findings = [
        (f.flagged_at, f.resolved_at)
        for f in (store.findings(org_id) if store is not None else ())
        if may_read(projects, f.projects)
    ] + [
        (f.filed_at, f.resolved_at)
        for f in (filed.findings(org_id) if filed is not None else ())
        if may_read(projects, f.projects)
    ]
    offers = [
        o
        for o in (store.offers(org_id) if store is not None else ())
        if may_read(projects, o.projects)
    ]
    now = ports.clock()
    told = partial(
        autonomy,
        now=now,
        findings=finding_resolution(findings, now),
        process_precision=process_precision(
            [(o.state is OfferState.CONFIRMED, len(o.episodes)) for o in offers]
        ),
    )
    if projects is None:  # all of it: the organization's story, as the queue keeps it
        with ports.stories.story(ports.audit, org_id) as story:
            return told(story)
    run_reach, intent_reach = ports.runs.reaches(org_id)
    entries = _readable(ports.audit.entries(org_id), projects, run_reach, intent_reach)
    return told(read_chain(entries))
