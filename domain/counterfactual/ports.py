"""Ports of the counterfactual: the governance record read back, read-only."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from domain.counterfactual.replay import OtherIntent, SnapshotBasis
from domain.governance.intents import Decision, Intent
from domain.governance.values import BrokerSnapshot, StoredIntent


class ReplayUnit(Protocol):
    """One organization's governance record inside one read-only transaction: what a
    counterfactual replays. Nothing is locked, claimed, written or appended."""

    def stored(self, intent_id: str) -> StoredIntent | None:
        """The intent as recorded, if it is this organization's."""
        ...

    def decisions(self, intent_id: str) -> tuple[Decision, ...]:
        """The intent's decisions, oldest first."""
        ...

    def snapshot_at(
        self, intent: Intent, decision: Decision
    ) -> tuple[BrokerSnapshot, SnapshotBasis]:
        """What the broker read when it made ``decision``, rebuilt from the record, and
        whether the configuration in it is the one of that moment or today's."""
        ...

    def others(self, intent_ids: Sequence[str]) -> dict[str, OtherIntent]:
        """Recorded intents of this organization, by id."""
        ...


class ReplayStore(Protocol):
    """Hands out read-only units over the governance record."""

    def read(self, org_id: str) -> AbstractContextManager[ReplayUnit]:
        """A read-only unit of ``org_id``; :class:`~domain.errors.NotFound` for none."""
        ...
