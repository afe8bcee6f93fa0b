"""The audit entries that memory writes add beside what they store: a refused text, the
identifying detail removed from a text, a link, a procedure version. None holds the
text, value or steps it is about (hashes and offsets only)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable

from domain.audit import AuditDraft
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


def link_draft(
    actor: str, link_id: str, src: str, dst: str, kind: str, span: tuple[int, int] | None
) -> AuditDraft:
    """A link between two records."""
    return AuditDraft(
        event_key=f"memory:link:{link_id}",
        actor=actor,
        decision="linked",
        stage=MEMORY,
        rule=kind,
        payload={"link": link_id, "src": src, "dst": dst, "span": list(span) if span else None},
    )


def procedure_draft(
    actor: str, name: str, version: int, projects: Iterable[str], steps: Iterable[str]
) -> AuditDraft:
    """A procedure version published: where it belongs and the hash of its steps."""
    return AuditDraft(
        event_key=f"memory:procedure:{name}:{version}",
        actor=actor,
        decision="published",
        stage=MEMORY,
        rule="procedure",
        payload={
            "name": name,
            "version": version,
            "projects": list(projects),
            "steps_sha256": sha256_hex("\n".join(steps).encode("utf-8")),
        },
    )
