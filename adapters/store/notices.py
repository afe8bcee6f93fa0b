"""Notices as a pass writes, claims and records them (``domain/notices.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime

from sqlalchemy import delete, func, select
from sqlmodel import col

from adapters.store import leases
from adapters.store.audit import ChainWriter, lock
from adapters.store.session import Database
from adapters.store.tables import NoticeRow, OrgRow, ToldRow
from domain.audit.chain import ChainKeys
from domain.notices import (
    Channel,
    Notice,
    NoticeAttempt,
    NoticeKind,
    attempt_draft,
    written_draft,
)
from domain.relay import state_after


def _notice(r: NoticeRow) -> Notice:
    return Notice(
        id=r.id,
        org_id=r.org_id,
        person_id=r.person_id,
        channel=Channel(r.channel),
        address=r.address,
        name=r.name,
        kind=NoticeKind(r.kind),
        items=tuple(r.items),
        subject=r.subject,
        body=r.body,
        link=r.link,
        attempts=r.attempts,
    )


class SqlNotices:
    """:class:`~domain.notices.NoticeOutbox` over SQLite or PostgreSQL."""

    def __init__(self, db: Database, keys: ChainKeys) -> None:
        self._db = db
        self._keys = keys

    def orgs(self) -> list[str]:
        with self._db.read() as s:
            return list(s.execute(select(col(OrgRow.id)).order_by(col(OrgRow.id))).scalars())

    def told(self, org_id: str, person_id: str) -> set[str]:
        with self._db.read() as s:
            return set(
                s.execute(
                    select(col(ToldRow.item)).where(
                        col(ToldRow.org_id) == org_id, col(ToldRow.person_id) == person_id
                    )
                ).scalars()
            )

    def last_digest(self, org_id: str, person_id: str) -> date | None:
        with self._db.read() as s:
            last = s.execute(
                select(func.max(col(NoticeRow.created_at))).where(
                    col(NoticeRow.org_id) == org_id,
                    col(NoticeRow.person_id) == person_id,
                    col(NoticeRow.kind) == NoticeKind.DIGEST.value,
                )
            ).scalar()
        return None if last is None else last.date()

    def write(
        self,
        org_id: str,
        person_id: str,
        notices: Sequence[Notice],
        told: Iterable[str],
        waiting: Iterable[str],
        now: datetime,
    ) -> list[Notice]:
        told, waiting = set(told), set(waiting)
        written: list[Notice] = []
        with self._db.transaction() as s:
            # Under the organization's lock: two passes at once write each notice once.
            writer = ChainWriter(s, org_id, self._keys, lock(s, org_id))
            known = set(
                s.execute(
                    select(col(ToldRow.item)).where(
                        col(ToldRow.org_id) == org_id, col(ToldRow.person_id) == person_id
                    )
                ).scalars()
            )
            for notice in notices:
                if s.get(NoticeRow, notice.id) is not None:
                    continue
                s.add(
                    NoticeRow(
                        id=notice.id,
                        org_id=notice.org_id,
                        person_id=notice.person_id,
                        channel=notice.channel.value,
                        address=notice.address,
                        name=notice.name,
                        kind=notice.kind.value,
                        items=list(notice.items),
                        subject=notice.subject,
                        body=notice.body,
                        link=notice.link,
                        created_at=now,
                    )
                )
                writer.append(written_draft(notice), now)
                written.append(notice)
            for item in sorted(told - known):
                s.add(ToldRow(org_id=org_id, person_id=person_id, item=item, told_at=now))
            gone = known - waiting
            if gone:
                s.execute(
                    delete(ToldRow).where(
                        col(ToldRow.org_id) == org_id,
                        col(ToldRow.person_id) == person_id,
                        col(ToldRow.item).in_(sorted(gone)),
                    )
                )
            writer.flush()
        return written

    def claim(self, limit: int, now: datetime) -> list[Notice]:
        with self._db.transaction() as s:
            return [_notice(r) for r in leases.claim(s, NoticeRow, "id", limit, now)]

    def record(self, attempt: NoticeAttempt, now: datetime) -> None:
        draft = attempt_draft(attempt)
        with self._db.transaction() as s:
            writer = ChainWriter(s, attempt.org_id, self._keys, lock(s, attempt.org_id))
            if writer.recorded(draft.event_key) is not None:
                return  # a recording retried after a crash: kept once
            writer.append(draft, now)
            writer.flush()
            leases.settle(
                s,
                NoticeRow,
                "id",
                attempt.notice_id,
                state_after(attempt.outcome),
                attempt.attempt,
                attempt.code,
                attempt.detail,
                now,
            )

    def notices(self, org_id: str, person_id: str | None = None) -> list[tuple[Notice, str]]:
        """The organization's notices (one person's, when given), oldest first, each
        with its delivery state."""
        query = select(NoticeRow).where(col(NoticeRow.org_id) == org_id)
        if person_id is not None:
            query = query.where(col(NoticeRow.person_id) == person_id)
        with self._db.read() as s:
            rows = s.execute(query.order_by(col(NoticeRow.created_at), col(NoticeRow.id)))
            return [(_notice(r), r.delivery_state) for r in rows.scalars()]
