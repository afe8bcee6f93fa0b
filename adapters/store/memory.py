"""MemoryBank: the one gated path to stored memory.

Every read names its asker, and the human it acts for when a human started the run; a
node is released only when both may read every project it belongs to (the rule is in
domain.visibility), otherwise it is withheld. Every read is logged, empty and failed
ones too. (Semantic embeddings, redacted views and the causal and procedural stores
arrive with the memory-bank issue.)
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, bindparam, insert, select
from sqlmodel import Session, col

from adapters.store.org_cache import OrgCache
from adapters.store.session import Database
from adapters.store.tables import MemoryNodeRow, MemoryReadRow, table_of
from domain.model import PrincipalKind
from domain.ports import MemoryRead, RecallResult
from domain.visibility import gated_projects, on_behalf, readable_projects

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


_nodes, _reads = table_of(MemoryNodeRow), table_of(MemoryReadRow)
_NODES = (
    select(_nodes.c.ref, _nodes.c.text, _nodes.c.projects)
    .where(_nodes.c.org_id == bindparam("org_id"))
    .order_by(_nodes.c.ref)
)
_LOG_READ = insert(_reads)


class MemoryBank:
    """Facade over stored memory; the only way agent-facing code reads it."""

    def __init__(self, db: Database, cache: OrgCache) -> None:
        self._db = db
        self._cache = cache

    def recall(
        self,
        *,
        asker_principal_id: str,
        org_id: str,
        query: str,
        now: datetime,
        limit: int = 5,
        on_behalf_of: str | None = None,
    ) -> RecallResult:
        """Nodes matching ``query`` that the asker (and, for a run a human started, that
        human) may read. The read is logged whatever happens: a read that fails is logged
        as failed, in a transaction of its own."""
        log = {
            "org_id": org_id,
            "asker_id": asker_principal_id,
            "on_behalf_of": on_behalf_of,
            "path": "recall",
        }
        try:
            with self._db.transaction() as s:
                connection = s.connection()
                result = self._recall(connection, s, org_id, query, now, limit, log)
                connection.execute(_LOG_READ, [{**log, "query": query, "at": now}])
                return result
        except Exception:
            with self._db.transaction() as s:
                s.connection().execute(
                    _LOG_READ,
                    [
                        {
                            **log,
                            "query": query,
                            "released": [],
                            "withheld": 0,
                            "outcome": "failed",
                            "at": now,
                        }
                    ],
                )
            raise

    def _recall(
        self,
        connection: Connection,
        s: Session,
        org_id: str,
        query: str,
        now: datetime,
        limit: int,
        log: dict[str, Any],
    ) -> RecallResult:
        policy = self._cache.current(s, org_id)
        asker, requester = log["asker_id"], log["on_behalf_of"]
        allowed: frozenset[str] = frozenset()
        if policy is not None:
            allowed = gated_projects(asker, policy.staffing.get(asker, ()), policy.barriers, now)
            if requester is not None:
                human = policy.principals.get(requester)
                if policy.org is None or human is None or human.kind is not PrincipalKind.HUMAN:
                    allowed = frozenset()  # acting for someone unknown here: nothing
                else:
                    staffing = policy.staffing.get(requester, ())
                    allowed = on_behalf(
                        allowed, readable_projects(human, policy.org, staffing, now)
                    )
        wanted = _words(query)
        nodes = connection.execute(_NODES, {"org_id": org_id}).all()
        scored = sorted(
            ((len(wanted & _words(n.text + " " + n.ref)), n) for n in nodes),
            key=lambda pair: -pair[0],
        )
        released: list[Row[Any, Any, Any]] = []
        withheld = 0
        for score, node in scored:
            if score == 0 or len(released) >= limit:
                continue
            if set(node.projects) <= allowed:
                released.append(node)
            else:
                withheld += 1
        log["released"] = [n.ref for n in released]
        log["withheld"] = withheld
        log["outcome"] = "released" if released else ("withheld" if withheld else "empty")
        return RecallResult(
            released=tuple(f"[{n.ref}] {n.text}" for n in released),
            released_refs=tuple(n.ref for n in released),
            withheld=withheld,
        )

    def reads(self, org_id: str) -> list[MemoryRead]:
        """The read log of an organization, oldest first."""
        with self._db.read() as s:
            rows = s.execute(
                select(MemoryReadRow)
                .where(col(MemoryReadRow.org_id) == org_id)
                .order_by(col(MemoryReadRow.id))
            ).scalars()
            return [
                MemoryRead(
                    at=r.at,
                    asker_id=r.asker_id,
                    on_behalf_of=r.on_behalf_of,
                    path=r.path,
                    query=r.query,
                    released=tuple(r.released),
                    withheld=r.withheld,
                    outcome=r.outcome,
                )
                for r in rows
            ]
