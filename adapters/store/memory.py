"""MemoryBank: the one gated path to stored memory.

Every read names its asker; a node is released to the asker only when the asker is
currently staffed on every project the node belongs to, otherwise it is withheld.
Every read is logged, empty ones too. (Semantic embeddings, redacted views and the
causal and procedural stores arrive with the memory-bank issue.)
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, insert, select
from sqlmodel import col

from adapters.store.org_cache import OrgCache
from adapters.store.session import Database
from adapters.store.tables import MemoryNodeRow, MemoryReadRow, table_of
from domain.governance.broker import current_projects
from domain.model import StaffRole
from domain.ports import RecallResult

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
        self, *, asker_principal_id: str, org_id: str, query: str, now: datetime, limit: int = 5
    ) -> RecallResult:
        """Nodes matching ``query``, gated for the asker; the read is logged either way."""
        with self._db.transaction() as s:
            policy = self._cache.current(s, org_id)
            staffing = () if policy is None else policy.staffing.get(asker_principal_id, ())
            allowed = current_projects(staffing, now, StaffRole.MEMBER, asker_principal_id)
            # Someone staffed on two sides of a barrier (only a human can be) reads
            # neither side's records through this path: the wall holds for reads too.
            for barrier in () if policy is None else policy.barriers:
                if len(barrier.groups_touched(frozenset(allowed))) > 1:
                    allowed -= {p for group in barrier.groups for p in group}
            wanted = _words(query)
            connection = s.connection()
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
            outcome = "released" if released else ("withheld" if withheld else "empty")
            connection.execute(
                _LOG_READ,
                [
                    {
                        "org_id": org_id,
                        "asker_id": asker_principal_id,
                        "query": query,
                        "released": [n.ref for n in released],
                        "withheld": withheld,
                        "outcome": outcome,
                        "at": now,
                    }
                ],
            )
            return RecallResult(
                released=tuple(f"[{n.ref}] {n.text}" for n in released),
                released_refs=tuple(n.ref for n in released),
                withheld=withheld,
            )

    def reads(self, org_id: str) -> list[MemoryReadRow]:
        """The read log of an organization, oldest first."""
        with self._db.read() as s:
            return list(
                s.execute(
                    select(MemoryReadRow)
                    .where(col(MemoryReadRow.org_id) == org_id)
                    .order_by(col(MemoryReadRow.id))
                ).scalars()
            )
