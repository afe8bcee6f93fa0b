"""The audit trail as a reader sees it, and the broker's state."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from domain.audit.anchor import AnchorReading
from domain.audit.bundle import Bundle, ConsistencyProof, InclusionProof
from domain.audit.chain import AuditEntry, ChainVerification
from domain.audit.checkpoint import parse_note
from domain.audit.ports import AuditError
from domain.errors import NotFound
from domain.needs_you.chain import causes_of
from domain.organization.configuration import STANDING_RULES
from domain.organization.visibility import ChainReach, causes_for, evidence_for, may_read
from usecases import governance
from usecases.access import founder, member, readable
from usecases.context import Ports


class AuditView(BaseModel):
    """An organization's chain, its head and (when asked) its verification."""

    entries: list[AuditEntry]
    head_hash: str
    head_seq: int
    verification: ChainVerification | None
    keys: list[str] = []
    """The public keys that sign its checkpoints (C2SP vkeys), oldest first."""
    anchored_size: int | None = None
    """How many entries the checkpoint kept outside the database covers, when it was
    held against the chain."""
    anchor_reached: bool | None = None
    """Whether the anchor could be asked (None: it was not)."""


WITHHELD = {"withheld": "it concerns projects outside yours"}
"""What a reader sees of the payload of an entry it may not read."""
WITHHELD_KEY = "withheld"
"""What a reader sees of the event key of an entry it may not read."""


def for_reader(entry: AuditEntry, projects: frozenset[str], reach: ChainReach) -> AuditEntry:
    """``entry`` as a reader of ``projects`` sees it: whole when everything it reaches is
    theirs, else its hashes, stage, rule and outcome without its payload, nor its event
    key (a key names what it records: ``config:memory_record:<ref>:…``)."""
    placed = reach.of(entry)
    if placed is None or not may_read(projects, placed):
        return entry.model_copy(update={"payload": dict(WITHHELD), "event_key": WITHHELD_KEY})
    evidence = entry.payload.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        return entry
    # A decision the reader may read may rest on intents they may not (a collision).
    kept, reason = evidence_for(
        projects, map(str, evidence), str(entry.payload.get("reason", "")), reach.by_intent
    )
    if list(kept) == evidence and reason == entry.payload.get("reason"):
        return entry
    payload = {**entry.payload, "evidence": list(kept), "reason": reason}
    causes = causes_of(entry.payload)
    if causes:  # each cause of a hold, as the joined reason: what names hidden work withheld
        seen = causes_for(projects, map(str, evidence), causes, reach.by_intent)
        payload["reasons"] = [list(cause) for cause in seen]
    return entry.model_copy(update={"payload": payload})


WITHHELD_REASON = "withheld: the founder's to read"
"""What a member reads in place of a standing's reason (so a hash that no longer
matches says why)."""
PRIVATE_REASONS = frozenset({*STANDING_RULES.values(), "identity_unlinked"})
"""Configuration entries whose reason is the founder's to read: why someone was
suspended, brought back or offboarded is often a personnel matter."""


def without_standing_reason(entry: AuditEntry) -> AuditEntry:
    """``entry`` without the founder's reason, when it records someone's standing (the
    move itself, who and when, stays for every member to read)."""
    if entry.stage != "configuration" or entry.rule not in PRIVATE_REASONS:
        return entry
    payload = dict(entry.payload)
    if "reason" in payload:
        payload["reason"] = WITHHELD_REASON
    record = payload.get("record")
    if isinstance(record, dict) and record.get("status_reason") is not None:
        payload["record"] = {**record, "status_reason": WITHHELD_REASON}
    return entry.model_copy(update={"payload": payload})


def chain_reach(ports: Ports, org_id: str, entries: list[AuditEntry]) -> ChainReach:
    """Where each of ``entries`` (the organization's chain) belongs."""
    by_run, by_intent = ports.runs.reaches(org_id)
    findings: dict[str, tuple[str, ...]] = {}
    holds: dict[str, tuple[str, ...]] = {}
    if ports.heartbeats is not None:
        findings = {f.id: f.projects for f in ports.heartbeats.findings(org_id)}
        holds = {h.id: h.projects for h in ports.heartbeats.standing_holds(org_id)}
    return ChainReach(entries, by_run, by_intent, findings, holds)


async def anchored(ports: Ports, org_id: str, actor_id: str) -> AnchorReading:
    """The organization's newest checkpoint as the anchor holds it, outside the database
    (asked only for a member of the organization)."""
    await asyncio.to_thread(member, ports, org_id, actor_id)
    if ports.anchor is None:
        return AnchorReading(reached=False)
    return await ports.anchor.anchored(org_id)


def audit(
    ports: Ports,
    org_id: str,
    actor_id: str,
    *,
    verify: bool,
    anchored: AnchorReading | None = None,
) -> AuditView:
    """The org's chain; with ``verify``, every hash, link, signature and cross-check
    recomputed, and the chain held to its checkpoints and to ``anchored`` (see
    :func:`anchored`). The payload of an entry that reaches a project outside the reader's
    (:class:`~domain.organization.visibility.ChainReach`), or that nothing places, is withheld."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    # verified and listed from one read: what is shown is what was verified
    verification, entries = (
        ports.audit.verified_entries(org_id, anchored.note if anchored else None)
        if verify
        else (None, ports.audit.entries(org_id))
    )
    if projects is not None:
        reach = chain_reach(ports, org_id, entries)
        entries = [for_reader(e, projects, reach) for e in entries]
    if actor.id != org.founder_id:
        entries = [without_standing_reason(e) for e in entries]
    head = ports.audit.head(org_id)
    return AuditView(
        entries=entries,
        head_hash=head.entry_hash if head else "",
        head_seq=head.seq if head else 0,
        verification=verification,
        keys=ports.audit.log_keys(),
        anchored_size=None
        if anchored is None or anchored.note is None
        else parse_note(anchored.note).checkpoint().size,
        anchor_reached=None if anchored is None else anchored.reached,
    )


def intent_trail(ports: Ports, org_id: str, actor_id: str, intent_id: str) -> list[AuditEntry]:
    """The entries about one intent, as ``actor_id`` may read them (see :func:`audit`).

    Read by the intent's own index; a reader who may not read every project has them
    placed as the whole chain places them (an entry may be placed through others)."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    if projects is None:
        return ports.audit.of_intent(org_id, intent_id)
    entries = ports.audit.entries(org_id)
    reach = chain_reach(ports, org_id, entries)
    return [for_reader(e, projects, reach) for e in entries if e.intent_id == intent_id]


def prove(
    ports: Ports,
    org_id: str,
    actor_id: str,
    *,
    seq: int | None = None,
    intent_id: str | None = None,
) -> list[InclusionProof]:
    """The proof that an entry (by sequence number), or every entry about an intent, is
    in the organization's newest signed checkpoint: for the founder, who may hand it to
    anyone (a client, an auditor) to check with the public key alone."""
    founder(ports, org_id, actor_id)
    if intent_id is not None:
        seqs = [e.seq for e in ports.audit.of_intent(org_id, intent_id)]
        if not seqs:
            raise NotFound(f"no audit entry is about intent {intent_id}")
    elif seq is not None:
        seqs = [seq]
    else:
        raise ValueError("name an entry (its sequence number) or an intent")
    try:
        return [ports.audit.inclusion(org_id, s, ports.clock()) for s in seqs]
    except AuditError as e:
        raise NotFound(str(e)) from None


def consistency(ports: Ports, org_id: str, actor_id: str, old: int, new: int) -> ConsistencyProof:
    """The proof that the checkpoint of ``new`` entries extends the one of ``old``."""
    member(ports, org_id, actor_id)
    try:
        return ports.audit.consistency(org_id, old, new)
    except (AuditError, ValueError) as e:
        raise NotFound(str(e)) from None


def export(
    ports: Ports, org_id: str, actor_id: str, anchored: AnchorReading | None = None
) -> Bundle:
    """The whole chain, its checkpoints and public keys, for a verifier offline (the
    founder: every entry whole)."""
    founder(ports, org_id, actor_id)
    return ports.audit.export(org_id, ports.clock(), anchored.note if anchored else None)


def broker_status(ports: Ports, org_id: str, actor_id: str) -> str | None:
    """Why the organization's broker is poisoned, or None when it is not."""
    member(ports, org_id, actor_id)
    with ports.governance.unit(org_id, ports.clock()) as unit:
        return unit.poisoned()


def unpoison(
    ports: Ports,
    org_id: str,
    actor_id: str,
    reason: str,
    anchored: AnchorReading | None = None,
) -> None:
    """The founder clears a poisoned broker, on the record, once the chain verifies, held
    to the anchor's checkpoint when it could be read (a rolled-back chain is not cleared;
    the anchor's next pass would stop it again anyway)."""
    founder(ports, org_id, actor_id)
    note = anchored.note if anchored else None
    governance.unpoison(
        ports.governance, org_id, actor_id, reason, ports.audit.verify(org_id, note), ports.clock()
    )
