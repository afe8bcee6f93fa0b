"""Closing what an ended run left open: an intent's hold expired, its operation keys
released, through the governance close path, in the dispatch's own transaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection, bindparam, select

from adapters.connectors.base import check_token
from adapters.store.audit import ChainWriter, lock
from adapters.store.governance import SqlGovernance, record_dispatch
from adapters.store.session import Database
from adapters.store.tables import HeartbeatRunRow, IntentRow, table_of
from domain.audit.chain import ChainKeys
from domain.errors import BrokerPoisoned, NotFound, TokenRefused
from domain.governance.intents import DispatchResult
from domain.governance.ports import ConnectorWrite
from domain.heartbeat.checks import ORPHAN_RULE, HeartbeatRun, heartbeat_run_id
from usecases.governance import close_in

_intents = table_of(IntentRow)
_runs = table_of(HeartbeatRunRow)
_DISPATCHED = select(_intents.c.dispatched).where(_intents.c.id == bindparam("intent_id"))
_HEARTBEAT = select(_runs.c.org_id, _runs.c.body).where(_runs.c.id == bindparam("run_id"))


class KeyCloser:
    """Performs ``keys.close``: the named intent of the same organization is closed as
    expired (rule ``orphaned_by_ended_run``), by the principal whose intent this is. The
    close, the intent's dispatched mark and both audit entries commit together.

    It closes only what a heartbeat found orphaned: the intent must come from a recorded
    heartbeat of the organization whose findings name the target (the heartbeat asked
    Temporal that the target's run has ended). A ``keys.close`` a model proposed in an
    agent run could otherwise expire a live run's hold. And it refuses a target outside
    the reach the broker allowed: a principal closes only within projects it may act in."""

    system = "keys"
    action = "close"

    def __init__(
        self,
        db: Database,
        clock: Callable[[], datetime],
        keys: ChainKeys,
        governance: SqlGovernance,
    ) -> None:
        self._db = db
        self._clock = clock
        self._keys = keys
        self._governance = governance

    @property
    def actions(self) -> frozenset[str]:
        return frozenset({self.action})

    def write(self, write: ConnectorWrite) -> DispatchResult:
        """Check the token, then close the named intent unless this intent did already."""
        if (write.tool.system, write.tool.action) != (self.system, self.action):
            raise TokenRefused(f"{write.tool.name} is not {self.system}.{self.action}")
        intent, now = write.intent, self._clock()
        with self._db.transaction() as s:
            locked = lock(s, intent.org_id)
            if locked.poisoned is not None:
                raise BrokerPoisoned(locked.poisoned)
            connection = s.connection()
            check_token(connection, write, self._keys)
            duplicate = bool(connection.execute(_DISPATCHED, {"intent_id": intent.id}).scalar())
            chain = ChainWriter(s, intent.org_id, self._keys, locked)
            if not duplicate:
                unit = self._governance.joined(s, intent.org_id, now, locked, chain)
                target_id = str(intent.payload["intent_id"])
                _check_found_orphaned(connection, intent.org_id, intent.run_id, target_id)
                target = unit.stored(target_id)
                if target is None:
                    raise TokenRefused(f"no intent {target_id} in this organization")
                outside = set(target.reach) - set(intent.projects)
                if outside:
                    raise TokenRefused(
                        f"intent {target_id} reaches {', '.join(sorted(outside))}, "
                        "beyond the projects this close was allowed in"
                    )
                try:
                    close_in(
                        unit,
                        target_id,
                        ORPHAN_RULE,
                        str(intent.payload["reason"]),
                        now,
                        actor=intent.principal_id,
                    )
                except NotFound as exc:
                    raise TokenRefused(str(exc)) from exc
                unit.flush()
            result = DispatchResult(
                intent_id=intent.id,
                system=self.system,
                action=self.action,
                external_id=f"{self.system}:{intent.payload['intent_id']}",
                duplicate=duplicate,
            )
            record_dispatch(s, chain, result, now)
            chain.flush()
        return result


def _check_found_orphaned(connection: Connection, org_id: str, run_id: str, target: str) -> None:
    """Refuse unless the heartbeat run that proposed this close found ``target`` orphaned."""
    heartbeat = heartbeat_run_id(run_id)
    row = (
        None if heartbeat is None else connection.execute(_HEARTBEAT, {"run_id": heartbeat}).first()
    )
    if row is None or row.org_id != org_id:
        raise TokenRefused("keys.close is performed only for a heartbeat's proposal")
    found = HeartbeatRun.model_validate(row.body).findings
    if not any(f.close_intent == target for f in found):
        raise TokenRefused(f"the heartbeat that proposed this did not find {target} orphaned")
