"""Who may read what: the same walls that bind agents bind human readers.

A human reads a run (its task, its intents, their payloads) only when staffed on every
project it reaches; the founder, who answers for the whole organization, reads all.
Starting a run grants nothing more: a run started by a human acts on that human's
behalf, so it recalls only memory both its agent and that human may read, and what it
produced is shown only to those allowed to see what went into it. In the audit trail
the same rule withholds an entry's payload (its hashes, stage, rule and outcome stay
visible, and verification is unaffected).

Through the memory gate a principal reads the records of the projects it is currently
staffed on, except that someone staffed on both sides of a barrier (only a human can
be) reads neither side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from domain.audit.chain import AuditEntry
from domain.governance.intents import Decision
from domain.organization.contracts import Barrier, Organization, Principal, Staffing


def readable_projects(
    reader: Principal, org: Organization, staffing: Iterable[Staffing], now: datetime
) -> frozenset[str] | None:
    """The projects ``reader`` may read, or None for all of them (the founder)."""
    if reader.id == org.founder_id:
        return None
    return frozenset(
        s.project for s in staffing if s.principal_id == reader.id and s.active_at(now)
    )


def may_read(readable: frozenset[str] | None, reach: Iterable[str]) -> bool:
    """True when a reader with ``readable`` projects may read something reaching ``reach``."""
    return readable is None or set(reach) <= readable


def gated_projects(
    principal_id: str, staffing: Iterable[Staffing], barriers: Iterable[Barrier], now: datetime
) -> frozenset[str]:
    """The projects whose memory records ``principal_id`` may read through the gate."""
    allowed = {s.project for s in staffing if s.principal_id == principal_id and s.active_at(now)}
    for barrier in barriers:
        if len(barrier.groups_touched(frozenset(allowed))) > 1:
            allowed -= {p for group in barrier.groups for p in group}
    return frozenset(allowed)


def on_behalf(allowed: frozenset[str], requester: frozenset[str] | None) -> frozenset[str]:
    """What a run may recall: what its agent may read (``allowed``), narrowed to what the
    human it acts for may read (``requester``, None for all: the founder)."""
    return allowed if requester is None else allowed & requester


# The audit trail as a member reads it --------------------------------------------------------

ORG_WIDE_TABLES = frozenset(
    {
        "organization",
        "principal",
        "agent_definition",
        "charter",
        "rollout",
        "project",
        "staffing",
        "barrier",
        "identity",
    }
)
"""Configuration every member reads anyway (the directory, the fleet, the workspace's
projects, staffing and barriers): its chain entries are every member's too."""
ORG_WIDE_KINDS = frozenset(
    {
        ("audit", "foundation_broken"),
        ("audit", "verified_and_cleared"),
        ("memory", "embedder_changed"),
    }
)
"""Entries about the organization as a whole, naming no project's work: a poisoned or
cleared broker (whose state every member reads) and a change of embedder (a count)."""
_RUN_KEYS = ("run_id", "answer_run_id", "retry_run_id")
_UNKNOWN: None = None


class ChainReach:
    """The projects each entry of one organization's chain belongs to, for withholding
    what a reader may not read.

    An entry about an intent or a run reaches what that intent or run reaches; most
    others name their projects (``projects`` in the payload, or the configured record's);
    the rest are placed through what they name that an earlier or later entry placed
    (a memory record's ref, a link's two records, an offer, a finding, a lesson's cited
    events, a reviewed experience), or through ``findings`` and ``holds`` (the heartbeat's
    records, by id). Configuration of the directory, and the broker's own state, reach no
    project: every member's. Anything else is unplaced (None): shown to the founder
    alone, so that a new kind of entry is withheld until someone says where it belongs."""

    def __init__(
        self,
        entries: Iterable[AuditEntry],
        by_run: Mapping[str, Iterable[str]],
        by_intent: Mapping[str, Iterable[str]],
        findings: Mapping[str, Iterable[str]] | None = None,
        holds: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self._entries = {e.seq: e for e in entries}
        self.by_intent: Mapping[str, Iterable[str]] = by_intent
        """Each intent's reach (what a decision's evidence is read against)."""
        self._by_run = {k: frozenset(v) for k, v in by_run.items()}
        self._by_intent = {k: frozenset(v) for k, v in by_intent.items()}
        self._findings = {k: frozenset(v) for k, v in (findings or {}).items()}
        self._holds = {k: frozenset(v) for k, v in (holds or {}).items()}
        self._refs: dict[str, frozenset[str]] = {}
        self._offers: dict[str, frozenset[str]] = {}
        self._experiences: dict[str, int] = {}
        self._memo: dict[int, frozenset[str] | None] = {}
        for e in self._entries.values():  # what entries say of the things they name
            record = e.payload.get("record")
            projects = _names(e.payload.get("projects"))
            if e.payload.get("table") == "memory_record" and isinstance(record, dict):
                self._add(self._refs, e.payload.get("key"), _names(record.get("projects")))
            elif e.stage == "memory" and projects is not None:  # a refused or legacy record
                self._add(self._refs, e.payload.get("ref"), projects)
            if projects is not None and isinstance(e.payload.get("offer"), str):
                self._add(self._offers, e.payload["offer"], projects)
            if projects is not None and isinstance(e.payload.get("finding"), str):
                self._add(self._findings, e.payload["finding"], projects)
            if e.rule == "insight_accepted" and isinstance(e.payload.get("experience_id"), str):
                self._experiences[e.payload["experience_id"]] = e.seq

    @staticmethod
    def _add(into: dict[str, frozenset[str]], key: object, projects: frozenset[str] | None) -> None:
        if isinstance(key, str) and projects is not None:
            into[key] = into.get(key, frozenset()) | projects

    def of(self, entry: AuditEntry) -> frozenset[str] | None:
        """The projects ``entry`` reaches (empty: the organization's, every member's), or
        None when nothing places it."""
        if entry.seq not in self._memo:
            self._memo[entry.seq] = _UNKNOWN  # a cycle of citations places nothing
            self._memo[entry.seq] = self._place(entry)
        return self._memo[entry.seq]

    def _place(self, entry: AuditEntry) -> frozenset[str] | None:
        p = entry.payload
        record = p.get("record")
        if entry.stage == "configuration" and p.get("table") in ORG_WIDE_TABLES:
            return frozenset()
        if (entry.stage, entry.rule) in ORG_WIDE_KINDS:
            return frozenset()
        parts: list[frozenset[str] | None] = []
        if entry.intent_id is not None:
            parts.append(self._by_intent.get(entry.intent_id))
        parts += [self._by_run.get(p[k]) for k in _RUN_KEYS if isinstance(p.get(k), str)]
        if "projects" in p:
            parts.append(_names(p["projects"]))
        if "read_reach" in p:  # a question: what its run read names those projects' records
            parts.append(_names(p["read_reach"]))
        if isinstance(record, dict):
            if p.get("table") == "memory_link" or {"src", "dst"} <= set(record):
                parts += [self._refs.get(str(record.get(k))) for k in ("src", "dst")]
            else:
                parts.append(_names(record.get("projects")))
        if "link" in p and "src" in p and "dst" in p:  # a link as chains once recorded it
            parts += [self._refs.get(str(p[k])) for k in ("src", "dst")]
        if isinstance(p.get("ref"), str) and "projects" not in p:  # a redaction
            parts.append(self._refs.get(p["ref"]))
        if isinstance(p.get("document"), str):  # an extraction: its document's projects
            parts.append(self._refs.get(p["document"]))
        for key, found in (("offer", self._offers), ("finding", self._findings)):
            if isinstance(p.get(key), str):
                parts.append(found.get(p[key]))
        if isinstance(p.get("hold"), str):
            parts.append(self._holds.get(p["hold"]))
        cites = p.get("cites")
        if entry.stage == "learning" and isinstance(cites, list):
            parts += [self._cited(c) for c in cites] or [_UNKNOWN]
        if isinstance(p.get("experience_id"), str) and entry.rule != "insight_accepted":
            seq = self._experiences.get(p["experience_id"])
            cited = None if seq is None else self._entries.get(seq)
            parts.append(None if cited is None else self.of(cited))
        if not parts or any(part is None for part in parts):
            return _UNKNOWN
        return frozenset().union(*(part for part in parts if part is not None))

    def _cited(self, event: object) -> frozenset[str] | None:
        """The reach of a learning pass's work event ``a<seq>`` (its entry's)."""
        if not isinstance(event, str) or not event.startswith("a") or not event[1:].isdigit():
            return _UNKNOWN
        cited = self._entries.get(int(event[1:]))
        return None if cited is None else self.of(cited)


def _names(value: object) -> frozenset[str] | None:
    """``value`` as a set of project slugs, or None when it is not a list of them."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return frozenset(value)


# Evidence that names other work --------------------------------------------------------------

WITHHELD_EVIDENCE = "withheld: it names work outside your projects"
"""What a reader sees of a reason that names work beyond their projects."""


def _split(
    readable: frozenset[str], evidence: tuple[str, ...], reach_of: Mapping[str, Iterable[str]]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``evidence`` as (what the reader may see, the intents they may not)."""
    kept: list[str] = []
    hidden: list[str] = []
    for intent_id in evidence:
        if intent_id.startswith("record:"):  # a record the run read: within its reach
            kept.append(intent_id)
            continue
        reach = reach_of.get(intent_id)
        (kept if reach is not None and may_read(readable, reach) else hidden).append(intent_id)
    return tuple(kept), tuple(hidden)


def _withheld(part: str, hidden: tuple[str, ...]) -> str:
    return WITHHELD_EVIDENCE if any(i in part for i in hidden) else part


def evidence_for(
    readable: frozenset[str] | None,
    evidence: Iterable[str],
    reason: str,
    reach_of: Mapping[str, Iterable[str]],
) -> tuple[tuple[str, ...], str]:
    """A decision's ``evidence`` (the intents it rests on) and ``reason`` as a reader of
    ``readable`` projects (None: all) sees them: an intent beyond them, or unknown to
    ``reach_of`` (intent id → its reach), is left out, and each part of the reason that
    names one is withheld (decisions recorded before the broker named other intents in
    the evidence alone still name them, with their invoices, in the reason)."""
    evidence = tuple(evidence)
    if readable is None:
        return evidence, reason
    kept, hidden = _split(readable, evidence, reach_of)
    if hidden:
        reason = "; ".join(_withheld(part, hidden) for part in reason.split("; "))
    return kept, reason


def causes_for(
    readable: frozenset[str] | None,
    evidence: Iterable[str],
    causes: Iterable[tuple[str, str]],
    reach_of: Mapping[str, Iterable[str]],
) -> tuple[tuple[str, str], ...]:
    """A hold's causes (rule, reason) as :func:`evidence_for` shows its reason: each
    part of a cause's reason that names an intent beyond the reader's projects is
    withheld."""
    causes = tuple(causes)
    if readable is None:
        return causes
    _, hidden = _split(readable, tuple(evidence), reach_of)
    if not hidden:
        return causes
    return tuple(
        (rule, "; ".join(_withheld(part, hidden) for part in reason.split("; ")))
        for rule, reason in causes
    )


def decision_for(
    readable: frozenset[str] | None, decision: Decision, reach_of: Mapping[str, Iterable[str]]
) -> Decision:
    """``decision`` with its evidence and reason as a reader of ``readable`` sees them
    (:func:`evidence_for`)."""
    evidence, reason = evidence_for(readable, decision.evidence, decision.reason, reach_of)
    if evidence == decision.evidence and reason == decision.reason:
        return decision
    causes = causes_for(readable, decision.evidence, decision.reasons, reach_of)
    return decision.model_copy(update={"evidence": evidence, "reason": reason, "reasons": causes})
