"""The heartbeat's store and Sentinel's connectors, on SQLite and PostgreSQL: the
snapshot the checks read, closing an orphaned intent through ``keys.close`` (once), and
the HTTP routes without Temporal."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from adapters.store.heartbeat import SqlHeartbeat
from adapters.store.store import Store
from adapters.store.tables import FindingRow
from domain.errors import TokenRefused
from domain.governance.intents import Intent, Outcome
from domain.heartbeat.checks import (
    FINDINGS_FILE,
    KEYS_CLOSE,
    ORPHAN_RULE,
    CheckKind,
    CheckResult,
    Finding,
    HeartbeatRun,
    OrgSnapshot,
    ProposalOutcome,
    Severity,
    proposals,
    run_checks,
)
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from tests.integration.test_connectors import payment_intent
from tests.support import Firm, race, utc_now
from usecases import commitments, governance, organization
from worker.bootstrap import build_connectors
from workflows.heartbeat import DOES_NOT_WAIT


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
        svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
    )
    cap = commitments.add_commitment(
        svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment("cap", SpendCap(limit_cents=1), "sow", projects=("east",)),
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
        svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
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
        svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
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
        svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
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


def _filings_of(firm: Firm, store: Store, snap: OrgSnapshot, now: datetime) -> list[Intent]:
    """Sentinel's filings for what one heartbeat over ``snap`` found (as its workflow
    builds them)."""
    findings, _ = run_checks(snap, now, time.monotonic)
    return [
        Intent.from_proposal(
            action,
            intent_id=str(uuid.uuid4()),
            org_id=firm.org,
            run_id=f"heartbeat-{uuid.uuid4()}",
            principal_id=firm.agents["sentinel"],
        )
        for finding in findings
        for action in proposals(finding, snap)
        if action.tool == FINDINGS_FILE
    ]


@pytest.mark.parametrize("trial", range(4))
def test_three_heartbeats_at_once_file_one_situation_once(
    firm: Firm, store: Store, trial: int
) -> None:
    """Issue 19.21: three heartbeats read the organization at once (none sees the
    others' filings), then decide and dispatch their filings racing. The same situation
    is filed once: the second and third are stopped by the broker (a collision while the
    first is in flight, already done once it is written), not by each one's snapshot."""
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
    )
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Atlas cap",
            SpendCap(limit_cents=500_000),
            "sow.pdf",
            projects=("east",),
            valid_until=utc_now() + timedelta(hours=1),
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    later = utc_now() + timedelta(days=1)
    heartbeats = SqlHeartbeat(store.db)
    snapshots = [heartbeats.snapshot(firm.org, later) for _ in range(3)]
    filings = [_filings_of(firm, store, snap, later) for snap in snapshots]
    assert all(len(f) == 1 for f in filings)  # each would file the expired cap
    connectors = build_connectors(store, utc_now)

    def file(intent: Intent) -> Outcome:
        decision = governance.decide(store.governance, intent, utc_now())
        if decision.outcome.may_dispatch:
            governance.dispatch(store.governance, connectors, firm.org, decision, utc_now())
        elif decision.outcome is Outcome.HOLD:  # as the workflow does: it waits for no one
            governance.close(
                store.governance, firm.org, intent.id, DOES_NOT_WAIT, "held", utc_now()
            )
        return decision.outcome

    outcomes = race([lambda i=f[0]: file(i) for f in filings])
    assert sorted(str(o) for o in outcomes) == ["allow", "hold", "hold"], outcomes
    with store.db.read() as s:
        rows = s.execute(select(FindingRow).where(FindingRow.org_id == firm.org)).scalars()
        subjects = [r.subject for r in rows]
    assert subjects == [f"{CheckKind.COMMITMENT_EXPIRED}:{cap.id}"]
    # and a fourth, later heartbeat that reads the filing proposes nothing more
    assert _filings_of(firm, store, heartbeats.snapshot(firm.org, later), later) == []
    assert store.audit.verify(firm.org).ok


def _found(subject: str, project: str, kind: CheckKind = CheckKind.COMMITMENT_EXPIRED) -> Finding:
    return Finding(
        kind=kind,
        subject=subject,
        severity=Severity.WARNING,
        summary=f"the {project} cap 'Birch retainer' expired",
        evidence=(f"c-{project}",),
        projects=(project,),
        cites=f"c-{project}",
    )


def test_a_member_reads_a_heartbeats_findings_only_on_his_projects(
    firm: Firm, store: Store, api: TestClient
) -> None:
    """Issue 19.19: Ben (east) read every project's findings in the heartbeat runs: West's
    summaries, commitments, intent ids and Sentinel's proposals. Now he reads East's,
    and each check counts only what he may read; the founder reads everything."""
    east, west = (
        _found("commitment_expired:c-east", "east"),
        _found("commitment_expired:c-west", "west"),
    )
    run = HeartbeatRun(
        id="hb-walls",
        org_id=firm.org,
        workflow_id="w",
        started_at=utc_now(),
        checks=(CheckResult(name=CheckKind.COMMITMENT_EXPIRED, count=2, duration_ms=1.0),),
        findings=(east, west),
        proposals=tuple(
            ProposalOutcome(
                subject=f.subject, tool=FINDINGS_FILE, intent_id=f"i-{p}", outcome=Outcome.ALLOW,
                rule="all_stages_passed", dispatched=True,
            )
            for f, p in ((east, "east"), (west, "west"))
        ),
    )  # fmt: skip
    SqlHeartbeat(store.db).record(run)
    route = f"/v1/orgs/{firm.org}/heartbeat/runs"
    as_ben = api.get(route, headers={"X-Verletica-Principal": firm.associate})
    (seen,) = [HeartbeatRun.model_validate(r) for r in as_ben.json()]
    assert seen.findings == (east,)
    assert [p.intent_id for p in seen.proposals] == ["i-east"]
    assert [c.count for c in seen.checks] == [1]
    text = as_ben.text
    assert "c-west" not in text and "i-west" not in text and "west" not in text
    as_ada = api.get(route, headers={"X-Verletica-Principal": firm.founder})
    assert [HeartbeatRun.model_validate(r) for r in as_ada.json()] == [run]
