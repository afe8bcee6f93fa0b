"""Runs and the intents and decisions recorded for them."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from adapters.store import convert
from adapters.store.db import utc
from adapters.store.session import Database
from adapters.store.tables import DecisionRow, IntentRow, RunRow
from domain.governance.intents import Decision, Intent
from domain.runs.run import RunRecord


def _record(row: RunRow) -> RunRecord:
    return RunRecord(
        id=row.id,
        org_id=row.org_id,
        agent_id=row.agent_id,
        task=row.task,
        workflow_id=row.workflow_id,
        client_key=row.client_key,
        started_by=row.started_by,
        projects=tuple(row.projects),
        hold_timeout_seconds=row.hold_timeout_seconds,
        created_at=utc(row.created_at),
    )


class Runs:
    """Run records (one per workflow) and their audited decisions
    (:class:`~domain.runs.ports.RunRecords`)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, run: RunRecord) -> tuple[RunRecord, bool]:
        """Record a run; with a client key already used, return the first run and False."""
        try:
            with self._db.transaction() as s:
                s.add(RunRow(**{**run.model_dump(), "projects": list(run.projects)}))
            return run, True
        except IntegrityError:
            existing = self.by_client_key(run.org_id, run.client_key) if run.client_key else None
            if existing is None:
                raise
            return existing, False

    def by_client_key(self, org_id: str, client_key: str) -> RunRecord | None:
        with self._db.read() as s:
            row = s.execute(
                select(RunRow).where(
                    col(RunRow.org_id) == org_id, col(RunRow.client_key) == client_key
                )
            ).scalar_one_or_none()
            return None if row is None else _record(row)

    def recent(self, org_id: str, limit: int = 50) -> list[RunRecord]:
        """The organization's runs, newest first."""
        with self._db.read() as s:
            rows = s.execute(
                select(RunRow)
                .where(col(RunRow.org_id) == org_id)
                .order_by(col(RunRow.created_at).desc())
                .limit(limit)
            ).scalars()
            return [_record(r) for r in rows]

    def get(self, run_id: str) -> RunRecord | None:
        with self._db.read() as s:
            row = s.get(RunRow, run_id)
            return None if row is None else _record(row)

    def intents(self, run_id: str) -> list[tuple[Intent, str, list[Decision]]]:
        """Each intent of the run with its status and its decisions, oldest first."""
        with self._db.read() as s:
            rows = s.execute(
                select(IntentRow)
                .where(col(IntentRow.run_id) == run_id)
                .order_by(col(IntentRow.created_at))
            ).scalars()
            out = []
            for row in rows:
                decisions = s.execute(
                    select(DecisionRow)
                    .where(col(DecisionRow.intent_id) == row.id)
                    .order_by(col(DecisionRow.id))
                ).scalars()
                out.append(
                    (convert.intent(row), row.status, [convert.decision(d) for d in decisions])
                )
            return out

    def reach(self, run_id: str) -> set[str]:
        """Every project the run reaches: the agent's projects when it started and the
        reach of each of its intents."""
        with self._db.read() as s:
            run = s.get(RunRow, run_id)
            reach = set(run.projects) if run is not None else set()
            for row in s.execute(
                select(col(IntentRow.reach)).where(col(IntentRow.run_id) == run_id)
            ):
                reach.update(row.reach)
            return reach

    def reaches(self, org_id: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The reach of every run and every intent of an organization: (by run id, by
        intent id)."""
        with self._db.read() as s:
            runs = {
                r.id: set(r.projects)
                for r in s.execute(select(RunRow).where(col(RunRow.org_id) == org_id)).scalars()
            }
            intents: dict[str, set[str]] = {}
            rows = s.execute(
                select(col(IntentRow.id), col(IntentRow.run_id), col(IntentRow.reach)).where(
                    col(IntentRow.org_id) == org_id
                )
            )
            for row in rows:
                intents[row.id] = set(row.reach)
                runs.setdefault(row.run_id, set()).update(row.reach)
            return runs, intents

    def intent(self, intent_id: str) -> tuple[Intent, str, str] | None:
        """An intent, its status and its run id."""
        with self._db.read() as s:
            row = s.get(IntentRow, intent_id)
            return None if row is None else (convert.intent(row), row.status, row.run_id)
