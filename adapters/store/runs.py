"""Runs and the intents and decisions recorded for them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Text, cast, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from adapters.store import convert
from adapters.store.db import utc
from adapters.store.governance import SPENDING
from adapters.store.session import Database
from adapters.store.tables import AuditEntryRow, DecisionRow, IntentRow, RunRow, table_of
from domain.governance.intents import Decision, Intent
from domain.governance.records import RUN_ENDED_BADLY, run_failure_key
from domain.runs.outcome import RunEnd, Spent
from domain.runs.run import RunRecord

_RUN_COLUMNS = tuple(table_of(RunRow).columns)
"""A run's columns, read as a plain row: lists read thousands of runs, and building an ORM
instance for each was half their time."""
_DECISION_COLUMNS = tuple(table_of(DecisionRow).columns)
"""A decision's columns, read as a plain row (a run's page reads each of its decisions)."""


def _record(row: RunRow | Row[Any]) -> RunRecord:
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
                select(*_RUN_COLUMNS)
                .where(col(RunRow.org_id) == org_id)
                .order_by(col(RunRow.created_at).desc())
                .limit(limit)
            )
            return [_record(r) for r in rows]

    def records(self, org_id: str, run_ids: Sequence[str]) -> dict[str, RunRecord]:
        if not run_ids:
            return {}
        with self._db.read() as s:
            rows = s.execute(
                select(*_RUN_COLUMNS).where(
                    col(RunRow.org_id) == org_id, col(RunRow.id).in_(list(set(run_ids)))
                )
            )
            return {r.id: _record(r) for r in rows}

    def get(self, run_id: str) -> RunRecord | None:
        with self._db.read() as s:
            row = s.execute(select(*_RUN_COLUMNS).where(col(RunRow.id) == run_id)).first()
            return None if row is None else _record(row)

    def intents(self, run_id: str) -> list[tuple[Intent, str, list[Decision]]]:
        """Each intent of the run with its status and its decisions, oldest first."""
        with self._db.read() as s:
            rows = s.execute(
                select(col(IntentRow.id), col(IntentRow.body), col(IntentRow.status))
                .where(col(IntentRow.run_id) == run_id)
                .order_by(col(IntentRow.created_at))
            ).all()
            by_intent: dict[str, list[Decision]] = {row.id: [] for row in rows}
            for d in s.execute(
                select(*_DECISION_COLUMNS)
                .where(col(DecisionRow.intent_id).in_(list(by_intent)))
                .order_by(col(DecisionRow.id))
            ):
                by_intent[d.intent_id].append(convert.decision(d))
            return [(convert.intent(row), row.status, by_intent[row.id]) for row in rows]

    def reach(self, run_id: str) -> set[str]:
        """Every project the run reaches: the agent's projects when it started and the
        reach of each of its intents."""
        with self._db.read() as s:
            projects = s.execute(
                select(col(RunRow.projects)).where(col(RunRow.id) == run_id)
            ).scalar_one_or_none()
            reach = set(projects or ())
            for row in s.execute(
                select(col(IntentRow.reach)).where(col(IntentRow.run_id) == run_id)
            ):
                reach.update(row.reach)
            return reach

    def reaches(self, org_id: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The reach of every run and every intent of an organization: (by run id, by
        intent id)."""
        # Every run and intent of an organization is read here, and most share a handful
        # of project lists: each list is read as its stored text and parsed once.
        parsed: dict[str, frozenset[str]] = {}

        def projects(text: str) -> set[str]:
            # NOT NULL columns: a NULL fails here, as it always has, rather than read as
            # "no project" (which every member may read).
            if text not in parsed:
                parsed[text] = frozenset(json.loads(text))
            return set(parsed[text])

        with self._db.read() as s:
            runs = {
                run_id: projects(text)
                for run_id, text in s.execute(
                    select(col(RunRow.id), cast(col(RunRow.projects), Text)).where(
                        col(RunRow.org_id) == org_id
                    )
                )
            }
            intents: dict[str, set[str]] = {}
            rows = s.execute(
                select(
                    col(IntentRow.id), col(IntentRow.run_id), cast(col(IntentRow.reach), Text)
                ).where(col(IntentRow.org_id) == org_id)
            )
            for intent_id, run_id, text in rows:
                intents[intent_id] = projects(text)
                runs.setdefault(run_id, set()).update(intents[intent_id])
            return runs, intents

    def intent_reach(self, intent_id: str) -> set[str]:
        """The projects one intent reaches (none for an unknown intent)."""
        with self._db.read() as s:
            row = s.execute(
                select(col(IntentRow.reach)).where(col(IntentRow.id) == intent_id)
            ).first()
            return set() if row is None else set(row.reach)

    def spent(self, org_id: str, since: datetime) -> list[Spent]:
        with self._db.read() as s:
            rows = s.execute(
                select(
                    col(IntentRow.principal_id),
                    col(IntentRow.reach),
                    col(IntentRow.spend_cents),
                    col(IntentRow.body),
                ).where(
                    col(IntentRow.org_id) == org_id,
                    col(IntentRow.status).in_(SPENDING),
                    col(IntentRow.created_at) >= since,
                    col(IntentRow.spend_cents) > 0,
                )
            )
            return [
                Spent(agent_id=a, reach=tuple(r), cents=int(c), currency=_currency(body))
                for a, r, c, body in rows
            ]

    def ends(self, org_id: str, run_ids: Sequence[str]) -> dict[str, RunEnd]:
        """Each run's intents' latest outcomes and its bad end, in two indexed reads."""
        if not run_ids:
            return {}
        statuses: dict[str, list[str]] = {}
        bad: dict[str, str] = {}
        keys = {run_failure_key(r): r for r in run_ids}
        with self._db.read() as s:
            for run_id, status in s.execute(
                select(col(IntentRow.run_id), col(IntentRow.status)).where(
                    col(IntentRow.org_id) == org_id, col(IntentRow.run_id).in_(list(run_ids))
                )
            ):
                statuses.setdefault(run_id, []).append(status)
            for key, rule in s.execute(
                select(col(AuditEntryRow.event_key), col(AuditEntryRow.rule)).where(
                    col(AuditEntryRow.org_id) == org_id,
                    col(AuditEntryRow.event_key).in_(list(keys)),
                    col(AuditEntryRow.decision) == RUN_ENDED_BADLY,
                )
            ):
                bad[keys[key]] = rule
        return {
            r: RunEnd(statuses=tuple(sorted(statuses.get(r, ()))), ended_badly=bad.get(r))
            for r in {*statuses, *bad}
        }

    def intent(self, intent_id: str) -> tuple[Intent, str, str] | None:
        """An intent, its status and its run id."""
        with self._db.read() as s:
            row = s.execute(
                select(col(IntentRow.body), col(IntentRow.status), col(IntentRow.run_id)).where(
                    col(IntentRow.id) == intent_id
                )
            ).first()
            return None if row is None else (convert.intent(row), row.status, row.run_id)


def _currency(body: object) -> str:
    """The currency an intent's payload names (USD when it names none)."""
    payload = body.get("payload") if isinstance(body, dict) else None
    given = payload.get("currency") if isinstance(payload, dict) else None
    return given.strip().upper() if isinstance(given, str) and given.strip() else "USD"
