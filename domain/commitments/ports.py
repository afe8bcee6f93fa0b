"""Ports of extraction: where an extraction runs."""

from __future__ import annotations

from typing import Protocol

from domain.commitments.extraction import ExtractionInput, ExtractionResult


class ExtractionGateway(Protocol):
    """Where extractions of commitments from documents run (Temporal). Unreachable:
    :class:`~domain.errors.Unavailable`."""

    async def run(self, extraction: ExtractionInput) -> ExtractionResult:
        """Run the extraction's workflow to its end; its result."""
        ...
