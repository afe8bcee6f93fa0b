"""Webhook posts to the systems an organization configured: signed, idempotent by intent.

The post goes out first, outside any transaction: the token is checked, and a post
already recorded is answered as a duplicate without posting again. A 2xx answer is then
recorded, its row and its ``dispatched`` entry in one transaction under the
organization's lock (the token checked again). A refusal that will not change (a 4xx
other than 408/425/429) is final; anything else raises for the dispatch activity to
retry, boundedly, with the same ``Idempotency-Key``: a receiver that did get an earlier
attempt can tell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

import httpx
from sqlalchemy import bindparam, insert, select

from adapters.connectors.base import check_token
from adapters.store.audit import ChainWriter, lock
from adapters.store.governance import record_dispatch
from adapters.store.session import Database
from adapters.store.tables import WebhookRow, table_of
from domain.audit.chain import ChainKeys
from domain.errors import BrokerPoisoned, TokenRefused, Unavailable
from domain.governance.intents import DispatchResult
from domain.governance.ports import ConnectorWrite
from domain.webhooks import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookTarget,
    post_body,
    retryable,
    signature,
)

_posts = table_of(WebhookRow)
_FOUND = select(_posts.c.intent_id).where(_posts.c.intent_id == bindparam("intent_id"))
TIMEOUT_SECONDS = 10.0


class WebhookPoster:
    """The ``webhook.post`` connector."""

    system = "webhook"
    actions = frozenset({"post"})

    def __init__(
        self,
        db: Database,
        clock: Callable[[], datetime],
        keys: ChainKeys,
        targets: Mapping[str, WebhookTarget],
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._db, self._clock, self._keys = db, clock, keys
        self._targets = dict(targets)
        self._transport = transport

    def _result(self, write: ConnectorWrite, duplicate: bool) -> DispatchResult:
        return DispatchResult(
            intent_id=write.intent.id,
            system=self.system,
            action="post",
            external_id=f"webhook:{write.intent.id}",
            duplicate=duplicate,
        )

    def _checked(self, write: ConnectorWrite) -> bool:
        """Check the token under the lock; True when this intent's post is recorded."""
        with self._db.transaction() as s:
            locked = lock(s, write.intent.org_id)
            if locked.poisoned is not None:
                raise BrokerPoisoned(locked.poisoned)
            check_token(s.connection(), write, self._keys)
            return (
                s.connection().execute(_FOUND, {"intent_id": write.intent.id}).first() is not None
            )

    def write(self, write: ConnectorWrite) -> DispatchResult:
        if (write.tool.system, write.tool.action) != (self.system, "post"):
            raise TokenRefused(f"{write.tool.name} is not {self.system}.post")
        p = write.intent.payload
        target = self._targets.get(p["target"])
        if target is None or not target.serves(write.intent.org_id):
            raise TokenRefused(
                f"no webhook target named {p['target']!r} is configured for this organization"
            )
        if self._checked(write):
            return self._result(write, duplicate=True)
        body = post_body(write.intent.org_id, write.intent.id, p["event"], p["body"])
        stamp = int(self._clock().timestamp())
        headers = {
            "Content-Type": "application/json",
            IDEMPOTENCY_HEADER: write.intent.id,
            TIMESTAMP_HEADER: str(stamp),
            SIGNATURE_HEADER: signature(target.secret.get_secret_value().encode(), stamp, body),
        }
        try:
            with httpx.Client(timeout=TIMEOUT_SECONDS, transport=self._transport) as http:
                answer = http.post(target.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise Unavailable(f"webhook {p['target']!r} unreachable: {type(exc).__name__}") from exc
        if answer.status_code >= 300:
            problem = f"webhook {p['target']!r} answered {answer.status_code}"
            if retryable(answer.status_code):
                raise Unavailable(problem)
            raise TokenRefused(f"{problem}: refused for good")
        return self._record(write, answer.status_code)

    def _record(self, write: ConnectorWrite, status: int) -> DispatchResult:
        with self._db.transaction() as s:
            locked = lock(s, write.intent.org_id)
            if locked.poisoned is not None:
                raise BrokerPoisoned(locked.poisoned)
            connection = s.connection()
            try:
                check_token(connection, write, self._keys)
            except TokenRefused as refused:
                # The post went out; what changed while it was in flight (the intent was
                # closed) is on the record beside the fact that it was delivered.
                raise TokenRefused(
                    f"the receiver accepted the post ({status}), but {refused}",
                    foundation=refused.foundation,
                ) from refused
            if connection.execute(_FOUND, {"intent_id": write.intent.id}).first() is not None:
                return self._result(write, duplicate=True)
            p, now = write.intent.payload, self._clock()
            connection.execute(
                insert(_posts),
                [
                    WebhookRow(
                        intent_id=write.intent.id,
                        org_id=write.intent.org_id,
                        target=p["target"],
                        event=p["event"],
                        body=p["body"],
                        status_code=status,
                        audit_seq=write.token.audit_seq,
                        entry_hash=write.token.entry_hash,
                        created_at=now,
                    ).model_dump()
                ],
            )
            result = self._result(write, duplicate=False)
            chain = ChainWriter(s, write.intent.org_id, self._keys, locked)
            record_dispatch(s, chain, result, now)
            chain.flush()
        return result
