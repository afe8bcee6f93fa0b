"""What the rows outside the audit chain must agree with it.

The chain is signed; the other tables are not. So verification also reads them and
checks that each tells the chain's story: a decision row repeats its entry, a
connector row (a payment, an email) was dispatched on the record with exactly the
payload that was decided, every write that may not be repeated can still be found by
its operation key (so the same invoice is not paid twice), and the organization's
configuration (principals, charters,
projects, staffing, barriers, commitments, destinations, memory nodes, links and
procedures) is exactly what its
``configuration`` entries say. Someone who edits one of those rows without the audit
key cannot make it agree.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.audit.chain import AuditDraft, ChainLink
from domain.canonical import sha256_hex
from domain.fleet.registry import Rollout
from domain.governance.broker import operation_key
from domain.governance.intents import Outcome
from domain.memory.adapter import MemoryLink, Procedure
from domain.memory.release import StoredNode
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Frozen,
    Identity,
    Organization,
    Principal,
    Project,
    Staffing,
)
from domain.tools import REGISTRY

DISPATCHED = "dispatched"
CONFIGURATION = "configuration"
_MAY_DISPATCH = frozenset({Outcome.ALLOW.value, Outcome.APPROVED.value})


class ConfigRecord(Frozen):
    """One configuration record as it stands: ``table`` and ``key`` name it, ``record``
    is its canonical JSON form (the domain object's ``model_dump(mode="json")``); None
    in an entry records its removal (an identity unlinked)."""

    table: str
    key: str
    record: dict[str, Any] | None


Configured = (
    Organization
    | Principal
    | AgentDefinition
    | Charter
    | Project
    | Staffing
    | Barrier
    | Commitment
    | Identity
    | Rollout
    | Destination
)


def config_record(item: Configured) -> ConfigRecord:
    """The canonical record of a configuration object, as the chain keeps it."""
    record = item.model_dump(mode="json")
    match item:
        case Organization():
            return ConfigRecord(table="organization", key=item.id, record=record)
        case Principal():
            for added in ("status_since", "status_reason"):  # as first recorded, unset
                if record[added] is None:
                    del record[added]
            return ConfigRecord(table="principal", key=item.id, record=record)
        case AgentDefinition():
            key = f"{item.principal_id}:v{item.version}"
            return ConfigRecord(table="agent_definition", key=key, record=record)
        case Charter():
            key = f"{item.principal_id}:v{item.version}"
            if not item.skills:  # as charters were recorded before they had skills
                del record["skills"]
            return ConfigRecord(table="charter", key=key, record=record)
        case Rollout():
            return ConfigRecord(table="rollout", key=item.principal_id, record=record)
        case Project():
            return ConfigRecord(table="project", key=item.slug, record=record)
        case Staffing():
            return ConfigRecord(table="staffing", key=item.id, record=record)
        case Barrier():
            return ConfigRecord(table="barrier", key=item.id, record=record)
        case Commitment():
            return ConfigRecord(table="commitment", key=item.id, record=_as_first_recorded(record))
        case Destination():
            return ConfigRecord(table="destination", key=item.id, record=record)
        case Identity():
            key = f"{item.kind.value}:{item.external_id}"
            if record["linked_by"] is None:  # as first recorded, before it was kept
                del record["linked_by"]
            return ConfigRecord(table="identity", key=key, record=record)


_COMMITMENT_ADDED = ("rejected_by", "rejected_at", "rejection_reason")
_PROVENANCE_ADDED = ("document", "span", "extractor", "model")
"""Fields a commitment and its provenance gained with extraction and rejection."""


def _as_first_recorded(record: dict[str, Any]) -> dict[str, Any]:
    """A commitment's record without the fields added later while they are unset, so
    that chains written before those fields existed still agree with the rows."""
    kept = {k: v for k, v in record.items() if not (k in _COMMITMENT_ADDED and v is None)}
    provenance = record.get("provenance")
    if isinstance(provenance, dict):
        kept["provenance"] = {
            k: v for k, v in provenance.items() if not (k in _PROVENANCE_ADDED and v is None)
        }
    return kept


def memory_config_record(node: StoredNode) -> ConfigRecord:
    """The canonical record of a memory node: where it belongs, what it says and which
    stretches of it are tagged identifying detail (offsets, never values)."""
    return ConfigRecord(
        table="memory_record",
        key=node.ref,
        record={
            "projects": list(node.projects),
            "text_sha256": sha256_hex(node.text.encode("utf-8")),
            "spans": [[s.kind, s.start, s.end] for s in node.spans],
            "kind": node.kind,
            "source": node.source,
        },
    )


def link_config_record(link: MemoryLink) -> ConfigRecord:
    """The canonical record of a link between memory nodes."""
    span = None if link.span_start is None else [link.span_start, link.span_end]
    return ConfigRecord(
        table="memory_link",
        key=link.id,
        record={"src": link.src, "dst": link.dst, "kind": link.kind, "span": span},
    )


def procedure_config_record(procedure: Procedure) -> ConfigRecord:
    """The canonical record of a procedure version: where it belongs, its steps' hash."""
    steps = "\n".join(procedure.steps).encode("utf-8")
    return ConfigRecord(
        table="memory_procedure",
        key=f"{procedure.name}:v{procedure.version}",
        record={"projects": list(procedure.projects), "steps_sha256": sha256_hex(steps)},
    )


_LEGACY_MEMORY_RECORD = frozenset({"projects", "text_sha256"})
"""What a memory record's entry held before its spans, kind and source were recorded."""


def _as_recorded_then(state: dict[str, Any], recorded: dict[str, Any]) -> dict[str, Any]:
    """A memory node's stored state in the form its entry recorded it: entries written
    before spans, kind and source were recorded are compared on what they hold."""
    if set(recorded) == _LEGACY_MEMORY_RECORD:
        return {k: state[k] for k in _LEGACY_MEMORY_RECORD}
    return state


def _legacy_memory_record(entry: ChainLink) -> ConfigRecord | None:
    """A link or a procedure version as chains written before they were configuration
    recorded it (a ``memory`` entry, ``linked`` or ``published``), in today's form."""
    payload = entry.payload
    if entry.decision == "linked" and "link" in payload:
        span = payload.get("span")
        return ConfigRecord(
            table="memory_link",
            key=str(payload["link"]),
            record={
                "src": payload.get("src"),
                "dst": payload.get("dst"),
                "kind": entry.rule,
                "span": list(span) if span else None,
            },
        )
    if entry.decision == "published" and "name" in payload and "version" in payload:
        return ConfigRecord(
            table="memory_procedure",
            key=f"{payload['name']}:v{payload['version']}",
            record={
                "projects": list(payload.get("projects") or []),
                "steps_sha256": payload.get("steps_sha256"),
            },
        )
    return None


def config_draft(change: ConfigRecord, actor: str, rule: str, reason: str = "") -> AuditDraft:
    """The audit entry that records a configuration change: the record's new state, and
    why when the one who made it said so."""
    payload = change.model_dump(mode="json")
    if reason:
        payload["reason"] = reason
    return AuditDraft(
        event_key=f"config:{change.table}:{change.key}:{uuid.uuid4()}",
        actor=actor,
        decision="configured",
        stage=CONFIGURATION,
        rule=rule,
        payload=payload,
    )


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """A decision row as stored (a plain dataclass: verification builds one per row)."""

    row: str
    intent_id: str
    audit_seq: int
    entry_hash: str
    outcome: str
    stage: str
    rule: str
    reason: str
    reasons: tuple[tuple[str, str], ...] = ()
    """Each cause of a hold of several, with its rule (what the console shows)."""


def causes(value: object) -> tuple[tuple[str, str], ...]:
    """A hold's causes as (rule, reason) pairs, from a row or an entry's ``reasons``
    (none: absent, or not a list of pairs)."""
    if not isinstance(value, list | tuple):
        return ()
    return tuple(
        (str(c[0]), str(c[1])) for c in value if isinstance(c, list | tuple) and len(c) == 2
    )


@dataclass(frozen=True, slots=True)
class WriteRecord:
    """A connector row as stored: the write a system received."""

    system: str
    intent_id: str
    audit_seq: int
    entry_hash: str
    payload: dict[str, Any]
    """The row's fields that come from the intent's payload."""


@dataclass(frozen=True, slots=True)
class _Seen:
    entry_hash: str
    intent_id: str | None
    decision: str
    stage: str
    rule: str
    reason: object
    reasons: tuple[tuple[str, str], ...]


class ChainFacts:
    """Collects, while the chain is walked, what the rows outside it are checked against.

    Only the entries the rows name are kept, so memory grows with the rows, not the chain.
    """

    def __init__(self, decisions: Iterable[DecisionRecord], writes: Iterable[WriteRecord]) -> None:
        self.decisions = list(decisions)
        self.writes = list(writes)
        self._wanted = {r.audit_seq for r in self.decisions} | {w.audit_seq for w in self.writes}
        self._written = {w.intent_id for w in self.writes}
        self._seen: dict[int, _Seen] = {}
        self._bodies: dict[str, dict[str, Any]] = {}
        self._dispatched: dict[str, str] = {}
        self._config: dict[tuple[str, str], tuple[int, Any]] = {}

    def observe(self, entry: ChainLink) -> None:
        """Note what later checks need of ``entry`` (called once per verified entry)."""
        if entry.seq in self._wanted:
            self._seen[entry.seq] = _Seen(
                entry_hash=entry.entry_hash,
                intent_id=entry.intent_id,
                decision=entry.decision,
                stage=entry.stage,
                rule=entry.rule,
                reason=entry.payload.get("reason"),
                reasons=causes(entry.payload.get("reasons")),
            )
        body = entry.payload.get("intent")
        if entry.intent_id is not None and isinstance(body, dict):
            tool = REGISTRY.get(str(body.get("tool")))
            if entry.intent_id in self._written or (tool is not None and not tool.repeatable):
                self._bodies.setdefault(entry.intent_id, body)
        if entry.decision == DISPATCHED and entry.intent_id is not None:
            self._dispatched[entry.intent_id] = entry.rule
        if entry.stage == CONFIGURATION:
            table, key = entry.payload.get("table"), entry.payload.get("key")
            self._config[(str(table), str(key))] = (entry.seq, entry.payload.get("record"))
        elif entry.stage == "memory":
            legacy = _legacy_memory_record(entry)
            if legacy is not None:
                self._config[(legacy.table, legacy.key)] = (entry.seq, legacy.record)

    def problem(
        self, written: Mapping[str, str | None], config: Iterable[ConfigRecord]
    ) -> tuple[int, str] | None:
        """(the entry concerned, what disagrees) for the first disagreement, or None.

        ``written`` maps each intent stored as dispatched to its stored operation key;
        ``config`` is the organization's configuration as stored.
        """
        stored = {(c.table, c.key): c.record for c in config}
        for (table, key), state in sorted(stored.items()):
            entry = self._config.get((table, key))
            if entry is None:
                return 0, f"{table} {key} is stored, but no configuration entry records it"
            seq, recorded = entry
            if recorded is None:
                return seq, f"{table} {key} is stored, but entry {seq} removed it"
            if table == "memory_record" and isinstance(recorded, dict) and state is not None:
                state = _as_recorded_then(state, recorded)
            if recorded != state:
                return seq, f"{table} {key} differs from what entry {seq} recorded"
        for (table, key), (seq, recorded) in sorted(self._config.items()):
            if recorded is not None and (table, key) not in stored:
                return seq, f"{table} {key} was recorded by entry {seq}, but is gone"
        for record in self.decisions:
            found = self._decision_problem(record)
            if found is not None:
                return record.audit_seq, f"decision row {record.row}: {found}"
        for write in self.writes:
            found = self._write_problem(write)
            if found is not None:
                return write.audit_seq, f"{write.system} row {write.intent_id}: {found}"
        for intent_id in self._dispatched:
            if intent_id not in written:
                return 0, f"intent {intent_id} was dispatched, but is no longer stored as such"
            body = self._bodies.get(intent_id)
            tool = None if body is None else REGISTRY.get(str(body.get("tool")))
            if body is not None and tool is not None and not tool.repeatable:
                op_key = operation_key(tool, body.get("payload") or {})
                if written[intent_id] != op_key:
                    return 0, f"intent {intent_id} did {op_key}, but is stored under another key"
        return None

    def _named(self, seq: int, entry_hash: str, intent_id: str) -> _Seen | str:
        seen = self._seen.get(seq)
        if seen is None:
            return f"names audit entry {seq}, which is not in the chain"
        if seen.entry_hash != entry_hash:
            return f"names entry {seq} with a hash the chain does not have"
        if seen.intent_id != intent_id:
            return f"names entry {seq}, which is about another intent"
        return seen

    def _decision_problem(self, record: DecisionRecord) -> str | None:
        seen = self._named(record.audit_seq, record.entry_hash, record.intent_id)
        if isinstance(seen, str):
            return seen
        stored = (record.outcome, record.stage, record.rule, record.reason, record.reasons)
        recorded = (seen.decision, seen.stage, seen.rule, seen.reason, seen.reasons)
        if stored != recorded:
            return f"says {stored[:3]}, entry {record.audit_seq} says {recorded[:3]} (or reasons)"
        return None

    def _write_problem(self, write: WriteRecord) -> str | None:
        seen = self._named(write.audit_seq, write.entry_hash, write.intent_id)
        if isinstance(seen, str):
            return seen
        if seen.decision not in _MAY_DISPATCH:
            return f"names entry {write.audit_seq}, whose decision is {seen.decision}"
        rule = self._dispatched.get(write.intent_id)
        if rule is None:
            return "was written, but the chain records no dispatch of it"
        if rule.partition(".")[0] != write.system:
            return f"the chain records a {rule} write, not a {write.system} one"
        body = self._bodies.get(write.intent_id)
        if body is None or body.get("payload") != write.payload:
            return "differs from the payload the broker decided"
        return None
