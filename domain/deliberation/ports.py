"""Ports of deliberation: where a deliberation runs."""

from __future__ import annotations

from typing import Protocol

from domain.deliberation.state import DeliberationInput, DeliberationState


class DeliberationGateway(Protocol):
    """Where deliberations execute (Temporal). Unreachable: :class:`~domain.errors.Unavailable`."""

    async def start(self, deliberation: DeliberationInput) -> str:
        """Start the deliberation's workflow; its workflow id."""
        ...

    async def state(self, deliberation_id: str) -> tuple[str, DeliberationState]:
        """The workflow's status and the deliberation's state; :class:`NotFound` for none."""
        ...

    async def result(self, deliberation_id: str) -> DeliberationState:
        """Wait for the deliberation to finish: its final state."""
        ...
