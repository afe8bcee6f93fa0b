"""The needs-you queue and the autonomy metrics over the store (SQLite and PostgreSQL):
a held payment, extracted commitments and failed runs, each with its evidence and
actions; a member of East sees West's items as withheld, never their content; the
founder sees everything; actions taken from the queue are on the record."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli.main import app as cli_app
from api.http.app import create_app
from domain.errors import Conflict
from domain.governance.intents import Intent, Outcome, Stage
from domain.heartbeat.checks import FINDINGS_FILE, FiledFinding
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from domain.runs.run import ApprovalSignal, RunInput, RunRecord, RunState, RunStatus
from tests.identity import cli_signed_in, signed_in
from tests.integration.test_offers import PAYMENT, _finding, _steps
from tests.support import Firm, Wired, payment_intent, race, utc_now
from usecases import (
    audit,
    commitments,
    governance,
    heartbeat,
    needs_you,
    offers,
    offers_drift,
    organization,
)
from usecases.audit_stories import ChainStories
from usecases.context import Ports
from worker.bootstrap import build_connectors

H = "X-Verletica-Principal"


@dataclass
class FakeRuns:
    """A :class:`~domain.runs.ports.RunGateway` that records what it is asked (no Temporal)."""

    started: list[RunInput] = field(default_factory=list)
    signals: list[tuple[str, bool, ApprovalSignal]] = field(default_factory=list)
    states: dict[str, tuple[str, RunState | None]] = field(default_factory=dict)

    async def start(
        self, run: RunInput, workflow_id: str, agent_handle: str, projects: tuple[str, ...] = ()
    ) -> None:
        if all(s.run_id != run.run_id for s in self.started):
            self.started.append(run)

    async def state(self, workflow_id: str) -> tuple[str, RunState | None]:
        return self.states.get(workflow_id, ("running", None))

    async def result(self, workflow_id: str) -> RunState:
        raise Conflict("a fake run never ends")

    async def signal(self, workflow_id: str, approve: bool, signal: ApprovalSignal) -> None:
        self.signals.append((workflow_id, approve, signal))

    def ui_url(self, workflow_id: str) -> str:
        return f"http://ui.test/{workflow_id}"

    async def statuses(self, workflow_ids: Sequence[str]) -> dict[str, str]:
        return {w: self.states.get(w, ("running", None))[0] for w in workflow_ids}


@dataclass
class Scene:
    """East: a held payment, a refused run, a pending cap. West: a refused run and a
    pending cap, behind the wall."""

    held: Intent
    east_run: str
    west_run: str
    east_cap: str
    west_cap: str


def _run(
    svc: Ports,
    firm: Firm,
    agent: str,
    projects: tuple[str, ...],
    task: str,
    hold_timeout_seconds: int | None = None,
) -> str:
    run_id = str(uuid.uuid4())
    svc.runs.create(
        RunRecord(
            id=run_id,
            org_id=firm.org,
            agent_id=firm.agents[agent],
            task=task,
            workflow_id=f"agent-run-{run_id}",
            started_by=firm.founder,
            projects=projects,
            hold_timeout_seconds=hold_timeout_seconds,
            created_at=utc_now(),
        )
    )
    return run_id


def _refuse(svc: Ports, firm: Firm, run_id: str, agent: str, stage: str, rule: str) -> None:
    store = svc.store  # type: ignore[attr-defined]
    governance.record_run_rejection(
        store.governance,
        governance.RunRef(firm.org, run_id, firm.agents[agent]),
        stage=stage,
        rule=rule,
        payload={"reason": f"{rule} for a test"},
        now=utc_now(),
    )


def scene(firm: Firm) -> Scene:
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    pay_run = _run(svc, firm, "ledger", ("east",), "pay the Atlas invoice", 3_600)
    held = payment_intent(firm.org, firm.agents["ledger"], 250_000, run_id=pay_run)
    decision = governance.decide(svc.store.governance, held, utc_now())
    assert decision.outcome is Outcome.HOLD
    east_run = _run(svc, firm, "orion", ("east",), "draft the Atlas kickoff mail")
    _refuse(svc, firm, east_run, "orion", Stage.PARSER, "malformed_json")
    west_run = _run(svc, firm, "vega", ("west",), "summarise the Birch CIM projections")
    _refuse(svc, firm, west_run, "vega", "resolve", "charter_unpublished")

    def cap(title: str, project: str, cents: int) -> str:
        return commitments.add_commitment(
            svc,
            firm.org,
            firm.founder,
            commitments.AddCommitment(
                title,
                SpendCap(limit_cents=cents),
                f"{title} letter",
                excerpt="shall not exceed",
                projects=(project,),
            ),
        ).id

    return Scene(
        held=held,
        east_run=east_run,
        west_run=west_run,
        east_cap=cap("Atlas cap", "east", 500_000),
        west_cap=cap("Birch cap", "west", 900_000),
    )


def _queue(api: TestClient, firm: Firm, who: str) -> dict[str, Any]:
    r = api.get(f"/v1/orgs/{firm.org}/needs-you", headers={H: who})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _visible(queue: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in queue["items"] if i["kind"] != "withheld"]


def test_the_founder_sees_every_item_most_urgent_first_with_evidence_and_actions(
    api: TestClient, firm: Firm
) -> None:
    s = scene(firm)
    queue = _queue(api, firm, firm.founder)
    items = _visible(queue)
    assert queue["withheld"] == 0 and len(items) == len(queue["items"]) == 5
    assert [(i["kind"], i["subject_id"]) for i in items] == [
        ("held_intent", s.held.id),
        ("failed_run", s.east_run),
        ("failed_run", s.west_run),
        ("commitment", s.west_cap),  # more money at stake
        ("commitment", s.east_cap),
    ]
    assert [i["urgency"] for i in items] == sorted((i["urgency"] for i in items), reverse=True)
    hold = items[0]
    assert hold["money_cents"] == 250_000 and hold["reach"] == ["east"]
    labels = {e["label"]: e["detail"] for e in hold["evidence"]}
    assert labels["rule"] == "approval: money_over_threshold"
    assert "release" in labels and labels["reason"]
    assert {(a["kind"], a["path"]) for a in hold["actions"]} == {
        ("approve", f"/v1/intents/{s.held.id}/approve"),
        ("deny", f"/v1/intents/{s.held.id}/deny"),
    }
    # The run's own hold timeout (an hour), not the seven-day default.
    waited = datetime.fromisoformat(hold["due"]) - datetime.fromisoformat(hold["waiting_since"])
    assert waited == timedelta(hours=1)
    run = next(i for i in items if i["subject_id"] == s.west_run)
    labels = {e["label"]: e["detail"] for e in run["evidence"]}
    assert labels["rule"] == "resolve: charter_unpublished"
    # Refused at resolve: an authority failure, which retrying as it is cannot cure.
    assert (labels["class"], labels["retries left"], run["actions"]) == ("authority", "0", [])
    assert "charter" in labels["next step"]
    parsed = next(i for i in items if i["subject_id"] == s.east_run)
    assert {e["label"]: e["detail"] for e in parsed["evidence"]}["class"] == "validation"
    assert parsed["actions"] == [
        {"kind": "retry", "method": "POST", "path": f"/v1/runs/{s.east_run}/retry",
         "cli": f"verletica retry {s.east_run}", "needs": []}
    ]  # fmt: skip
    cap = next(i for i in items if i["subject_id"] == s.east_cap)
    assert [a["kind"] for a in cap["actions"]] == ["confirm", "reject"]
    assert {e["label"]: e["detail"] for e in cap["evidence"]}["source"] == "Atlas cap letter"
    wired = {x["name"]: x["wired"] for x in queue["sources"]}
    assert wired["held_intents"] and wired["failed_runs"] and wired["pending_commitments"]
    assert wired["process_offers"] and wired["drift_findings"] and wired["findings"]


def test_an_east_member_sees_west_items_as_withheld_never_their_content(
    api: TestClient, firm: Firm
) -> None:
    s = scene(firm)
    queue = _queue(api, firm, firm.associate)
    items = _visible(queue)
    assert {i["subject_id"] for i in items} == {s.held.id, s.east_run, s.east_cap}
    assert all(set(i["reach"]) <= {"east"} for i in items)
    assert queue["withheld"] == 2
    withheld = queue["items"][len(items) :]
    assert withheld == [{"kind": "withheld", "reason": "it concerns projects outside yours"}] * 2
    text = json.dumps(queue)
    for secret in (s.west_run, s.west_cap, "Birch", "CIM", "900000", "vega", "charter_unpub"):
        assert secret not in text


def test_one_held_intent_reads_as_the_whole_queue_and_the_whole_trail_say_it(
    firm: Firm,
) -> None:
    """A held intent's page reads its item and its record alone (the held intents, the
    intent's own entries): what each reader is shown is what the whole queue and the
    whole trail show them, withheld parts withheld alike."""
    s = scene(firm)
    svc = firm.svc
    west = payment_intent(firm.org, firm.agents["vega"], 250_000, run_id=s.west_run)
    west = west.model_copy(update={"projects": ("west",)})
    governance.decide(svc.store.governance, west, utc_now())  # type: ignore[attr-defined]  # refused: Vega may not pay
    for who in (firm.founder, firm.associate):
        whole = needs_you.needs_you(svc, firm.org, who)
        trail = audit.audit(svc, firm.org, who, verify=False).entries
        for intent in (s.held, west):
            item = next(
                (i for i in whole.items if getattr(i, "subject_id", None) == intent.id), None
            )
            assert needs_you.held_item(svc, firm.org, who, intent.id) == item
            own = [e for e in trail if e.intent_id == intent.id]
            assert own and audit.intent_trail(svc, firm.org, who, intent.id) == own
    # one intent's reach, read alone, is what the organization's reaches say of it
    by_intent = svc.runs.reaches(firm.org)[1]
    assert by_intent[s.held.id] == {"east"} and by_intent[west.id] == {"west"}
    for intent in (s.held, west):
        assert svc.runs.intent_reach(intent.id) == by_intent[intent.id]
    assert svc.runs.intent_reach("no-such-intent") == set()
    # the associate (East) sees West's payment nowhere, and its entries withheld
    assert needs_you.held_item(svc, firm.org, firm.associate, west.id) is None
    assert needs_you.held_item(svc, firm.org, firm.associate, s.held.id) is not None
    assert all(
        e.payload == audit.WITHHELD
        for e in audit.intent_trail(svc, firm.org, firm.associate, west.id)
    )


def test_someone_of_another_organization_learns_nothing(
    api: TestClient, firm: Firm, services: Ports
) -> None:
    scene(firm)
    other = organization.onboard(services, "Other", "eve@other.example", "Eve")
    r = api.get(f"/v1/orgs/{firm.org}/needs-you", headers={H: other.founder.id})
    assert r.status_code == 404
    r = api.get(f"/v1/orgs/{firm.org}/metrics", headers={H: other.founder.id})
    assert r.status_code == 404


def test_the_queue_answers_a_bearer_token_as_it_answers_the_dev_header(
    services: Ports, firm: Firm
) -> None:
    s = scene(firm)
    with TestClient(create_app(ports=services)) as client:
        r = client.get(
            f"/v1/orgs/{firm.org}/needs-you", headers=signed_in(services, firm.associate)
        )
        assert r.status_code == 200, r.text
        assert {i.get("subject_id") for i in r.json()["items"]} == {
            s.held.id, s.east_run, s.east_cap, None,
        }  # fmt: skip
        assert client.get(f"/v1/orgs/{firm.org}/needs-you").status_code == 401


def _entries(api: TestClient, firm: Firm) -> list[dict[str, Any]]:
    r = api.get(f"/v1/orgs/{firm.org}/audit", headers={H: firm.founder})
    return r.json()["entries"]  # type: ignore[no-any-return]


def test_actions_taken_from_the_queue_are_on_the_record_and_leave_it(
    services: Ports, firm: Firm
) -> None:
    s = scene(firm)
    runs = FakeRuns()
    ports = replace(services, gateway=runs, dev_principal_header=True)
    with TestClient(create_app(ports=ports)) as api:
        items = {i["subject_id"]: i for i in _visible(_queue(api, firm, firm.founder))}
        confirm = items[s.east_cap]["actions"][0]
        r = api.post(confirm["path"], headers={H: firm.founder})
        assert r.status_code == 200 and r.json()["state"] == "confirmed"
        reject = items[s.west_cap]["actions"][1]
        assert reject["kind"] == "reject" and reject["needs"] == ["reason"]
        r = api.post(reject["path"], json={"reason": "not ours"}, headers={H: firm.founder})
        assert r.status_code == 200 and r.json()["state"] == "rejected", r.text
        refused = api.post(f"/v1/runs/{s.west_run}/retry", headers={H: firm.founder})
        assert refused.status_code == 409 and "authority" in refused.text
        retry = items[s.east_run]["actions"][0]
        first = api.post(retry["path"], headers={H: firm.founder})
        assert first.status_code == 201, first.text
        again = api.post(retry["path"], headers={H: firm.founder})
        assert again.json()["retry"]["run_id"] == first.json()["retry"]["run_id"]
        (started,) = runs.started
        assert started.agent_id == firm.agents["orion"]
        assert started.task == "draft the Atlas kickoff mail"
        assert started.requested_by == firm.founder
        approve = items[s.held.id]["actions"][0]
        r = api.post(approve["path"], json={}, headers={H: firm.founder})
        assert r.status_code == 202, r.text
        (sent,) = runs.signals
        assert sent[1] is True and sent[2].intent_digest == s.held.digest
        # the run was not refused, so there is nothing to retry
        r = api.post(f"/v1/runs/{started.run_id}/retry", headers={H: firm.founder})
        assert r.status_code == 409

        entries = _entries(api, firm)
        confirmed = [e for e in entries if e["rule"] == "commitment_confirmed"]
        assert [e["actor"] for e in confirmed] == [firm.founder]
        rejected = [e for e in entries if e["rule"] == "commitment_rejected"]
        assert [e["actor"] for e in rejected] == [firm.founder]
        retried = [e for e in entries if e["rule"] == "run_retried"]
        assert len(retried) == 1 and retried[0]["actor"] == firm.founder
        assert retried[0]["payload"] == {
            "run_id": s.east_run, "retry_run_id": started.run_id,
        }  # fmt: skip
        left = {i["subject_id"] for i in _visible(_queue(api, firm, firm.founder))}
        assert not {s.east_cap, s.west_cap, s.east_run} & left
        assert {s.held.id, s.west_run} <= left
        assert api.get(f"/v1/orgs/{firm.org}/audit?verify=true", headers={H: firm.founder}).json()[
            "verification"
        ]["ok"]


def test_a_run_failed_off_the_chain_is_retried_when_its_workflow_says_so(
    services: Ports, firm: Firm
) -> None:
    """A model that never answered fails a run before any intent, with no chain entry:
    the run's workflow state is what says it failed."""
    run_id = _run(services, firm, "orion", ("east",), "draft the agenda")
    runs = FakeRuns()
    ports = replace(services, gateway=runs, dev_principal_header=True)
    with TestClient(create_app(ports=ports)) as api:
        assert api.post(f"/v1/runs/{run_id}/retry", headers={H: firm.founder}).status_code == 409
        runs.states[f"agent-run-{run_id}"] = (
            "completed",
            RunState(run_id=run_id, status=RunStatus.FAILED, error="model unavailable"),
        )
        r = api.post(f"/v1/runs/{run_id}/retry", headers={H: firm.founder})
        assert r.status_code == 201, r.text
        assert [
            e["payload"]["run_id"] for e in _entries(api, firm) if e["rule"] == "run_retried"
        ] == [run_id]


def test_an_east_member_cannot_retry_a_west_run(services: Ports, firm: Firm) -> None:
    s = scene(firm)
    ports = replace(services, gateway=FakeRuns(), dev_principal_header=True)
    with TestClient(create_app(ports=ports)) as api:
        r = api.post(f"/v1/runs/{s.west_run}/retry", headers={H: firm.associate})
        assert r.status_code == 404


def test_metrics_count_holds_and_blocks_and_say_what_is_not_available(
    api: TestClient, firm: Firm
) -> None:
    scene(firm)
    r = api.get(f"/v1/orgs/{firm.org}/metrics", headers={H: firm.founder})
    assert r.status_code == 200, r.text
    m = r.json()
    assert m["escalated"] == {"held": 1, "decided": 1, "share": 1.0}
    assert m["blocked_by_stage"] == {"parser": 1, "resolve": 1}
    assert m["hold_resolution"]["open"] == 1 and m["hold_resolution"]["resolved"] == 0
    assert m["work_without_human"]["runs"] == 0
    assert m["repeated_process_precision"]["available"] is False
    assert "process offers" in m["repeated_process_precision"]["reason"]
    assert m["finding_resolution"]["available"] is False
    east = api.get(f"/v1/orgs/{firm.org}/metrics", headers={H: firm.associate}).json()
    assert east["blocked_by_stage"] == {"parser": 1}  # West's refusal is not theirs to count


def test_metrics_measure_findings_resolution_and_process_precision_as_the_asker_may_read(
    api: TestClient, firm: Firm
) -> None:
    finding = _finding(firm)  # East: a confirmed kickoff playbook that drifted
    offers_drift.resolve_finding(firm.svc, finding.id, firm.founder, "supplier changed")
    for _ in range(2):  # West: a payment process done twice, offered, not yet confirmed
        offers.record_episode(
            firm.svc, firm.org, firm.founder, _steps(PAYMENT), True, projects=("west",)
        )
    offers.review_episodes(firm.svc, firm.org, firm.founder)

    def metrics(who: str) -> dict[str, Any]:
        r = api.get(f"/v1/orgs/{firm.org}/metrics", headers={H: who})
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    founder = metrics(firm.founder)
    findings = founder["finding_resolution"]
    assert findings["resolved"] == 1 and findings["open"] == 0
    assert findings["median_seconds"] is not None and findings["max_seconds"] is not None
    assert founder["repeated_process_precision"] == {"confirmed": 1, "offered": 2, "share": 0.5}
    east = metrics(firm.associate)  # West's offer is not theirs to count
    assert east["repeated_process_precision"] == {"confirmed": 1, "offered": 1, "share": 1.0}
    assert east["finding_resolution"]["resolved"] == 1


def _file(firm: Firm, project: str, subject: str, cites: str, evidence: str) -> str:
    """Sentinel files a finding on ``project`` through the broker and its connector."""
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    filing = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"heartbeat-{uuid.uuid4()}",
        principal_id=firm.agents["sentinel"],
        tool=FINDINGS_FILE,
        projects=(project,),
        payload={
            "kind": "commitment_expired",
            "subject": subject,
            "severity": "warning",
            "summary": f"{subject} is past its expiry",
            "evidence": evidence,
            "cites": cites,
        },
        cost_cents=0,
        justification="heartbeat",
    )
    allowed = governance.decide(svc.store.governance, filing, utc_now())
    assert allowed.outcome is Outcome.ALLOW, allowed
    connectors = build_connectors(svc.store, utc_now)
    governance.dispatch(svc.store.governance, connectors, firm.org, allowed, utc_now(), filing)
    return filing.id


def test_sentinels_filed_findings_are_in_the_queue_with_their_evidence_west_withheld(
    api: TestClient, firm: Firm
) -> None:
    s = scene(firm)
    sentinel = firm.agents["sentinel"]
    staffed = organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "east", StaffRole.MEMBER),
    )
    east = _file(firm, "east", f"commitment_expired:{s.east_cap}", s.east_cap, s.held.id)
    # A wall: Sentinel leaves East before it may be staffed on West.
    organization.unstaff(firm.svc, firm.org, firm.founder, staffed.id)
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "west", StaffRole.MEMBER),
    )
    west = _file(firm, "west", f"commitment_expired:{s.west_cap}", s.west_cap, "")

    founder = _queue(api, firm, firm.founder)
    assert {"name": "findings", "wired": True, "note": ""} in founder["sources"]
    found = {i["subject_id"]: i for i in founder["items"] if i["kind"] == "finding"}
    assert set(found) == {east, west}
    item = found[east]
    assert item["reach"] == ["east"]
    assert item["actions"] == [
        {"kind": "resolve", "method": "POST", "path": f"/v1/findings/{east}/resolve",
         "cli": f"verletica findings resolve {east} --reason <why>", "needs": ["reason"]}
    ]  # fmt: skip
    evidence = {(e["label"], e["detail"], e["ref"]) for e in item["evidence"]}
    summary = f"commitment_expired:{s.east_cap} is past its expiry"
    assert ("summary", summary, east) in evidence
    assert ("cites", "commitment", s.east_cap) in evidence
    assert ("rests on", "record", s.held.id) in evidence
    assert "filed by Sentinel" in item["title"]

    queue = _queue(api, firm, firm.associate)
    mine = [i for i in _visible(queue) if i["kind"] == "finding"]
    assert [i["subject_id"] for i in mine] == [east]
    assert queue["withheld"] == 3  # West's run, cap and finding
    assert west not in json.dumps(queue) and s.west_cap not in json.dumps(queue)


def _filed_pair(firm: Firm) -> tuple[Scene, str, str]:
    """East's and West's Sentinel findings (Sentinel moved across the wall between)."""
    s = scene(firm)
    sentinel = firm.agents["sentinel"]
    staffed = organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "east", StaffRole.MEMBER),
    )
    east = _file(firm, "east", f"commitment_expired:{s.east_cap}", s.east_cap, s.held.id)
    organization.unstaff(firm.svc, firm.org, firm.founder, staffed.id)
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "west", StaffRole.MEMBER),
    )
    west = _file(firm, "west", f"commitment_expired:{s.west_cap}", s.west_cap, "")
    return s, east, west


def test_a_filed_finding_is_resolved_once_from_the_queue_on_the_record(
    api: TestClient, firm: Firm
) -> None:
    _, east, west = _filed_pair(firm)
    path = f"/v1/findings/{east}/resolve"
    # Ben is a member of East, not an approver: refused, and nothing changes.
    r = api.post(path, json={"reason": "renewed"}, headers={H: firm.associate})
    assert r.status_code == 403, r.text
    # West's finding is not Ben's to see: as if it did not exist.
    r = api.post(f"/v1/findings/{west}/resolve", json={"reason": "x"}, headers={H: firm.associate})
    assert r.status_code == 404, r.text
    assert api.post(path, json={"reason": "  "}, headers={H: firm.founder}).status_code == 422
    r = api.post(path, json={"reason": "the cap was renewed"}, headers={H: firm.founder})
    assert r.status_code == 200, r.text
    assert (r.json()["resolution"], r.json()["resolved_by"]) == (
        "the cap was renewed",
        firm.founder,
    )
    again = api.post(path, json={"reason": "something else"}, headers={H: firm.founder})
    assert again.status_code == 409, again.text
    (kept,) = [f for f in firm.svc.heartbeats.findings(firm.org) if f.id == east]  # type: ignore[union-attr]
    assert kept.resolution == "the cap was renewed"
    left = {
        i["subject_id"]
        for i in _queue(api, firm, firm.founder)["items"]
        if i.get("kind") == "finding"
    }
    assert left == {west}
    entries = [e for e in _entries(api, firm) if e["rule"] == "finding_resolved"]
    assert [(e["payload"]["finding"], e["actor"]) for e in entries] == [(east, firm.founder)]
    metrics = api.get(f"/v1/orgs/{firm.org}/metrics", headers={H: firm.founder}).json()
    assert (metrics["finding_resolution"]["resolved"], metrics["finding_resolution"]["open"]) == (
        1,
        1,
    )


def test_two_racing_resolutions_of_a_filed_finding_one_wins(firm: Firm) -> None:
    _, east, _ = _filed_pair(firm)

    def resolving(reason: str) -> Callable[[], FiledFinding]:
        return lambda: heartbeat.resolve_finding(firm.svc, east, firm.founder, reason)

    results = race([resolving("first"), resolving("second"), resolving("third")])
    won = [r for r in results if isinstance(r, FiledFinding)]
    assert len(won) == 1 and sum(isinstance(r, Conflict) for r in results) == 2, results
    (kept,) = [f for f in firm.svc.heartbeats.findings(firm.org) if f.id == east]  # type: ignore[union-attr]
    assert kept.resolution == won[0].resolution
    store = firm.svc.store  # type: ignore[attr-defined]
    assert store.audit.verify(firm.org).ok
    resolved = [e for e in store.audit.entries(firm.org) if e.rule == "finding_resolved"]
    assert len(resolved) == 1


def test_the_command_line_prints_the_queue_and_the_metrics(
    services: Ports,
    firm: Firm,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    s = scene(firm)
    cli_signed_in(monkeypatch, tmp_path, services, firm.associate)
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_ORG", firm.org)
    monkeypatch.setenv("COLUMNS", "250")
    runner = CliRunner()
    out = runner.invoke(cli_app, ["needs-you"])
    assert out.exit_code == 0, out.output
    for shown in ("held_intent", "failed_run", "commitment", "withheld", s.held.id[:8]):
        assert shown in out.output
    assert "Birch" not in out.output and s.west_run[:8] not in out.output
    out = runner.invoke(cli_app, ["metrics"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["escalated"]["held"] == 1


def test_failed_runs_are_listed_by_class_as_the_reader_may_see_them(
    api: TestClient, firm: Firm
) -> None:
    """The founder sees both refused runs and the run the wall stopped; ``?failure=``
    keeps one class; Ben (East) sees East's refused run only: the stopped run reached
    West through the record it cited, so it is not his to read."""
    s = scene(firm)
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    walled_run = _run(svc, firm, "orion", ("east",), "brief Atlas on Birch")
    crossing = payment_intent(firm.org, firm.agents["orion"], 0, run_id=walled_run)
    crossing = crossing.model_copy(
        update={"tool": "email.send", "references": ("birch-cim",), "cost_cents": 0,
                "payload": {"to": "team@atlas.example", "subject": "Birch", "body": "x"}}
    )  # fmt: skip
    decided = governance.decide(svc.store.governance, crossing, utc_now())
    assert decided.rule == "barrier_crossed", decided

    def listed(who: str, failure: str = "") -> list[tuple[str, str, bool]]:
        query = f"?failure={failure}" if failure else ""
        r = api.get(f"/v1/orgs/{firm.org}/runs/failed{query}", headers={H: who})
        assert r.status_code == 200, r.text
        return sorted((f["run_id"], f["failure"], f["stopped_by_broker"]) for f in r.json())

    assert listed(firm.founder) == sorted(
        [
            (s.east_run, "validation", False),
            (s.west_run, "authority", False),
            (walled_run, "barrier", True),
        ]
    )
    assert listed(firm.founder, "barrier") == [(walled_run, "barrier", True)]
    assert listed(firm.associate) == [(s.east_run, "validation", False)]
    bad = api.get(f"/v1/orgs/{firm.org}/runs/failed?failure=bogus", headers={H: firm.founder})
    assert bad.status_code == 422


def test_the_kept_fold_under_concurrent_readers_and_writers_tells_the_whole_story(
    firm: Firm,
) -> None:
    """Readers of one organization's queue race writers appending to its chain; every
    answer is a consistent queue, and the last equals a queue folded from scratch."""
    svc = firm.svc

    def writer(i: int) -> Callable[[], object]:
        return lambda: commitments.add_commitment(
            svc,
            firm.org,
            firm.founder,
            commitments.AddCommitment(
                f"cap {i}",
                SpendCap(limit_cents=1_000 + i, currency="USD"),
                "letter",
                projects=("east",),
            ),
        )

    def reader() -> object:
        return needs_you.needs_you(svc, firm.org, firm.founder)

    for _ in range(3):
        results = race([writer(i) for i in range(4)] + [reader] * 4)
        assert not [r for r in results if isinstance(r, Exception)], results
    kept = needs_you.needs_you(svc, firm.org, firm.founder)
    fresh = needs_you.needs_you(replace(svc, stories=ChainStories()), firm.org, firm.founder)
    assert kept.model_dump(exclude={"generated_at"}) == fresh.model_dump(exclude={"generated_at"})
    assert sum(1 for i in kept.items if i.kind == "commitment") == 12
