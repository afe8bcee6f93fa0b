"""The queue's sources of what the fleet noticed by itself: recurring processes offered
as playbooks, playbooks that drift, and findings filed through the broker (the
heartbeat's). Each is resolved or confirmed at its own endpoint.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.needs_you.items import ActionKind, Evidence, ItemAction, ItemKind, QueueItem
from domain.offers.playbooks import OfferState, offered
from usecases.needs_you.sources import QueueContext


class ProcessOffers:
    """Episodes merged into a process offer: confirm it into a named playbook. Only what
    is offered (:func:`domain.offers.playbooks.offered`): a recurring process, never a
    one-off, never one that could not be confirmed (across a barrier)."""

    name = "process_offers"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.offers
        if store is None:
            return
        barriers = context.ports.directory.barriers(context.org_id)
        for offer in store.offers(context.org_id):
            if offer.state is not OfferState.OPEN or not offered(offer, barriers):
                continue
            yield QueueItem(
                kind=ItemKind.PROCESS_OFFER,
                subject_id=offer.id,
                title=f"process offer: {' → '.join(offer.tools)} ({len(offer.episodes)} episodes)",
                waiting_since=offer.created_at,
                reach=offer.projects,
                evidence=(
                    *(Evidence(label="step", detail=f"{s.tool}: {s.text}") for s in offer.steps),
                    *(Evidence(label="episode", detail="episode", ref=e) for e in offer.episodes),
                ),
                actions=(
                    ItemAction(
                        kind=ActionKind.CONFIRM,
                        path=f"/v1/offers/{offer.id}/confirm",
                        cli=f"verletica offers confirm {offer.id} --name <playbook>",
                        needs=("name",),
                    ),
                    ItemAction(
                        kind=ActionKind.REJECT,
                        path=f"/v1/offers/{offer.id}/decline",
                        cli=f"verletica offers decline {offer.id} --reason <why>",
                        needs=("reason",),
                    ),
                ),
            )


def _resolve(finding_id: str) -> ItemAction:
    """Resolving a finding, of either kind: one endpoint and one command take both."""
    return ItemAction(
        kind=ActionKind.RESOLVE,
        path=f"/v1/findings/{finding_id}/resolve",
        cli=f"verletica findings resolve {finding_id} --reason <why>",
        needs=("reason",),
    )


class DriftFindings:
    """A confirmed playbook whose later episodes consistently miss their outcome:
    resolve the finding, saying why."""

    name = "drift_findings"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.offers
        for finding in store.findings(context.org_id) if store is not None else ():
            if finding.resolved_at is not None:
                continue
            yield QueueItem(
                kind=ItemKind.DRIFT_FINDING,
                subject_id=finding.id,
                title=f"playbook {finding.playbook!r} drifts: "
                f"{finding.missed} of its last {len(finding.episodes)} episodes missed",
                waiting_since=finding.flagged_at,
                reach=finding.projects,
                evidence=(
                    Evidence(label="playbook", detail=finding.playbook, ref=finding.offer_id),
                    *(Evidence(label="episode", detail="episode", ref=e) for e in finding.episodes),
                ),
                actions=(_resolve(finding.id),),
            )


class FiledFindings:
    """Findings filed through the broker (the heartbeat's, by Sentinel): what the check
    found and the records it rests on; resolve one, saying why."""

    name = "findings"

    def items(self, context: QueueContext) -> Iterable[QueueItem]:
        store = context.ports.heartbeats
        for finding in store.findings(context.org_id) if store is not None else ():
            if finding.resolved_at is not None:
                continue
            yield QueueItem(
                kind=ItemKind.FINDING,
                subject_id=finding.id,
                title=f"{finding.kind} ({finding.severity}) filed by "
                f"{context.handle(finding.principal_id)}: {finding.summary[:80]}",
                waiting_since=finding.filed_at,
                reach=tuple(sorted(finding.projects)),
                evidence=(
                    Evidence(label="summary", detail=finding.summary, ref=finding.id),
                    Evidence(label="check", detail=f"{finding.kind}: {finding.subject}"),
                    *(
                        (Evidence(label="cites", detail="commitment", ref=finding.cites),)
                        if finding.cites
                        else ()
                    ),
                    *(Evidence(label="rests on", detail="record", ref=e) for e in finding.evidence),
                ),
                actions=(_resolve(finding.id),),
            )
