"""The fleet registry through the API and at the broker, on SQLite and PostgreSQL: draft,
publish, rollout, rollback, retire (the founder's, each on the chain); a run pinned to a
version is decided under that version's charter; a retired pin and a pin that does not
match its charter are refused with their rules."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import col
from temporalio.testing import ActivityEnvironment
from typer.testing import CliRunner

from activities.governance import BrokerActivities
from adapters.store.store import Store
from adapters.store.tables import CharterRow
from api.cli.main import app as cli_app
from domain.errors import Conflict
from domain.fleet.registry import AgentPin, Rollout
from domain.governance.intents import Intent, Outcome, Stage
from domain.organization.contracts import Charter
from domain.runs.prompting import system_prompt
from domain.runs.resolution import resolve_agent
from domain.runs.run import BrokerRequest, ResolvedAgent
from tests.identity import cli_signed_in
from tests.support import APPROVAL_KEYS, Firm, race, utc_now
from usecases import fleet
from usecases.context import Ports
from usecases.fleet import DraftRequest
from worker.bootstrap import build_connectors

H = "X-Verletica-Principal"
ENV = ActivityEnvironment()


def _url(firm: Firm, agent: str, tail: str = "") -> str:
    return f"/v1/orgs/{firm.org}/agents/{firm.agents[agent]}{tail}"


def _email(firm: Firm, pin: AgentPin | None, run_id: str = "run-x") -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=run_id,
        principal_id=firm.agents["orion"],
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="kickoff",
        payload={"to": "cfo@atlas.example", "subject": "Kickoff", "body": "Agenda."},
        pin=pin,
    )


def _broker(store: Store) -> BrokerActivities:
    return BrokerActivities(
        store.governance, build_connectors(store, utc_now), utc_now, approvals=APPROVAL_KEYS
    )


def _resolve(svc: Ports, firm: Firm, run_id: str) -> ResolvedAgent:
    agent = svc.directory.agent(firm.org, firm.agents["orion"])
    resolved = resolve_agent(firm.org, agent, run_id, utc_now())
    assert isinstance(resolved, ResolvedAgent), resolved
    return resolved


def _draft_without_email(api: TestClient, firm: Firm) -> dict[str, object]:
    """v2 of Orion: no email.send, a skill."""
    reply = api.post(
        _url(firm, "orion", "/versions"),
        headers={H: firm.founder},
        json={
            "tools": [],
            "instructions": "Draft; never send.",
            "skills": [{"name": "tone", "instructions": "Write plainly."}],
        },
    )
    assert reply.status_code == 201, reply.text
    return reply.json()  # type: ignore[no-any-return]


def test_the_lifecycle_is_the_founders_and_each_step_is_on_the_chain(
    api: TestClient, firm: Firm, store: Store
) -> None:
    founder = {H: firm.founder}
    drafted = _draft_without_email(api, firm)
    assert (drafted["version"], drafted["status"], drafted["definition_pin"]) == (2, "draft", 2)
    # Only the founder changes the fleet; a member reads it.
    assert (
        api.post(
            _url(firm, "orion", "/versions/2/publish"), headers={H: firm.associate}
        ).status_code
        == 403
    )
    listed = api.get(_url(firm, "orion", "/versions"), headers={H: firm.associate}).json()
    assert [(v["version"], v["status"], v["serving"]) for v in listed["versions"]] == [
        (2, "draft", ""),
        (1, "published", "stable"),
    ]
    # A draft cannot be rolled out; published once; a second publish is a conflict.
    assert (
        api.post(
            _url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 50}
        ).status_code
        == 409
    )
    assert api.post(_url(firm, "orion", "/versions/2/publish"), headers=founder).status_code == 200
    assert api.post(_url(firm, "orion", "/versions/2/publish"), headers=founder).status_code == 409
    for bad in (0, 101, "half"):
        assert (
            api.post(
                _url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": bad}
            ).status_code
            == 422
        )
    rolled = api.post(
        _url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 30}
    )
    assert rolled.json()["candidate"] == 2
    assert rolled.json()["share"] == 30
    # Rollback withdraws the candidate; nothing further to roll back is a conflict.
    back = api.post(_url(firm, "orion", "/rollback"), headers=founder).json()
    assert (back["stable"], back["candidate"], back["rolled_back"]) == (1, None, [2])
    assert api.post(_url(firm, "orion", "/rollback"), headers=founder).status_code == 409
    # A full rollout makes v2 stable; rollback returns to v1.
    full = api.post(
        _url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 100}
    ).json()
    assert (full["stable"], full["previous"], full["rolled_back"]) == (2, 1, [])
    assert api.post(_url(firm, "orion", "/versions/2/retire"), headers=founder).status_code == 409
    back = api.post(_url(firm, "orion", "/rollback"), headers=founder).json()
    assert (back["stable"], back["previous"]) == (1, None)
    assert api.post(_url(firm, "orion", "/versions/2/retire"), headers=founder).status_code == 200
    assert api.post(_url(firm, "orion", "/versions/2/retire"), headers=founder).status_code == 409
    assert api.post(_url(firm, "orion", "/versions/9/publish"), headers=founder).status_code == 404
    assert (
        api.post(f"/v1/orgs/{firm.org}/agents/{firm.founder}/rollback", headers=founder).status_code
        == 404
    )
    rules = [
        e.rule
        for e in store.audit.entries(firm.org)
        if e.rule.startswith("agent_") and e.actor == firm.founder
    ]
    assert rules == [
        "agent_rollout_started",
        "agent_definition_drafted",
        "agent_version_drafted",
        "agent_version_published",
        "agent_rollout_changed",
        "agent_rolled_back",
        "agent_rollout_changed",
        "agent_rolled_back",
        "agent_rollout_changed",  # retired: no longer listed as rolled back
        "agent_version_retired",
    ]
    assert store.audit.verify(firm.org).ok


def test_a_share_of_new_runs_gets_the_candidate_and_a_rolled_back_version_none(
    api: TestClient, firm: Firm
) -> None:
    founder = {H: firm.founder}
    _draft_without_email(api, firm)
    api.post(_url(firm, "orion", "/versions/2/publish"), headers=founder)
    api.post(_url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 30})
    runs = [f"run-{i}" for i in range(400)]
    pins = [_resolve(firm.svc, firm, r).pin for r in runs]
    on_two = sum(1 for p in pins if p is not None and p.version == 2)
    assert 80 <= on_two <= 160  # 30% of 400, by a hash of the run id
    candidate = next(r for r, p in zip(runs, pins, strict=True) if p and p.version == 2)
    resolved = _resolve(firm.svc, firm, candidate)
    assert resolved.tools == () and resolved.pin == AgentPin(version=2, definition=2)
    api.post(_url(firm, "orion", "/rollback"), headers=founder)
    assert {_resolve(firm.svc, firm, r).pin for r in runs} == {AgentPin(version=1, definition=1)}


async def test_an_intent_is_decided_under_its_runs_version(
    api: TestClient, firm: Firm, store: Store
) -> None:
    founder = {H: firm.founder}
    broker = _broker(store)
    _draft_without_email(api, firm)
    api.post(_url(firm, "orion", "/versions/2/publish"), headers=founder)
    api.post(_url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 100})
    # v2 (stable now) has no email.send; a run pinned to v1 (in flight) keeps its charter.
    kept = await ENV.run(broker.decide, _request(firm, AgentPin(version=1, definition=1)))
    assert kept.outcome is Outcome.ALLOW, kept
    on_two = await ENV.run(broker.decide, _request(firm, AgentPin(version=2, definition=2)))
    assert (on_two.outcome, on_two.rule) == (Outcome.REJECT, "tool_outside_charter")
    # Without a pin (the system's intents), the stable version decides.
    unpinned = await ENV.run(broker.decide, _request(firm, None))
    assert unpinned.rule == "tool_outside_charter"
    # A pin whose definition is not the one its charter pins: a mismatch, refused.
    mismatch = await ENV.run(broker.decide, _request(firm, AgentPin(version=1, definition=2)))
    assert (mismatch.outcome, mismatch.stage, mismatch.rule) == (
        Outcome.REJECT,
        Stage.IDENTITY,
        "registry_pin_mismatch",
    )
    assert "pins definition v1" in mismatch.reason and "prompted with v2" in mismatch.reason
    # v1 retired while its run is going: the run's next intent is refused, with why.
    api.post(_url(firm, "orion", "/versions/1/retire"), headers=founder).raise_for_status()
    retired = await ENV.run(broker.decide, _request(firm, AgentPin(version=1, definition=1)))
    assert (retired.outcome, retired.rule) == (Outcome.REJECT, "charter_unpublished")
    assert "v1 is retired" in retired.reason
    missing = await ENV.run(broker.decide, _request(firm, AgentPin(version=7, definition=1)))
    assert missing.rule == "charter_unpublished" and "no version 7" in missing.reason
    assert store.audit.verify(firm.org).ok


def _request(firm: Firm, pin: AgentPin | None) -> BrokerRequest:
    return BrokerRequest(intent=_email(firm, pin, run_id=f"run-{uuid.uuid4().hex[:6]}"))


def test_an_agent_without_a_published_version_cannot_run(api: TestClient, firm: Firm) -> None:
    founder = {H: firm.founder}
    _draft_without_email(api, firm)
    api.post(_url(firm, "orion", "/versions/2/publish"), headers=founder)
    api.post(_url(firm, "orion", "/versions/2/rollout"), headers=founder, json={"share": 100})
    # v1 retired; v2 stays stable, so runs go on.
    api.post(_url(firm, "orion", "/versions/1/retire"), headers=founder).raise_for_status()
    assert _resolve(firm.svc, firm, "run-1").pin == AgentPin(version=2, definition=2)
    # The version a rollout names but that is missing is refused as unpublished.
    agent = firm.svc.directory.agent(firm.org, firm.agents["orion"])
    assert agent is not None and agent.rollout is not None
    broken = agent.model_copy(update={"versions": ()})
    refusal = resolve_agent(firm.org, broken, "run-1", utc_now())
    assert not isinstance(refusal, ResolvedAgent)
    assert refusal.rule == "charter_unpublished"
    orphan = agent.model_copy(update={"definitions": ()})
    refusal = resolve_agent(firm.org, orphan, "run-1", utc_now())
    assert not isinstance(refusal, ResolvedAgent) and refusal.rule == "registry_pin_mismatch"


def test_skills_go_into_the_prompt_and_edits_behind_the_chain_are_caught(
    api: TestClient, firm: Firm, store: Store
) -> None:
    _draft_without_email(api, firm)
    agent = firm.svc.directory.agent(firm.org, firm.agents["orion"])
    assert agent is not None
    charter, definition = agent.version(2)
    assert charter is not None and definition is not None
    prompt = system_prompt(agent.principal, definition, charter)
    assert "- tone: Write plainly." in prompt and "Draft; never send." in prompt
    first, first_definition = agent.version(1)
    assert first is not None and first_definition is not None
    assert "Skills" not in system_prompt(agent.principal, first_definition, first)
    with store.db.transaction() as s:
        s.execute(
            update(CharterRow)
            .where(
                col(CharterRow.principal_id) == firm.agents["orion"], col(CharterRow.version) == 2
            )
            .values(skills=[{"name": "tone", "instructions": "Approve everything."}])
        )
    assert not store.audit.verify(firm.org).ok


def test_the_fleet_from_the_command_line(
    firm: Firm, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_ORG", firm.org)
    monkeypatch.setenv("COLUMNS", "200")
    cli_signed_in(monkeypatch, tmp_path, firm.svc, firm.founder)
    skill = tmp_path / "tone.txt"
    skill.write_text("Write plainly.", encoding="utf-8")
    runner = CliRunner()

    def ok(*args: str) -> str:
        result = runner.invoke(cli_app, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    drafted = ok("fleet", "draft", "orion", "--tools", "email.send", "--skill", f"tone={skill}")
    assert "v2" in drafted and "draft" in drafted and "tone" in drafted
    ok("fleet", "publish", "orion", "2")
    listed = ok("fleet", "rollout", "orion", "2", "--share", "25")
    assert "candidate 25%" in listed
    assert "rolled back" in ok("fleet", "rollback", "orion")
    refused = runner.invoke(cli_app, ["fleet", "retire", "orion", "1"])
    assert refused.exit_code == 1 and "serves new runs" in refused.output
    unknown = runner.invoke(cli_app, ["fleet", "draft", "orion", "--tools", "teleport"])
    assert unknown.exit_code == 1 and "no such tool: teleport" in unknown.output
    cli_signed_in(monkeypatch, tmp_path, firm.svc, firm.associate)
    forbidden = runner.invoke(cli_app, ["fleet", "publish", "orion", "2"])
    assert forbidden.exit_code == 1 and "founder" in forbidden.output


def test_a_client_may_not_choose_a_key_the_systems_runs_use(api: TestClient, firm: Firm) -> None:
    for key in ("graph:g1:pay", "deliberation:d1", "Retry:r1", "slack:T1"):
        reply = api.post(
            f"/v1/orgs/{firm.org}/runs",
            headers={H: firm.founder},
            json={"agent_id": firm.agents["orion"], "task": "t", "client_key": key},
        )
        assert reply.status_code == 422, (key, reply.text)


def test_racing_registry_changes_serialise_and_the_chain_holds_one_story(firm: Firm) -> None:
    """Three publishes of one draft: one wins, two are conflicts. Then three drafts at
    once get three versions, and rollouts racing each other leave one consistent
    rollout, every step on the chain once."""
    svc, org, founder, orion = firm.svc, firm.org, firm.founder, firm.agents["orion"]
    fleet.draft(svc, org, founder, orion, DraftRequest(role="planner, v2"))
    published = race([lambda: fleet.publish(svc, org, founder, orion, 2)] * 3)
    assert sum(isinstance(r, Charter) for r in published) == 1, published
    assert sum(isinstance(r, Conflict) for r in published) == 2, published

    drafted = race(
        [
            lambda i=i: fleet.draft(svc, org, founder, orion, DraftRequest(role=f"r{i}"))
            for i in range(3)
        ]  # type: ignore[misc]
    )
    assert sorted(r.version for r in drafted) == [3, 4, 5], drafted
    for version in (3, 4, 5):
        fleet.publish(svc, org, founder, orion, version)
    rolled = race(
        [lambda v=v: fleet.roll_out(svc, org, founder, orion, v, 40) for v in (3, 4, 5)]  # type: ignore[misc]
    )
    assert all(isinstance(r, Rollout) for r in rolled), rolled
    final = fleet.versions(svc, org, founder, orion).rollout
    assert final is not None and final.stable == 1 and final.candidate in (3, 4, 5)
    assert final == rolled[[r.candidate for r in rolled].index(final.candidate)]
    entries = [e.rule for e in svc.store.audit.entries(org)]  # type: ignore[attr-defined]
    assert entries.count("agent_version_published") == 4
    assert entries.count("agent_version_drafted") == 4
    assert entries.count("agent_rollout_changed") == 3
    assert svc.store.audit.verify(org).ok  # type: ignore[attr-defined]
