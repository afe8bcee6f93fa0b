"""Ports of process offers: their store and the configuration change that keeps playbooks."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from domain.offers.playbooks import DriftFinding, EpisodeRecord, OfferRecord, RunFacts
from domain.organization.ports import OrgChange


class OfferChange(OrgChange, Protocol):
    """One change to an organization's process offers, under its lock and in one
    transaction with its audit entries (and, on confirmation, the playbook it publishes
    through :meth:`~domain.organization.ports.OrgChange.add_procedure`)."""

    def episodes(self, unplaced: bool = False) -> list[EpisodeRecord]:
        """The organization's episodes oldest first (only those no offer holds yet)."""
        ...

    def add_episode(self, episode: EpisodeRecord) -> EpisodeRecord: ...

    def offers(self) -> list[OfferRecord]:
        """The organization's offers, oldest first."""
        ...

    def add_offer(self, offer: OfferRecord) -> OfferRecord:
        """Keep a new offer; its episodes are placed in it."""
        ...

    def join(self, offer_id: str, episode_id: str) -> OfferRecord:
        """Add an episode to an offer's evidence (its newest)."""
        ...

    def confirm_offer(self, offer_id: str, playbook: str, version: int) -> OfferRecord:
        """Mark an open offer confirmed into ``playbook``; a confirmed one is a Conflict."""
        ...

    def decline_offer(self, offer_id: str, reason: str) -> OfferRecord:
        """Mark an open offer declined for ``reason``; one not open is a Conflict."""
        ...

    def findings(self) -> list[DriftFinding]:
        """The organization's drift findings, oldest first."""
        ...

    def add_finding(self, finding: DriftFinding) -> DriftFinding: ...

    def resolve_finding(self, finding_id: str, reason: str) -> DriftFinding:
        """Resolve an unresolved finding with ``reason`` (a conditional update: a resolved
        one is a :class:`~domain.errors.Conflict`, never overwritten)."""
        ...


class OfferStore(Protocol):
    """Reads process offers and drift findings; hands out changes to them."""

    def change(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> AbstractContextManager[OfferChange]:
        """Lock ``org_id`` for one change by ``actor_id``."""
        ...

    def offer(self, offer_id: str) -> OfferRecord | None: ...

    def finding(self, finding_id: str) -> DriftFinding | None: ...

    def offers(self, org_id: str) -> list[OfferRecord]: ...

    def findings(self, org_id: str) -> list[DriftFinding]: ...

    def unharvested(self, org_id: str, limit: int) -> list[RunFacts]:
        """Up to ``limit`` of the organization's runs with intents that no episode stands
        for yet, oldest first."""
        ...
