"""The release rule: what one reader may see of one memory node, stated once.

Every read path (similarity, get-by-id, and the relational, causal and procedural paths
as they arrive) asks this rule for each node it would return:

- **withheld** when the node belongs to another organization, or to any project outside
  the reader's gated projects (see
  :func:`domain.organization.visibility.gated_projects`; for a run a human started,
  narrowed to what that human may read). The reader learns at most that
  something was withheld: no reference, no text, no title.
- **redacted** when the reader may read the node but is an agent and the node holds
  tagged spans of identifying detail (emails, phone numbers, IBANs, addresses, names…):
  the spans are masked in a view computed for this reader. The model behind an agent is
  an outside service; it gets the work, not the personal data. The view is never
  written back: the stored node keeps its text.
- **whole** otherwise: a human who may read the node sees it as stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

from pydantic import Field, model_validator

from domain.organization.contracts import Frozen


class Release(StrEnum):
    """How much of a node a reader gets."""

    WHOLE = "whole"
    REDACTED = "redacted"
    WITHHELD = "withheld"


class Span(Frozen):
    """A tagged stretch of a node's text: ``text[start:end]`` is identifying detail of
    ``kind`` (``email``, ``phone``, ``iban``, ``ip``, ``person``, ``address``…)."""

    kind: str = Field(min_length=1, max_length=40)
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end <= self.start:
            raise ValueError("a span ends after it starts")
        return self


NODE_KIND = r"^[a-z][a-z0-9_-]{0,39}$"
"""What a node's ``kind`` may be: a short lowercase word (``note``, ``email``,
``contract``, ``invoice``, ``meeting``, ``review``, ``web``, ``code``…)."""


class StoredNode(Frozen):
    """A node as the release rule needs it."""

    org_id: str
    ref: str
    projects: tuple[str, ...]
    text: str
    spans: tuple[Span, ...] = ()
    kind: str = Field(default="note", pattern=NODE_KIND)
    """What sort of document it is."""
    source: str | None = Field(default=None, max_length=500)
    """Where it came from (a file name, a mailbox, a URL), as its author said."""
    kept_at: datetime | None = None
    """When it entered memory (None from a backend that does not say)."""


class Reader(Frozen):
    """Who is reading, and what they may read right now."""

    principal_id: str
    org_id: str
    is_agent: bool
    projects: frozenset[str]
    """The projects whose nodes the reader may read (already gated and narrowed)."""


class NodeView(Frozen):
    """A node as one reader sees it. A withheld view carries nothing of the node."""

    release: Release
    ref: str | None = None
    projects: tuple[str, ...] = ()
    text: str | None = None
    masked: tuple[str, ...] = ()
    """The kinds of the spans masked in a redacted view."""
    kind: str | None = None
    source: str | None = None
    """Where the node came from: in a whole view only (it may name a person or a
    mailbox, and a redacted view keeps no identifying detail)."""


WITHHELD = NodeView(release=Release.WITHHELD)


def mask(text: str, spans: Iterable[Span]) -> str:
    """``text`` with every span replaced by ``[kind]`` (overlapping spans merge)."""
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    out: list[str] = []
    at = 0
    for span in ordered:
        start, end = max(span.start, at), min(span.end, len(text))
        if end <= start:
            continue
        out.append(text[at:start])
        out.append(f"[{span.kind}]")
        at = end
    out.append(text[at:])
    return "".join(out)


def excerpt(node: StoredNode, view: NodeView, start: int, end: int) -> str | None:
    """``node.text[start:end]`` as the reader of ``view`` may see it: as stored for a
    whole view, with tagged spans masked for a redacted one, nothing for a withheld one."""
    if view.release is Release.WITHHELD:
        return None
    part = node.text[start:end]
    if view.release is Release.WHOLE:
        return part
    inside = [
        Span(kind=s.kind, start=max(s.start, start) - start, end=min(s.end, end) - start)
        for s in node.spans
        if s.start < end and s.end > start
    ]
    return mask(part, inside)


def release(node: StoredNode, reader: Reader) -> NodeView:
    """What ``reader`` may see of ``node`` (see the module's docstring)."""
    if node.org_id != reader.org_id or not set(node.projects) <= reader.projects:
        return WITHHELD
    if reader.is_agent and node.spans:
        return NodeView(
            release=Release.REDACTED,
            ref=node.ref,
            projects=node.projects,
            text=mask(node.text, node.spans),
            masked=tuple(sorted({s.kind for s in node.spans})),
            kind=node.kind,
        )
    return NodeView(
        release=Release.WHOLE,
        ref=node.ref,
        projects=node.projects,
        text=node.text,
        kind=node.kind,
        source=node.source,
    )
