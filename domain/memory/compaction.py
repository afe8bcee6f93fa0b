"""The compaction engine port: old records summarised into one compact record.

An engine turns the texts of several records into one shorter text. The use case
(``usecases.memory.compact``) reads the records through the memory gate, hands the
engine only what the asker may read whole, ingests the result like any record (screened,
its identifying detail tagged again) and links it back to each record it replaces
(``derived_from``, the whole text), so that where a summary came from stays explainable.
Every engine must pass the contract suite (``tests/contracts/test_memory_compaction_contracts.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from domain.organization.contracts import Frozen

MAX_SOURCES = 50
DEFAULT_CHARS = 1200


class CompactionSource(Frozen):
    """One record to compact: its reference and its text."""

    ref: str
    text: str


@runtime_checkable
class CompactionEngine(Protocol):
    """Summarises records into one text of at most ``max_chars`` characters."""

    @property
    def name(self) -> str:
        """The engine's name, recorded with what it writes."""
        ...

    def compact(self, sources: Sequence[CompactionSource], max_chars: int) -> str:
        """A non-empty summary of ``sources`` (a :class:`ValueError` when they hold no
        text), at most ``max_chars`` long, saying nothing the sources do not say."""
        ...
