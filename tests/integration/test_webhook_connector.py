"""The webhook connector against a local HTTP receiver that checks every signature (SQLite
and PostgreSQL): a post signed and delivered once, also when the receiver first answers
503 (the retry carries the same Idempotency-Key); a refusal for good recorded; an
unconfigured target refused; a forged or stale signature told apart by the receiver."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import func, select

from adapters.store.store import Store
from adapters.store.tables import WebhookRow
from domain.errors import Unavailable
from domain.governance.intents import Intent, Outcome
from domain.webhooks import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookTarget,
    post_body,
    signature,
    verify,
)
from tests.support import Firm, utc_now
from usecases import governance
from worker.bootstrap import build_connectors

SECRET = b"whsec-test-7f1c"
SKEW_SECONDS = 300


@dataclass
class Receiver:
    """A system that accepts signed posts; ``answers`` are its next status codes."""

    answers: list[int] = field(default_factory=list)
    seen: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            stamp = int(self.headers.get(TIMESTAMP_HEADER, "0"))
            signed = verify(SECRET, stamp, body, self.headers.get(SIGNATURE_HEADER, ""))
            fresh = abs(time.time() - stamp) < SKEW_SECONDS
            with receiver.lock:
                status = receiver.answers.pop(0) if receiver.answers else 200
                if not (signed and fresh):
                    status = 401
                receiver.seen.append(
                    {
                        "key": self.headers.get(IDEMPOTENCY_HEADER),
                        "signed": signed,
                        "body": json.loads(body),
                        "status": status,
                    }
                )
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(got))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    got.url = f"http://127.0.0.1:{server.server_port}/hooks"
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


def _post(firm: Firm, target: str = "crm", event: str = "invoice.paid") -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4()}",
        principal_id=firm.agents["ledger"],
        tool="webhook.post",
        projects=("east",),
        payload={"target": target, "event": event, "body": "NW-7 paid, USD 2,500"},
        cost_cents=0,
        justification="the CRM tracks paid invoices",
    )


def _rows(store: Store) -> int:
    with store.db.read() as s:
        return int(s.execute(select(func.count()).select_from(WebhookRow)).scalar_one())


def test_a_post_is_signed_retried_with_its_key_and_delivered_once(
    store: Store, firm: Firm, receiver: Receiver
) -> None:
    targets = {
        "crm": WebhookTarget(
            url=receiver.url, secret=SecretStr(SECRET.decode()), org_ids=(firm.org,)
        )
    }
    intent = _post(firm)
    decision = governance.decide(store.governance, intent, utc_now())
    assert decision.outcome is Outcome.ALLOW, decision
    connectors = build_connectors(store, utc_now, targets)
    receiver.answers = [503]
    with pytest.raises(Unavailable):
        governance.dispatch(store.governance, connectors, firm.org, decision, utc_now(), intent)
    done = governance.dispatch(store.governance, connectors, firm.org, decision, utc_now(), intent)
    again = governance.dispatch(store.governance, connectors, firm.org, decision, utc_now(), intent)

    assert (done.duplicate, again.duplicate) == (False, True)
    assert [(s["key"], s["signed"], s["status"]) for s in receiver.seen] == [
        (intent.id, True, 503),
        (intent.id, True, 200),
    ]  # the duplicate posted nothing
    assert receiver.seen[1]["body"] == {
        "org_id": firm.org, "intent_id": intent.id, "event": "invoice.paid",
        "body": "NW-7 paid, USD 2,500",
    }  # fmt: skip
    assert _rows(store) == 1
    dispatched = [e for e in store.audit.entries(firm.org) if e.decision == "dispatched"]
    assert [e.intent_id for e in dispatched] == [intent.id]
    assert store.audit.verify(firm.org).ok


def test_a_refusal_for_good_and_an_unknown_target_are_recorded_never_posted_twice(
    store: Store, firm: Firm, receiver: Receiver
) -> None:
    targets = {
        "crm": WebhookTarget(
            url=receiver.url, secret=SecretStr(SECRET.decode()), org_ids=(firm.org,)
        )
    }
    receiver.answers = [422]
    intent = _post(firm)
    decision = governance.decide(store.governance, intent, utc_now())
    connectors = build_connectors(store, utc_now, targets)
    with pytest.raises(Exception) as first:
        governance.dispatch(store.governance, connectors, firm.org, decision, utc_now(), intent)
    assert "refused for good" in str(first.value)
    unknown = _post(firm, target="erp")
    decided = governance.decide(store.governance, unknown, utc_now())
    with pytest.raises(Exception) as second:
        governance.dispatch(store.governance, connectors, firm.org, decided, utc_now(), unknown)
    assert "no webhook target named 'erp'" in str(second.value)
    # A target another organization configured is not this one's.
    elsewhere = {
        "crm": WebhookTarget(url=receiver.url, secret=SecretStr("x"), org_ids=("another-org",))
    }
    foreign = _post(firm)
    decided = governance.decide(store.governance, foreign, utc_now())
    with pytest.raises(Exception) as third:
        governance.dispatch(
            store.governance, build_connectors(store, utc_now, elsewhere), firm.org, decided,
            utc_now(), foreign,
        )  # fmt: skip
    assert "configured for this organization" in str(third.value)
    assert len(receiver.seen) == 1 and _rows(store) == 0
    rules = [e.rule for e in store.audit.entries(firm.org) if e.decision == "dispatch_refused"]
    assert len(rules) == 3
    assert store.audit.verify(firm.org).ok


def test_the_receiver_tells_a_forged_or_stale_signature() -> None:
    body = post_body("o", "i", "e", "b")
    now = int(time.time())
    assert verify(SECRET, now, body, signature(SECRET, now, body))
    assert not verify(SECRET, now, body, signature(b"another secret", now, body))
    assert not verify(SECRET, now, body + b" ", signature(SECRET, now, body))
    assert not verify(SECRET, now + 1, body, signature(SECRET, now, body))
