"""Commitments under review: extracted from documents by an agent, confirmed or rejected
by a human.

An extracted commitment is evidence: it binds nothing until a human with authority over
it confirms it, and a rejected one never binds. Who may review a commitment: the
founder, or a human staffed as approver, now, on every project it binds (one that binds
the whole organization, the founder alone).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from domain.audit.chain import AuditDraft
from domain.commitments.extraction import (
    ExtractedObligation,
    ExtractionInput,
    ExtractionRejection,
    ExtractionReply,
    ExtractionResult,
)
from domain.errors import Forbidden, NotFound, Unavailable
from domain.governance.broker import current_projects
from domain.memory.ports import MemoryBankPort
from domain.memory.release import NodeView, Release
from domain.organization.contracts import (
    MAX_REASON,
    Commitment,
    Constraint,
    Delivery,
    Obligation,
    Organization,
    Principal,
    Provenance,
)
from domain.organization.kinds import PrincipalKind, PrincipalStatus, ReviewState, StaffRole
from domain.organization.ports import ConfigurationStore, OrgChange
from domain.organization.visibility import may_read
from usecases.access import member, readable
from usecases.context import Ports, new_id

EXTRACTION = "extraction"
"""The audit stage of an extraction's own entries (its refused replies)."""
_IDS = uuid.UUID("5b0f6a52-4c1e-4a8e-9a43-6f0d7c1f2e11")
"""Namespace of the commitment ids an extraction derives, so that a retried recording
finds the commitments it wrote instead of writing them twice."""


def check_reviewer(
    change: OrgChange, org: Organization, actor: Principal, commitment: Commitment
) -> None:
    """Refuse (:class:`Forbidden`) an ``actor`` who may not confirm or reject ``commitment``."""
    if actor.id == org.founder_id:
        return
    approves = current_projects(tuple(change.staffing(actor.id)), change.now, StaffRole.APPROVER)
    if commitment.projects and set(commitment.projects) <= approves:
        return
    raise Forbidden(
        "only the founder or an approver on every project it binds may review a commitment"
    )


def _reviewing(ports: Ports, commitment_id: str, actor_id: str) -> tuple[Organization, Principal]:
    actor = ports.directory.find_principal(actor_id)
    if actor is None:
        raise NotFound(f"no commitment {commitment_id}")
    return member(ports, actor.org_id, actor_id)


def confirm(ports: Ports, commitment_id: str, actor_id: str) -> Commitment:
    """A human with authority over it confirms an extracted commitment; from then on it
    binds. A confirmed or rejected one is a Conflict."""
    org, actor = _reviewing(ports, commitment_id, actor_id)
    with ports.configuration.change(org.id, actor_id, ports.clock) as change:
        check_reviewer(change, org, actor, change.commitment(commitment_id))
        return change.confirm_commitment(commitment_id)


def reject(ports: Ports, commitment_id: str, actor_id: str, reason: str) -> Commitment:
    """A human with authority over it rejects an extracted commitment, saying why: it
    never binds. Rejecting a confirmed one, or rejecting twice, is a Conflict."""
    if not reason.strip() or len(reason) > MAX_REASON:
        raise ValueError(f"a rejection needs a reason of at most {MAX_REASON} characters")
    org, actor = _reviewing(ports, commitment_id, actor_id)
    with ports.configuration.change(org.id, actor_id, ports.clock) as change:
        check_reviewer(change, org, actor, change.commitment(commitment_id))
        return change.reject_commitment(commitment_id, reason.strip())


KEEPABLE = (Delivery, Obligation)
"""Commitments a human marks kept: a delivery delivered, an obligation met. A spend cap or
a notice period is not kept once; it expires."""


def fulfil(ports: Ports, commitment_id: str, actor_id: str, note: str) -> Commitment:
    """A human with authority over it marks a confirmed delivery or obligation kept,
    saying how (a reference to what was delivered): it binds no more, the broker stops
    holding late deliveries under it and the heartbeat stops watching it. Once."""
    note = note.strip()
    if not note or len(note) > MAX_REASON:
        raise ValueError(
            f"marking a commitment kept needs a note of at most {MAX_REASON} characters"
        )
    org, actor = _reviewing(ports, commitment_id, actor_id)
    with ports.configuration.change(org.id, actor_id, ports.clock) as change:
        found = change.commitment(commitment_id)
        check_reviewer(change, org, actor, found)
        if not isinstance(found.constraint, KEEPABLE):
            raise ValueError(
                f"a {found.constraint.kind} is not kept once: it binds until it expires"
            )
        return change.fulfil_commitment(commitment_id, note)


# extraction -------------------------------------------------------------------------------


async def extract(
    ports: Ports,
    org_id: str,
    actor_id: str,
    ref: str,
    extractor_id: str,
    projects: tuple[str, ...] = (),
) -> ExtractionResult:
    """Have ``extractor_id`` (an active agent) read memory record ``ref`` through the
    memory gate and extract its obligations; each becomes a commitment in state
    ``extracted`` binding ``projects`` (by default the document's own; they must be among
    them). The extractor reads on the asker's behalf, so only what both may read (a
    document either may not is :class:`NotFound`). Runs as a Temporal workflow; returns
    once it has finished."""
    member(ports, org_id, actor_id)
    if ports.extractions is None:
        raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
    extractor = ports.directory.principal(org_id, extractor_id)
    if extractor.kind is not PrincipalKind.AGENT or extractor.status is not PrincipalStatus.ACTIVE:
        raise ValueError("the extractor must be an active agent of the organization")
    extraction = ExtractionInput(
        org_id=org_id,
        extraction_id=str(uuid.uuid4()),
        document_ref=ref,
        extractor_id=extractor_id,
        requested_by=actor_id,
        projects=projects,
    )
    # The read the extraction will make, made now to learn the document's projects: one
    # that the extractor may not make for this asker is refused before anything starts,
    # and looks like an unknown record (the asker learns nothing of what they may not read).
    view = extractor_view(ports.memory, extraction, ports.clock())
    if view.release is Release.WITHHELD:
        raise NotFound(f"no memory record {ref} that {extractor.handle} may read for you")
    outside = set(projects) - set(view.projects)
    if outside:
        raise ValueError(
            f"{', '.join(sorted(outside))}: a document's obligations bind only its own projects"
        )
    if not projects:
        extraction = extraction.model_copy(update={"projects": view.projects})
    return await ports.extractions.run(extraction)


def extractor_view(memory: MemoryBankPort, extraction: ExtractionInput, now: datetime) -> NodeView:
    """The document as the extractor may read it on the asker's behalf (gated, logged)."""
    return memory.get(
        asker_principal_id=extraction.extractor_id,
        org_id=extraction.org_id,
        ref=extraction.document_ref,
        now=now,
        on_behalf_of=extraction.requested_by,
    )


def commitment_id(extraction_id: str, index: int) -> str:
    """The id of the ``index``-th commitment of an extraction (stable across retries)."""
    return str(uuid.uuid5(_IDS, f"{extraction_id}:{index}"))


def _commitment(
    extraction: ExtractionInput,
    reply: ExtractionReply,
    index: int,
    item: ExtractedObligation,
    now: datetime,
) -> Commitment:
    return Commitment(
        id=commitment_id(extraction.extraction_id, index),
        org_id=extraction.org_id,
        title=item.title,
        constraint=item.constraint,
        provenance=Provenance(
            source=extraction.document_ref,
            excerpt=item.quote,
            recorded_by=extraction.requested_by,
            document=extraction.document_ref,
            span=(item.start, item.end),
            extractor=extraction.extractor_id,
            model=f"{reply.provider}/{reply.model}",
        ),
        state=ReviewState.EXTRACTED,
        projects=extraction.projects,
        valid_from=now,
    )


def rejection_draft(
    extraction: ExtractionInput, reply: ExtractionReply, rejection: ExtractionRejection
) -> AuditDraft:
    """A refused extractor reply: what was wrong and the reply's hash (never its text)."""
    return AuditDraft(
        event_key=f"extraction:{extraction.extraction_id}:rejected",
        actor=extraction.extractor_id,
        decision="rejected",
        stage=EXTRACTION,
        rule=rejection.rule,
        payload={
            "reason": rejection.reason,
            "document": extraction.document_ref,
            "reply_digest": reply.reply_digest,
            "model": f"{reply.provider}/{reply.model}",
            "requested_by": extraction.requested_by,
        },
    )


def record_extraction(
    configuration: ConfigurationStore,
    clock: Callable[[], datetime],
    extraction: ExtractionInput,
    reply: ExtractionReply,
) -> ExtractionResult:
    """Record what the extractor found, as commitments in state ``extracted`` with their
    provenance, or its refused reply in the audit chain. Idempotent: a retry finds what
    an earlier attempt committed."""
    with configuration.change(extraction.org_id, extraction.requested_by, clock) as change:
        if reply.rejection is not None:
            change.note(rejection_draft(extraction, reply, reply.rejection))
            return ExtractionResult(rejection=reply.rejection)
        recorded: list[Commitment] = []
        for index, item in enumerate(reply.obligations):
            try:
                recorded.append(change.commitment(commitment_id(extraction.extraction_id, index)))
                continue
            except NotFound:
                pass
            commitment = _commitment(extraction, reply, index, item, change.now)
            recorded.append(change.add_commitment(commitment))
        return ExtractionResult(commitments=tuple(recorded))


@dataclass(frozen=True)
class AddCommitment:
    """An extracted commitment to record: its title, its constraint, the document it
    came from (with the excerpt that says it), the projects it binds and when it holds."""

    title: str
    constraint: Constraint
    source: str
    excerpt: str = ""
    projects: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_until: datetime | None = None


def add_commitment(
    ports: Ports,
    org_id: str,
    actor_id: str,
    command: AddCommitment,
) -> Commitment:
    """Record an extracted commitment: evidence until a human confirms it. A member
    records one only on projects they may read (as an episode): what it says about a
    project is that project's, and a commitment behind a wall is not theirs to know of;
    one that names no project (the organization's) binds nothing until the founder
    confirms it, so any member may record it."""
    org, actor = member(ports, org_id, actor_id)
    if not may_read(readable(ports, org, actor), command.projects):
        raise Forbidden("a commitment may bind only projects you may read")
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        unknown = set(command.projects) - change.project_slugs()
        if unknown:
            raise NotFound(f"no project {', '.join(sorted(unknown))}")
        commitment = Commitment(
            id=new_id(),
            org_id=org_id,
            title=command.title,
            constraint=command.constraint,
            provenance=Provenance(
                source=command.source, excerpt=command.excerpt, recorded_by=actor_id
            ),
            state=ReviewState.EXTRACTED,
            projects=command.projects,
            valid_from=command.valid_from or change.now,
            valid_until=command.valid_until,
        )
        return change.add_commitment(commitment)


def commitments(ports: Ports, org_id: str, actor_id: str) -> list[Commitment]:
    """The organization's commitments that ``actor_id`` may read: those within their
    projects (a commitment of a project behind a wall quotes its documents), and the
    organization-wide ones."""
    org, actor = member(ports, org_id, actor_id)
    allowed = readable(ports, org, actor)
    return [c for c in ports.directory.commitments(org_id) if may_read(allowed, c.projects)]
