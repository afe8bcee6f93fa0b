"""Each organization's chain folded into its story (:func:`read_chain`), kept by the
process and extended by the entries appended since, instead of read and folded whole on
every look at the needs-you queue.

A chain only grows, and the fold is a left fold, so the story of entries 1..n extended
by n+1..m is the story of 1..m. Should the chain not continue the one folded (the first
new entry does not link to the last one folded: a database restored, say), the story is
folded again from the start.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from domain.audit.ports import AuditReader
from domain.needs_you.chain import ChainStory, read_chain

KEPT = 256
"""Organizations whose story a process keeps (the least recently read one goes first)."""


@dataclass
class _Folded:
    seq: int = 0
    head_hash: str = ""
    story: ChainStory = field(default_factory=ChainStory)
    lock: threading.Lock = field(default_factory=threading.Lock)


class ChainStories:
    """The stories this process has folded, by organization."""

    def __init__(self, kept: int = KEPT) -> None:
        self._lock = threading.Lock()
        self._by_org: OrderedDict[str, _Folded] = OrderedDict()
        self._kept = kept

    def _folded(self, org_id: str) -> _Folded:
        with self._lock:
            folded = self._by_org.pop(org_id, None) or _Folded()
            self._by_org[org_id] = folded  # the most recently used last
            while len(self._by_org) > self._kept:
                self._by_org.popitem(last=False)
            return folded

    @contextmanager
    def story(self, audit: AuditReader, org_id: str) -> Iterator[ChainStory]:
        """The organization's story up to its newest entry, for reading inside the
        ``with`` only (it is extended in place; readers of one organization take turns)."""
        folded = self._folded(org_id)
        with folded.lock:
            try:
                self._catch_up(audit, org_id, folded)
            except BaseException:
                # a fold cut short is no story: the next reader folds from the start
                folded.story, folded.seq, folded.head_hash = ChainStory(), 0, ""
                raise
            yield folded.story

    @staticmethod
    def _catch_up(audit: AuditReader, org_id: str, folded: _Folded) -> None:
        head = audit.head(org_id)
        # a database restored: the chain is shorter, or as long but another one
        behind = folded.seq > 0 and (
            head is None
            or head.seq < folded.seq
            or (head.seq == folded.seq and head.entry_hash != folded.head_hash)
        )
        new = [] if behind else audit.entries(org_id, after_seq=folded.seq)
        if behind or (new and folded.seq and new[0].prev_hash != folded.head_hash):
            folded.story, folded.seq, new = ChainStory(), 0, audit.entries(org_id)
        read_chain(new, into=folded.story)
        if new:
            folded.seq, folded.head_hash = new[-1].seq, new[-1].entry_hash
