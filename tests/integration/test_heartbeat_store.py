"""The heartbeat's store and Sentinel's connectors, on SQLite and PostgreSQL: the
snapshot the checks read, closing an orphaned intent through ``keys.close`` (once), and
the HTTP routes without Temporal."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from adapters.store.heartbeat import SqlHeartbeat
from adapters.store.store import Store
from domain.errors import TokenRefused
from domain.intents import Intent, Outcome
from domain.model import SpendCap, StaffRole
from domain.time.heartbeat import (
    FINDINGS_FILE,
    KEYS_CLOSE,
    ORPHAN_RULE,
    CheckKind,
    Finding,
    HeartbeatRun,
    Severity,
)
from tests.conftest import Firm, utc_now
from tests.integration.test_connectors import payment_intent
from usecases import governance, organization
from worker.bootstrap import build_connectors


def _found_orphaned(store: Store, firm: Firm, target: str) -> str:
    """Record a heartbeat run that found ``target`` orphaned; its id."""
    run = HeartbeatRun(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        workflow_id="heartbeat-test",
        started_at=utc_now(),
        findings=(
            Finding(
                kind=CheckKind.ORPHANED,
                subject=f"{CheckKind.ORPHANED}:{target}",
                severity=Severity.CRITICAL,
                summary="its run was terminated",
                evidence=(target,),
                projects=("east",),
                close_intent=target,
            ),
        ),
    )
    SqlHeartbeat(store.db).record(run)
    return run.id


def _close(firm: Firm, target: str, project: str = "east", heartbeat: str | None = None) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"heartbeat-{heartbeat or uuid.uuid4()}",
        principal_id=firm.agents["sentinel"],
        tool=KEYS_CLOSE,
        projects=(project,),
        payload={"intent_id": target, "reason": "its run was terminated"},
        cost_cents=0,
        justification="heartbeat",
    )


def test_the_snapshot_shows_what_the_checks_read(firm: Firm, store: Store) -> None:
    svc = firm.svc
    organization.staff(
        svc, firm.org, firm.founder, firm.agents["sentinel"], "east", StaffRole.MEMBER
    )
    cap = organization.add_commitment(
        svc, firm.org, firm.founder, "cap", SpendCap(limit_cents=1), "sow", projects=("east",)
    )
    held = payment_intent(firm, amount=200_000)
    assert governance.decide(store.governance, held, utc_now()).outcome is Outcome.HOLD
    snap = SqlHeartbeat(store.db).snapshot(firm.org, utc_now())
    assert (snap.sentinel_id, snap.sentinel_projects) == (firm.agents["sentinel"], ("east",))
    assert [c.commitment.id for c in snap.commitments] == [cap.id]
    (open_intent,) = snap.open_intents
    assert (open_intent.intent_id, open_intent.hold_open) == (held.id, True)
    assert open_intent.keys == ("payments.pay:nw-2291",) and open_intent.reach == ("east",)
    assert open_intent.rule == "money_over_threshold"
    assert open_intent.workflow_id is None  # no recorded agent run: never taken for orphaned


def test_keys_close_closes_the_orphan_once_on_the_record(firm: Firm, store: Store) -> None:
    svc = firm.svc
    organization.staff(
        svc, firm.org, firm.founder, firm.agents["sentinel"], "east", StaffRole.MEMBER
    )
    orphan = payment_intent(firm, amount=200_000)
    governance.decide(store.governance, orphan, utc_now())
    close = _close(firm, orphan.id, heartbeat=_found_orphaned(store, firm, orphan.id))
    allowed = governance.decide(store.governance, close, utc_now())
    assert allowed.outcome is Outcome.ALLOW, allowed
    connectors = build_connectors(store, utc_now)
    first = governance.dispatch(store.governance, connectors, firm.org, allowed, utc_now(), close)
    again = governance.dispatch(store.governance, connectors, firm.org, allowed, utc_now(), close)
    assert (first.duplicate, again.duplicate) == (False, True)
    (_, status, decisions) = store.runs.intents(orphan.run_id)[0]
    assert status == Outcome.EXPIRED and decisions[-1].rule == ORPHAN_RULE
    closes = [e for e in store.audit.entries(firm.org) if e.rule == ORPHAN_RULE]
    assert [(e.actor, e.intent_id) for e in closes] == [(firm.agents["sentinel"], orphan.id)]
    assert store.audit.verify(firm.org).ok


def test_keys_close_closes_only_what_a_heartbeat_found_orphaned(firm: Firm, store: Store) -> None:
    """A ``keys.close`` proposed outside a heartbeat (Sentinel's model, in an agent run),
    or for an intent its heartbeat did not find orphaned, is allowed by the broker but
    refused by the connector, on the record: a live run's hold stays open."""
    svc = firm.svc
    organization.staff(
        svc, firm.org, firm.founder, firm.agents["sentinel"], "east", StaffRole.MEMBER
    )
    live = payment_intent(firm, amount=200_000)
    governance.decide(store.governance, live, utc_now())
    other = payment_intent(firm, amount=200_000, invoice="NW-9")
    heartbeat = _found_orphaned(store, firm, other.id)
    connectors = build_connectors(store, utc_now)
    for close in (
        _close(firm, live.id),  # no such heartbeat
        _close(firm, live.id, heartbeat=heartbeat),  # a heartbeat that found another
        _close(firm, live.id).model_copy(update={"run_id": "agent-run"}),  # an agent run
    ):
        allowed = governance.decide(store.governance, close, utc_now())
        assert allowed.outcome is Outcome.ALLOW
        with pytest.raises(TokenRefused):
            governance.dispatch(store.governance, connectors, firm.org, allowed, utc_now(), close)
        # as the heartbeat does after a refused write: closed, its key released
        governance.close(store.governance, firm.org, close.id, "dispatch_failed", "-", utc_now())
    (_, status, _) = store.runs.intents(live.run_id)[0]
    assert status == Outcome.HOLD
    refusals = [e for e in store.audit.entries(firm.org) if e.decision == "dispatch_refused"]
    assert len(refusals) == 3
    assert store.audit.verify(firm.org).ok


def test_sentinel_cannot_close_across_the_wall(firm: Firm, store: Store) -> None:
    """Sentinel is staffed on east: closing a west intent is refused by the broker."""
    svc = firm.svc
    organization.staff(
        svc, firm.org, firm.founder, firm.agents["sentinel"], "east", StaffRole.MEMBER
    )
    decision = governance.decide(
        store.governance, _close(firm, str(uuid.uuid4()), "west"), utc_now()
    )
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "not_staffed")


def test_the_routes_without_temporal(firm: Firm, store: Store, api: TestClient) -> None:
    founder = {"X-Verletica-Principal": firm.founder}
    associate = {"X-Verletica-Principal": firm.associate}
    answer = api.post(f"/v1/orgs/{firm.org}/heartbeat", headers=founder)
    assert answer.status_code == 503, answer.text
    assert api.post(f"/v1/orgs/{firm.org}/heartbeat", headers=associate).status_code == 403
    assert api.get(f"/v1/orgs/{firm.org}/heartbeat/runs", headers=founder).json() == []
    now = utc_now()
    run = HeartbeatRun(
        id="hb-1",
        org_id=firm.org,
        workflow_id="w",
        started_at=now,
        ended_at=now + timedelta(seconds=1),
    )
    SqlHeartbeat(store.db).record(run)
    listed = api.get(f"/v1/orgs/{firm.org}/heartbeat/runs", headers=associate)
    assert [HeartbeatRun.model_validate(r) for r in listed.json()] == [run]
    outsider = {"X-Verletica-Principal": "nobody"}
    assert api.get(f"/v1/orgs/{firm.org}/heartbeat/runs", headers=outsider).status_code in (
        401,
        404,
    )


def test_a_refused_filing_is_proposed_again_only_a_day_later(firm: Firm, store: Store) -> None:
    """Sentinel is not staffed on west: its filing there is refused, on the record, and
    the next heartbeats of the day do not propose it again (nor append the refusal)."""
    subject = "commitment_expired:c-west"
    filing = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"heartbeat-{uuid.uuid4()}",
        principal_id=firm.agents["sentinel"],
        tool=FINDINGS_FILE,
        projects=("west",),
        payload={
            "kind": "commitment_expired",
            "subject": subject,
            "severity": "warning",
            "summary": "expired",
            "evidence": "c-west",
            "cites": "c-west",
        },
        cost_cents=0,
        justification="heartbeat",
    )
    refused = governance.decide(store.governance, filing, utc_now())
    assert (refused.outcome, refused.rule) == (Outcome.REJECT, "not_staffed")
    heartbeats = SqlHeartbeat(store.db)
    soon = heartbeats.snapshot(firm.org, utc_now() + timedelta(hours=1))
    assert soon.recently_proposed == (subject,)
    later = heartbeats.snapshot(firm.org, utc_now() + timedelta(days=1, minutes=1))
    assert later.recently_proposed == ()
