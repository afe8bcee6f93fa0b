"""Standing holds over the store (SQLite and PostgreSQL): Sentinel places one through the
broker and its connector; payments on its project wait for a human; it shows in the
needs-you queue (withheld across the wall); a human releases it once, with a reason, on
the record (a second release, or one racing it, is a conflict); payments then pass."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

from fastapi.testclient import TestClient

from domain.errors import Conflict
from domain.governance.intents import Intent, Outcome
from domain.heartbeat.checks import HOLDS_PLACE
from domain.organization.contracts import StandingHold
from domain.organization.kinds import StaffRole
from tests.support import Firm, Wired, payment_intent, race, utc_now
from usecases import governance, heartbeat, organization
from worker.bootstrap import build_connectors

H = "X-Verletica-Principal"


def _place(firm: Firm, project: str, subject: str) -> Intent:
    """Sentinel places a standing hold on ``project`` through the broker."""
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    placing = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"heartbeat-{uuid.uuid4()}",
        principal_id=firm.agents["sentinel"],
        tool=HOLDS_PLACE,
        projects=(project,),
        payload={"subject": subject, "cites": "", "reason": f"{subject}: the cap expired"},
        cost_cents=0,
        justification="heartbeat",
    )
    allowed = governance.decide(svc.store.governance, placing, utc_now())
    assert allowed.outcome is Outcome.ALLOW, allowed
    connectors = build_connectors(svc.store, utc_now)
    governance.dispatch(svc.store.governance, connectors, firm.org, allowed, utc_now(), placing)
    return placing


def _pay(firm: Firm, amount: int = 5_000) -> tuple[Outcome, str]:
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    d = governance.decide(
        svc.store.governance, payment_intent(firm.org, firm.agents["ledger"], amount), utc_now()
    )
    return d.outcome, d.rule


def _both_sides(firm: Firm) -> tuple[str, str]:
    sentinel = firm.agents["sentinel"]
    staffed = organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "east", StaffRole.MEMBER),
    )
    east = _place(firm, "east", "commitment_expired:atlas").id
    organization.unstaff(firm.svc, firm.org, firm.founder, staffed.id)
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(sentinel, "west", StaffRole.MEMBER),
    )
    west = _place(firm, "west", "commitment_expired:birch").id
    return east, west


def test_a_standing_hold_holds_payments_until_a_human_releases_it(
    api: TestClient, firm: Firm
) -> None:
    assert _pay(firm) == (Outcome.ALLOW, "all_stages_passed")
    east, west = _both_sides(firm)
    assert _pay(firm) == (Outcome.HOLD, "standing_hold")

    queue = api.get(f"/v1/orgs/{firm.org}/needs-you", headers={H: firm.founder}).json()
    holds = {i["subject_id"]: i for i in queue["items"] if i["kind"] == "standing_hold"}
    assert set(holds) == {east, west}
    assert [a["kind"] for a in holds[east]["actions"]] == ["release"]
    assert holds[east]["actions"][0]["path"] == f"/v1/holds/{east}/release"
    ben = api.get(f"/v1/orgs/{firm.org}/needs-you", headers={H: firm.associate}).json()
    assert [i["subject_id"] for i in ben["items"] if i.get("kind") == "standing_hold"] == [east]
    assert west not in json.dumps(ben) and "birch" not in json.dumps(ben)
    listed = api.get(f"/v1/orgs/{firm.org}/holds", headers={H: firm.associate}).json()
    assert [h["id"] for h in listed] == [east]

    path = f"/v1/holds/{east}/release"
    # A member of East, not an approver: refused. West's hold is not Ben's to see.
    assert api.post(path, json={"reason": "x"}, headers={H: firm.associate}).status_code == 403
    r = api.post(f"/v1/holds/{west}/release", json={"reason": "x"}, headers={H: firm.associate})
    assert r.status_code == 404
    assert api.post(path, json={"reason": ""}, headers={H: firm.founder}).status_code == 422
    r = api.post(path, json={"reason": "the cap is renewed"}, headers={H: firm.founder})
    assert r.status_code == 200, r.text
    assert (r.json()["release_reason"], r.json()["released_by"]) == (
        "the cap is renewed",
        firm.founder,
    )
    again = api.post(path, json={"reason": "again"}, headers={H: firm.founder})
    assert again.status_code == 409
    assert _pay(firm) == (Outcome.ALLOW, "all_stages_passed")

    entries = api.get(f"/v1/orgs/{firm.org}/audit?verify=true", headers={H: firm.founder}).json()
    assert entries["verification"]["ok"]
    released = [e for e in entries["entries"] if e["rule"] == "standing_hold_released"]
    assert [(e["payload"]["hold"], e["actor"]) for e in released] == [(east, firm.founder)]
    placed = [e for e in entries["entries"] if e["rule"] == "holds.place"]
    assert len(placed) == 2  # each placement's dispatch is on the chain


def test_an_approver_of_the_project_may_release_and_two_racing_releases_one_wins(
    firm: Firm,
) -> None:
    east, _ = _both_sides(firm)
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.associate, "east", StaffRole.APPROVER),
    )

    def releasing(reason: str) -> Callable[[], StandingHold]:
        return lambda: heartbeat.release_hold(firm.svc, east, firm.associate, reason)

    results = race([releasing("first"), releasing("second"), releasing("third")])
    won = [r for r in results if isinstance(r, StandingHold)]
    assert len(won) == 1 and sum(isinstance(r, Conflict) for r in results) == 2, results
    (kept,) = [
        h for h in heartbeat.standing_holds(firm.svc, firm.org, firm.founder) if h.id == east
    ]
    assert kept.release_reason == won[0].release_reason and kept.released_by == firm.associate
    store = firm.svc.store  # type: ignore[attr-defined]
    assert store.audit.verify(firm.org).ok
    assert [e.rule for e in store.audit.entries(firm.org)].count("standing_hold_released") == 1


def test_a_second_placement_on_the_same_subject_is_not_repeated_silently(firm: Firm) -> None:
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.agents["sentinel"], "east", StaffRole.MEMBER),
    )
    _place(firm, "east", "commitment_expired:atlas")
    svc = firm.svc
    assert isinstance(svc, Wired) and svc.store is not None
    again = Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id="heartbeat-x",
        principal_id=firm.agents["sentinel"],
        tool=HOLDS_PLACE,
        projects=("east",),
        payload={"subject": "commitment_expired:atlas", "cites": "", "reason": "again"},
        cost_cents=0,
        justification="heartbeat",
    )
    decision = governance.decide(svc.store.governance, again, utc_now())
    assert (decision.outcome, decision.rule) == (Outcome.HOLD, "already_done")
