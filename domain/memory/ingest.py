"""The audit entries that memory ingestion adds beside what it stores: a refused text and
the identifying detail removed from a text. Neither holds the text or value it is about
(hashes and offsets only). What is stored (nodes, links, procedure versions) is
recorded as configuration (see :mod:`domain.audit.crosscheck`)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable

from domain.audit.chain import AuditDraft
from domain.canonical import sha256_hex
from domain.memory.release import Span

MEMORY = "memory"
"""The audit stage of memory ingestion."""


def refusal_draft(
    actor: str, ref: str, projects: Iterable[str], text: str, reasons: Iterable[str]
) -> AuditDraft:
    """A refused text: who tried, where, the kinds of reason, the text's hash."""
    return AuditDraft(
        event_key=f"memory:refused:{ref}:{uuid.uuid4()}",
        actor=actor,
        decision="refused",
        stage=MEMORY,
        rule="instruction_like",
        payload={
            "ref": ref,
            "projects": list(projects),
            "reasons": sorted({r.split(":", 1)[0] for r in reasons}),
            "text_sha256": sha256_hex(text.encode("utf-8")),
        },
    )


def redaction_draft(
    actor: str, ref: str, removed: Iterable[Span], kept: Iterable[Span]
) -> AuditDraft:
    """Identifying detail removed at ingestion (kind and offsets into the text as given)
    and what stays tagged (counts by kind); never a value."""
    tagged = dict(Counter(span.kind for span in kept))
    return AuditDraft(
        event_key=f"memory:redacted:{ref}:{uuid.uuid4()}",
        actor=actor,
        decision="redacted",
        stage=MEMORY,
        rule="identifying_detail",
        payload={
            "ref": ref,
            "removed": [{"kind": s.kind, "start": s.start, "end": s.end} for s in removed],
            "tagged": tagged,
        },
    )


def reembed_draft(actor: str, embedder: str, count: int) -> AuditDraft:
    """Records embedded again by another model (after a change of embedder)."""
    return AuditDraft(
        event_key=f"memory:reembedded:{embedder}:{uuid.uuid4()}",
        actor=actor,
        decision="reembedded",
        stage=MEMORY,
        rule="embedder_changed",
        payload={"embedder": embedder, "records": count},
    )
