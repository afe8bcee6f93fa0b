"""What every connector checks before it writes: the token names an audited allow."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection, bindparam, insert, select
from sqlmodel import SQLModel

from adapters.store.audit import ChainWriter, lock
from adapters.store.convert import audit_entry
from adapters.store.governance import record_dispatch
from adapters.store.session import Database
from adapters.store.tables import AuditEntryRow, IntentRow, table_of
from domain.audit.chain import ChainKeys
from domain.errors import BrokerPoisoned, TokenRefused
from domain.governance.intents import DispatchResult, Outcome
from domain.governance.ports import ConnectorWrite
from domain.governance.tokens import token_problem

_entries, _intents = table_of(AuditEntryRow), table_of(IntentRow)
# The allowing entry and its predecessor in one read; the intent's recorded state.
_ENTRY_AND_PREVIOUS = select(*_entries.c).where(
    _entries.c.org_id == bindparam("org_id"),
    _entries.c.seq.in_([bindparam("seq"), bindparam("prev_seq")]),
)
_INTENT_STATE = select(_intents.c.org_id, _intents.c.status, _intents.c.dispatched).where(
    _intents.c.id == bindparam("intent_id")
)


def check_token(connection: Connection, write: ConnectorWrite, keys: ChainKeys) -> None:
    """Refuse a write unless its token names an audited allow/approve of this exact intent,
    and the intent may still be dispatched (it was not closed in the meantime)."""
    token, intent = write.token, write.intent
    if write.intent.tool != write.tool.name:
        raise TokenRefused(f"the intent is for {write.intent.tool}, not {write.tool.name}")
    rows = {
        r.seq: r
        for r in connection.execute(
            _ENTRY_AND_PREVIOUS,
            {"org_id": token.org_id, "seq": token.audit_seq, "prev_seq": token.audit_seq - 1},
        )
    }
    row = rows.get(token.audit_seq)
    recorded = connection.execute(_INTENT_STATE, {"intent_id": intent.id}).first()
    if recorded is not None and recorded.org_id != intent.org_id:
        recorded = None
    problem = token_problem(
        token,
        intent,
        None if row is None else audit_entry(row),
        keys,
        None if recorded is None else Outcome(recorded.status),
        recorded is not None and bool(recorded.dispatched),
    )
    if problem is not None:
        raise TokenRefused(problem.reason, foundation=problem.foundation)
    if token.audit_seq > 1:
        prev = rows.get(token.audit_seq - 1)
        assert row is not None
        if prev is None or prev.entry_hash != row.prev_hash:
            raise TokenRefused(
                f"audit entry {token.audit_seq} is not linked to its predecessor", foundation=True
            )


class TableConnector(ABC):
    """A connector whose outside world is a table: one row per intent, written once.

    The table is a transactional outbox: the row, the intent's dispatched mark, its
    operation key and the ``dispatched`` audit entry commit in one transaction, under
    the organization's lock. A crash leaves either all of them or none; a retried write
    finds its row and records nothing twice. (A relay that delivers the rows to the
    real system reads them idempotently by intent id.)

    Subclasses name their system, action and row type and build the row.
    """

    system: str
    action: str
    row_type: type[SQLModel]

    def __init__(self, db: Database, clock: Callable[[], datetime], keys: ChainKeys) -> None:
        self._db = db
        self._clock = clock
        self._keys = keys
        table = table_of(self.row_type)
        self._find = select(table.c.intent_id).where(table.c.intent_id == bindparam("intent_id"))
        self._insert = insert(table)

    @property
    def actions(self) -> frozenset[str]:
        return frozenset({self.action})

    @abstractmethod
    def build_row(self, write: ConnectorWrite, now: datetime) -> SQLModel:
        """The row this write adds."""

    def write(self, write: ConnectorWrite) -> DispatchResult:
        """Check the token, then write the row unless this intent already wrote it."""
        if (write.tool.system, write.tool.action) != (self.system, self.action):
            raise TokenRefused(f"{write.tool.name} is not {self.system}.{self.action}")
        with self._db.transaction() as s:
            locked = lock(s, write.intent.org_id)
            if locked.poisoned is not None:
                raise BrokerPoisoned(locked.poisoned)
            connection = s.connection()
            check_token(connection, write, self._keys)
            found = connection.execute(self._find, {"intent_id": write.intent.id}).first()
            duplicate = found is not None
            result = DispatchResult(
                intent_id=write.intent.id,
                system=self.system,
                action=self.action,
                external_id=f"{self.system}:{write.intent.id}",
                duplicate=duplicate,
            )
            now = self._clock()
            if not duplicate:
                connection.execute(self._insert, [self.build_row(write, now).model_dump()])
            chain = ChainWriter(s, write.intent.org_id, self._keys, locked)
            record_dispatch(s, chain, result, now)
            chain.flush()
        return result
