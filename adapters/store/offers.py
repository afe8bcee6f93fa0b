"""Process offers, their episodes and drift findings, over SQLite or PostgreSQL.

A change to them is an organization configuration change (:class:`OrgConfiguration`):
the same lock, the same transaction, so that an offer confirmed and the playbook it
publishes commit together with their audit entries, or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session, col

from adapters.store.db import utc
from adapters.store.organization import OrgConfiguration
from adapters.store.session import Database
from adapters.store.tables import DriftFindingRow, EpisodeRow, IntentRow, OfferRow, RunRow
from domain.audit.chain import ChainKeys
from domain.errors import Conflict, NotFound
from domain.memory.adapter import MemoryAdapter
from domain.offers.merge import Step
from domain.offers.playbooks import (
    DriftFinding,
    EpisodeRecord,
    OfferRecord,
    OfferState,
    RunFacts,
    RunStep,
    wording,
)


def _steps(rows: list[dict[str, Any]]) -> tuple[Step, ...]:
    return tuple(Step.model_validate(r) for r in rows)


def _episode(row: EpisodeRow) -> EpisodeRecord:
    return EpisodeRecord(
        id=row.id,
        org_id=row.org_id,
        steps=_steps(row.steps),
        outcome_met=row.outcome_met,
        projects=tuple(row.projects),
        source=row.source,
        run_id=row.run_id,
        recorded_by=row.recorded_by,
        recorded_at=utc(row.recorded_at),
        embedder=row.embedder,
        vectors=tuple(bytes.fromhex(v) for v in row.vectors),
        offer_id=row.offer_id,
    )


def _offer(row: OfferRow, episodes: list[str], wordings: int) -> OfferRecord:
    return OfferRecord(
        id=row.id,
        org_id=row.org_id,
        tools=tuple(row.tools),
        steps=_steps(row.steps),
        projects=tuple(row.projects),
        episodes=tuple(episodes),
        state=OfferState(row.state),
        created_at=utc(row.created_at),
        playbook=row.playbook,
        version=row.version,
        confirmed_by=row.confirmed_by,
        confirmed_at=None if row.confirmed_at is None else utc(row.confirmed_at),
        confirmed_with=row.confirmed_with,
        wordings=wordings,
        declined_by=row.declined_by,
        declined_at=None if row.declined_at is None else utc(row.declined_at),
        declined_reason=row.declined_reason,
    )


def _finding(row: DriftFindingRow) -> DriftFinding:
    return DriftFinding(
        id=row.id,
        org_id=row.org_id,
        offer_id=row.offer_id,
        playbook=row.playbook,
        projects=tuple(row.projects),
        episodes=tuple(row.episodes),
        missed=row.missed,
        flagged_by=row.flagged_by,
        flagged_at=utc(row.flagged_at),
        resolved_by=row.resolved_by,
        resolved_at=None if row.resolved_at is None else utc(row.resolved_at),
        reason=row.reason,
    )


def _evidence(s: Session, offer_ids: list[str]) -> dict[str, tuple[list[str], int]]:
    """Each offer's episode ids, in evidence order, and how many wordings they are."""
    ids: dict[str, list[str]] = {o: [] for o in offer_ids}
    words: dict[str, set[tuple[str, ...]]] = {o: set() for o in offer_ids}
    if offer_ids:
        rows = s.execute(
            select(col(EpisodeRow.offer_id), col(EpisodeRow.id), col(EpisodeRow.steps))
            .where(col(EpisodeRow.offer_id).in_(offer_ids))
            .order_by(col(EpisodeRow.position), col(EpisodeRow.id))
        )
        for offer_id, episode_id, steps in rows:
            ids[offer_id].append(episode_id)
            words[offer_id].add(wording(_steps(steps)))
    return {o: (ids[o], len(words[o])) for o in offer_ids}


def _offers(
    s: Session, org_id: str | None = None, offer_id: str | None = None
) -> list[OfferRecord]:
    query = select(OfferRow)
    if org_id is not None:
        query = query.where(col(OfferRow.org_id) == org_id)
    if offer_id is not None:
        query = query.where(col(OfferRow.id) == offer_id)
    rows = list(s.execute(query.order_by(col(OfferRow.created_at), col(OfferRow.id))).scalars())
    evidence = _evidence(s, [r.id for r in rows])
    return [_offer(r, *evidence[r.id]) for r in rows]


def _findings(s: Session, org_id: str) -> list[DriftFinding]:
    rows = s.execute(
        select(DriftFindingRow)
        .where(col(DriftFindingRow.org_id) == org_id)
        .order_by(col(DriftFindingRow.flagged_at), col(DriftFindingRow.id))
    ).scalars()
    return [_finding(r) for r in rows]


class OfferConfiguration(OrgConfiguration):
    """:class:`~domain.offers.ports.OfferChange`: an organization's configuration change
    that also reads and writes its offers, episodes and drift findings."""

    def episodes(self, unplaced: bool = False) -> list[EpisodeRecord]:
        query = select(EpisodeRow).where(col(EpisodeRow.org_id) == self.org.id)
        if unplaced:
            query = query.where(col(EpisodeRow.offer_id).is_(None))
        rows = self._s.execute(
            query.order_by(col(EpisodeRow.recorded_at), col(EpisodeRow.id))
        ).scalars()
        return [_episode(r) for r in rows]

    def add_episode(self, episode: EpisodeRecord) -> EpisodeRecord:
        row = EpisodeRow(
            id=episode.id,
            org_id=episode.org_id,
            source=episode.source,
            run_id=episode.run_id,
            steps=[s.model_dump(mode="json") for s in episode.steps],
            outcome_met=episode.outcome_met,
            projects=list(episode.projects),
            embedder=episode.embedder,
            vectors=[v.hex() for v in episode.vectors],
            recorded_by=episode.recorded_by,
            recorded_at=episode.recorded_at,
        )
        self._add(row, f"episode {episode.id} is recorded")
        return episode

    def offers(self) -> list[OfferRecord]:
        return _offers(self._s, org_id=self.org.id)

    def _one(self, offer_id: str) -> OfferRecord:
        found = _offers(self._s, offer_id=offer_id)
        if not found or found[0].org_id != self.org.id:
            raise NotFound(f"no offer {offer_id}")
        return found[0]

    def add_offer(self, offer: OfferRecord) -> OfferRecord:
        row = OfferRow(
            id=offer.id,
            org_id=offer.org_id,
            tools=list(offer.tools),
            steps=[s.model_dump(mode="json") for s in offer.steps],
            projects=list(offer.projects),
            state=offer.state.value,
            created_at=offer.created_at,
        )
        self._add(row, f"offer {offer.id} exists")
        for position, episode_id in enumerate(offer.episodes):
            self._place(offer.id, episode_id, position)
        return self._one(offer.id)

    def _place(self, offer_id: str, episode_id: str, position: int) -> None:
        done = self._s.execute(
            update(EpisodeRow)
            .where(
                col(EpisodeRow.id) == episode_id,
                col(EpisodeRow.org_id) == self.org.id,
                col(EpisodeRow.offer_id).is_(None),
            )
            .values(offer_id=offer_id, position=position)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise Conflict(f"episode {episode_id} is in an offer already, or unknown")

    def join(self, offer_id: str, episode_id: str) -> OfferRecord:
        offer = self._one(offer_id)
        self._place(offer_id, episode_id, len(offer.episodes))
        row = self._s.get(OfferRow, offer_id)
        assert row is not None
        episode = self._s.get(EpisodeRow, episode_id)
        assert episode is not None
        row.projects = sorted({*row.projects, *episode.projects})
        self._s.add(row)
        self._s.flush()
        return self._one(offer_id)

    def confirm_offer(self, offer_id: str, playbook: str, version: int) -> OfferRecord:
        offer = self._one(offer_id)
        done = self._s.execute(
            update(OfferRow)
            .where(col(OfferRow.id) == offer_id, col(OfferRow.state) == OfferState.OPEN.value)
            .values(
                state=OfferState.CONFIRMED.value,
                playbook=playbook,
                version=version,
                confirmed_by=self._actor,
                confirmed_at=self.now,
                confirmed_with=len(offer.episodes),
            )
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise Conflict(f"offer {offer_id} is confirmed already")
        self._s.expire_all()
        return self._one(offer_id)

    def decline_offer(self, offer_id: str, reason: str) -> OfferRecord:
        """Decline an open offer for ``reason``; one not open is a Conflict."""
        self._one(offer_id)
        done = self._s.execute(
            update(OfferRow)
            .where(col(OfferRow.id) == offer_id, col(OfferRow.state) == OfferState.OPEN.value)
            .values(
                state=OfferState.DECLINED.value,
                declined_by=self._actor,
                declined_at=self.now,
                declined_reason=reason,
            )
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise Conflict(f"offer {offer_id} is not open: it was confirmed or declined")
        self._s.expire_all()
        return self._one(offer_id)

    def findings(self) -> list[DriftFinding]:
        return _findings(self._s, self.org.id)

    def add_finding(self, finding: DriftFinding) -> DriftFinding:
        row = DriftFindingRow(
            **finding.model_dump(mode="python", exclude={"projects", "episodes"}),
            projects=list(finding.projects),
            episodes=list(finding.episodes),
        )
        self._add(row, f"drift finding {finding.id} exists")
        return finding

    def resolve_finding(self, finding_id: str, reason: str) -> DriftFinding:
        row = self._s.get(DriftFindingRow, finding_id)
        if row is None or row.org_id != self.org.id:
            raise NotFound(f"no finding {finding_id}")
        # Conditional: whoever resolved it first keeps their reason, even if a second
        # resolution got past every check before this statement.
        done = self._s.execute(
            update(DriftFindingRow)
            .where(
                col(DriftFindingRow.id) == finding_id,
                col(DriftFindingRow.resolved_at).is_(None),
            )
            .values(resolved_by=self._actor, resolved_at=self.now, reason=reason)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise Conflict(f"finding {finding_id} is resolved already")
        self._s.expire_all()
        resolved = self._s.get(DriftFindingRow, finding_id)
        assert resolved is not None
        return _finding(resolved)


class SqlOffers:
    """:class:`~domain.offers.ports.OfferStore` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys, memory: MemoryAdapter) -> None:
        self._db = db
        self._keys = keys
        self._memory = memory

    def change(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> AbstractContextManager[OfferConfiguration]:
        return self._open(org_id, actor_id, clock)

    @contextmanager
    def _open(
        self, org_id: str, actor_id: str, clock: Callable[[], datetime]
    ) -> Iterator[OfferConfiguration]:
        with OfferConfiguration.open(
            self._db, self._keys, org_id, actor_id, clock, self._memory
        ) as change:
            assert isinstance(change, OfferConfiguration)
            yield change

    def offer(self, offer_id: str) -> OfferRecord | None:
        with self._db.read() as s:
            found = _offers(s, offer_id=offer_id)
        return found[0] if found else None

    def finding(self, finding_id: str) -> DriftFinding | None:
        with self._db.read() as s:
            row = s.get(DriftFindingRow, finding_id)
            return None if row is None else _finding(row)

    def offers(self, org_id: str) -> list[OfferRecord]:
        with self._db.read() as s:
            return _offers(s, org_id=org_id)

    def findings(self, org_id: str) -> list[DriftFinding]:
        with self._db.read() as s:
            return _findings(s, org_id)

    def unharvested(self, org_id: str, limit: int) -> list[RunFacts]:
        with self._db.read() as s:
            harvested = select(col(EpisodeRow.run_id)).where(
                col(EpisodeRow.org_id) == org_id, col(EpisodeRow.run_id).is_not(None)
            )
            with_intents = select(col(IntentRow.run_id)).where(col(IntentRow.org_id) == org_id)
            runs = list(
                s.execute(
                    select(RunRow)
                    .where(
                        col(RunRow.org_id) == org_id,
                        col(RunRow.id).in_(with_intents),
                        col(RunRow.id).not_in(harvested),
                    )
                    .order_by(col(RunRow.created_at), col(RunRow.id))
                    .limit(limit)
                ).scalars()
            )
            intents: dict[str, list[RunStep]] = {r.id: [] for r in runs}
            for i in s.execute(
                select(IntentRow)
                .where(col(IntentRow.run_id).in_(list(intents)))
                .order_by(col(IntentRow.created_at), col(IntentRow.id))
            ).scalars():
                intents[i.run_id].append(
                    RunStep(
                        tool=i.tool,
                        justification=str(i.body.get("justification", "")),
                        status=i.status,
                        reach=tuple(i.reach),
                    )
                )
            return [
                RunFacts(
                    run_id=r.id,
                    org_id=r.org_id,
                    task=r.task,
                    projects=tuple(r.projects),
                    intents=tuple(intents[r.id]),
                )
                for r in runs
            ]
