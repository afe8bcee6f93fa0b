"""The audit trail as a reader sees it, and the broker's state."""

from __future__ import annotations

from pydantic import BaseModel

from domain.audit import AuditEntry, ChainVerification
from domain.visibility import may_read
from usecases import governance
from usecases.access import founder, member, readable
from usecases.context import Ports


class AuditView(BaseModel):
    """An organization's chain, its head and (when asked) its verification."""

    entries: list[AuditEntry]
    head_hash: str
    head_seq: int
    verification: ChainVerification | None


def _for_reader(
    entry: AuditEntry,
    projects: frozenset[str],
    by_run: dict[str, set[str]],
    by_intent: dict[str, set[str]],
) -> AuditEntry:
    """``entry`` as a reader of ``projects`` sees it."""
    run_id = entry.payload.get("run_id")
    if entry.intent_id is not None:
        reach = by_intent.get(entry.intent_id, set())
    elif isinstance(run_id, str):
        reach = by_run.get(run_id, set())
    else:
        return entry  # configuration: the directory is every member's to read
    if may_read(projects, reach):
        return entry
    return entry.model_copy(update={"payload": {"withheld": "it concerns projects outside yours"}})


def audit(ports: Ports, org_id: str, actor_id: str, verify: bool) -> AuditView:
    """The org's chain; with ``verify``, every hash, link, signature and cross-check
    recomputed. The payload of an entry about a run outside the reader's projects is
    withheld."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    entries = ports.audit.entries(org_id)
    if projects is not None:
        by_run, by_intent = ports.runs.reaches(org_id)
        entries = [_for_reader(e, projects, by_run, by_intent) for e in entries]
    head = ports.audit.head(org_id)
    return AuditView(
        entries=entries,
        head_hash=head.entry_hash if head else "",
        head_seq=head.seq if head else 0,
        verification=ports.audit.verify(org_id) if verify else None,
    )


def broker_status(ports: Ports, org_id: str, actor_id: str) -> str | None:
    """Why the organization's broker is poisoned, or None when it is not."""
    member(ports, org_id, actor_id)
    with ports.governance.unit(org_id, ports.clock()) as unit:
        return unit.poisoned()


def unpoison(ports: Ports, org_id: str, actor_id: str, reason: str) -> None:
    """The founder clears a poisoned broker, on the record, once the chain verifies."""
    founder(ports, org_id, actor_id)
    governance.unpoison(
        ports.governance, org_id, actor_id, reason, ports.audit.verify(org_id), ports.clock()
    )
