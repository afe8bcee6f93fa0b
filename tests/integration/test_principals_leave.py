"""Principals leave (issue 26.5): the founder suspends, brings back and offboards people
and agents; their authority, approvals in flight, staffing, sign-ins and chat accounts
end with them, on the record (SQLite and PostgreSQL)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text as sql

from adapters.store.store import Store
from api.http.app import create_app
from domain.errors import Conflict, Forbidden
from domain.governance.intents import Outcome
from domain.organization.contracts import Identity
from domain.organization.kinds import IdentityKind, PrincipalStatus, StaffRole
from tests.identity import link_subject, signed_in
from tests.support import (
    APPROVAL_KEYS,
    TEST_AUDIENCE,
    TEST_ISSUER,
    Firm,
    payment_intent,
    race,
    signed,
    utc_now,
)
from usecases import governance, governance_review, organization
from usecases.context import Ports

BEN_SUBJECT = "auth0|ben"


@pytest.fixture
def door(services: Ports) -> Iterator[TestClient]:
    """The API as deployed: bearer tokens only."""
    with TestClient(create_app(ports=services), raise_server_exceptions=False) as client:
        yield client


def _as(subject: str, **claims: Any) -> dict[str, str]:
    token = TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims=claims)
    return {"Authorization": f"Bearer {token}", "X-Verletica-Nonce": f"n-{time.time_ns()}"}


def _move(door: TestClient, firm: Firm, who: str, move: str, reason: str = "on leave") -> Any:
    return door.post(
        f"/v1/orgs/{firm.org}/principals/{who}/{move}",
        json={"reason": reason},
        headers=signed_in(firm.svc, firm.founder),
    )


def _rules(store: Store, firm: Firm) -> list[tuple[str, str]]:
    return [
        (e.rule, str(e.payload.get("reason", "")))
        for e in store.audit.entries(firm.org)
        if e.stage == "configuration"
        and e.rule.startswith(("principal_", "identity_unlinked", "staffing_ended"))
        and e.rule != "principal_added"
    ]


def test_a_suspended_person_proves_nothing_and_comes_back_only_by_signing_in_again(
    door: TestClient, firm: Firm, store: Store
) -> None:
    link_subject(firm.svc, firm.associate, BEN_SUBJECT)
    before = _as(BEN_SUBJECT, iat=int(time.time()) - 5)
    assert door.get("/v1/whoami", headers=before).status_code == 200

    moved = _move(door, firm, firm.associate, "suspend", "on leave until March")
    assert moved.status_code == 200, moved.text
    assert moved.json()["principal"]["status"] == "suspended"
    assert moved.json()["principal"]["status_reason"] == "on leave until March"
    for headers in (before, _as(BEN_SUBJECT)):
        refused = door.get("/v1/whoami", headers=headers)
        assert (refused.status_code, refused.json()["reason"]) == (401, "not_an_active_human")
    acting = door.post(
        f"/v1/orgs/{firm.org}/projects", json={"slug": "x", "name": "X"}, headers=_as(BEN_SUBJECT)
    )
    assert acting.status_code == 401

    time.sleep(1.1)  # a token's iat is in whole seconds: the return is a second later
    assert _move(door, firm, firm.associate, "reactivate", "back from leave").status_code == 200
    stale = door.get("/v1/whoami", headers=before)
    assert (stale.status_code, stale.json()["reason"]) == (401, "signed_in_before_return")
    fresh = door.get("/v1/whoami", headers=_as(BEN_SUBJECT))
    assert fresh.status_code == 200 and fresh.json()["status"] == "active"

    assert _rules(store, firm) == [
        ("principal_suspended", "on leave until March"),
        ("principal_reactivated", "back from leave"),
    ]
    assert store.audit.verify(firm.org).ok


def test_offboarding_ends_staffing_sign_ins_and_chat_accounts_for_good(
    door: TestClient, firm: Firm, store: Store
) -> None:
    ben = firm.associate
    link_subject(firm.svc, ben, BEN_SUBJECT)
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(ben, "east", StaffRole.APPROVER),
    )
    with firm.svc.configuration.change(firm.org, firm.founder, firm.svc.clock) as change:
        change.link_identity(
            Identity(
                org_id=firm.org, kind=IdentityKind.SLACK, external_id="T1:U1", principal_id=ben
            )
        )
    token = _as(BEN_SUBJECT)

    left = _move(door, firm, ben, "offboard", "left the firm")
    assert left.status_code == 200, left.text
    assert left.json()["staffing_ended"] == 2  # member and approver on east
    assert sorted(left.json()["unlinked"]) == ["oidc", "slack"]
    now = utc_now()
    assert not [s for s in store.directory.staffing(firm.org, ben) if s.active_at(now)]
    assert store.directory.identity(IdentityKind.SLACK, "T1:U1") is None
    gone = door.get("/v1/whoami", headers=token)
    assert (gone.status_code, gone.json()["reason"]) == (401, "unknown_subject")

    back = _move(door, firm, ben, "reactivate", "changed his mind")
    assert back.status_code == 409 and "offboarded for good" in back.text
    # the sign-in is free again: a new hire may use it
    newcomer = organization.add_human(firm.svc, firm.org, firm.founder, "cy@hv.example", "Cy")
    link_subject(firm.svc, newcomer.id, BEN_SUBJECT)
    assert door.get("/v1/whoami", headers=_as(BEN_SUBJECT)).json()["id"] == newcomer.id

    rules = [rule for rule, _ in _rules(store, firm)]
    assert rules.count("staffing_ended") == 2 and rules.count("identity_unlinked") == 2
    assert rules[-1] == "principal_offboarded"
    assert store.audit.verify(firm.org).ok


def test_only_the_founder_moves_others_never_themself_and_always_says_why(
    door: TestClient, firm: Firm
) -> None:
    ben_tries = door.post(
        f"/v1/orgs/{firm.org}/principals/{firm.agents['orion']}/suspend",
        json={"reason": "mutiny"},
        headers=signed_in(firm.svc, firm.associate),
    )
    assert ben_tries.status_code == 403
    assert _move(door, firm, firm.founder, "suspend").status_code == 409
    assert _move(door, firm, firm.associate, "suspend", "").status_code == 422
    with pytest.raises(ValueError, match="say why"):
        organization.suspend(firm.svc, firm.org, firm.founder, firm.associate, "   ")
    with pytest.raises(Conflict, match="already active"):
        organization.reactivate(firm.svc, firm.org, firm.founder, firm.associate, "why not")
    with pytest.raises(Forbidden):
        organization.offboard(firm.svc, firm.org, firm.associate, firm.agents["orion"], "x")


def _ledger_payment(firm: Firm, store: Store, amount: int = 200_000) -> Any:
    intent = payment_intent(firm.org, firm.agents["ledger"], amount, run_id="run-1")
    held = governance.decide(store.governance, intent, utc_now())
    assert held.outcome is Outcome.HOLD
    return intent


def _review(store: Store, firm: Firm, request: Any, attempt: int = 1) -> Any:
    return governance_review.review_hold(
        store.governance, firm.org, "run-1", request, attempt, utc_now(), keys=APPROVAL_KEYS
    ).review


def test_an_approval_sent_before_its_approver_was_suspended_is_refused(
    store: Store, firm: Firm
) -> None:
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.associate, "east", StaffRole.APPROVER),
    )
    intent = _ledger_payment(firm, store)
    in_flight = signed(intent, firm.associate, now=utc_now(), store=store.governance)
    kept = signed(intent, firm.associate, now=utc_now(), store=store.governance)
    organization.suspend(firm.svc, firm.org, firm.founder, firm.associate, "under review")
    refused = _review(store, firm, in_flight)
    assert (refused.accepted, refused.rule) == (False, "approver_inactive")
    organization.reactivate(firm.svc, firm.org, firm.founder, firm.associate, "cleared")
    returned = _review(store, firm, kept, 2)  # what he decided before does not come back
    assert (returned.accepted, returned.rule) == (False, "approver_returned")
    again = signed(intent, firm.associate, now=utc_now(), store=store.governance)
    assert _review(store, firm, again, 3).accepted


def test_a_suspended_agent_acts_no_more_and_its_held_intent_is_not_released(
    store: Store, firm: Firm
) -> None:
    intent = _ledger_payment(firm, store)
    organization.suspend(firm.svc, firm.org, firm.founder, firm.agents["ledger"], "audit")
    approval = signed(intent, firm.founder, now=utc_now(), store=store.governance)
    refused = _review(store, firm, approval)
    assert not refused.accepted and refused.rule == "principal_inactive"
    after = payment_intent(firm.org, firm.agents["ledger"], 5_000, run_id="run-2")
    decision = governance.decide(store.governance, after, utc_now())
    assert (decision.outcome, decision.rule) == (Outcome.REJECT, "principal_inactive")
    organization.reactivate(firm.svc, firm.org, firm.founder, firm.agents["ledger"], "cleared")
    again = payment_intent(firm.org, firm.agents["ledger"], 5_000, run_id="run-3")
    assert governance.decide(store.governance, again, utc_now()).outcome is Outcome.ALLOW


def test_racing_moves_leave_one_story_on_the_record(store: Store, firm: Firm) -> None:
    """Two suspensions race: one wins, the other is told it is already done; a
    suspension racing an offboarding ends offboarded either way (or refused after it)."""
    agent = firm.agents["scout"]
    twice = race(
        [
            lambda: organization.suspend(firm.svc, firm.org, firm.founder, agent, "a"),
            lambda: organization.suspend(firm.svc, firm.org, firm.founder, agent, "b"),
        ]
    )
    assert sorted(type(r).__name__ for r in twice) == ["Conflict", "StandingChanged"]
    both = race(
        [
            lambda: organization.reactivate(firm.svc, firm.org, firm.founder, agent, "back"),
            lambda: organization.offboard(firm.svc, firm.org, firm.founder, agent, "gone"),
        ]
    )
    # either order ends offboarded: back then gone, or gone then "offboarded for good"
    final = store.directory.principal(firm.org, agent)
    assert final.status is PrincipalStatus.OFFBOARDED
    assert type(both[1]).__name__ == "StandingChanged"
    assert type(both[0]).__name__ in ("StandingChanged", "Conflict")
    assert store.audit.verify(firm.org).ok


def test_a_status_or_a_sign_in_changed_off_the_record_is_caught(store: Store, firm: Firm) -> None:
    link_subject(firm.svc, firm.associate, BEN_SUBJECT)
    organization.offboard(firm.svc, firm.org, firm.founder, firm.associate, "left")
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(
            sql(
                "insert into identities (kind, external_id, org_id, principal_id, created_at) "
                "values ('oidc', :sub, :org, :p, :at)"
            ),
            {"sub": BEN_SUBJECT, "org": firm.org, "p": firm.associate, "at": utc_now()},
        )
    found = store.audit.verify(firm.org)
    assert not found.ok and "removed it" in str(found)  # Ben's sign-in came back unrecorded
    with store.db.transaction() as s:
        s.execute(sql("delete from identities where external_id = :sub"), {"sub": BEN_SUBJECT})
        s.execute(
            sql("update principals set status = 'active' where id = :p"), {"p": firm.associate}
        )
    assert not store.audit.verify(firm.org).ok  # and so is Ben made active again


def test_the_founder_suspends_and_brings_back_from_the_workspace(web: tuple) -> None:  # type: ignore[type-arg]
    """In the console: Ada suspends Ben with a reason; his open session ends at once;
    brought back, his session from before does not return: he signs in again."""
    from tests.integration.conftest import CONSOLE_BASE
    from tests.integration.test_console_pages import _csrf, _text
    from tests.integration.test_console_security import _banner, _signed_in

    ada, firm, _ = web
    link_subject(firm.svc, firm.associate, "ben@hv.example")
    with TestClient(ada.app, base_url=CONSOLE_BASE, follow_redirects=False) as ben:
        _signed_in(ben, "ben@hv.example")
        assert ben.get("/console/queue").status_code == 200
        kept = dict(ben.cookies)  # his session cookie, as a browser left open would keep it
        _signed_in(ada)
        form = {"csrf": _csrf(ada, "/console/workspace"), "change": "standing"}
        form |= {"principal_id": firm.associate}
        unsaid = ada.post("/console/workspace", data={**form, "move": "suspend", "reason": " "})
        assert unsaid.status_code == 422 and "say why" in unsaid.text
        done = ada.post(
            "/console/workspace", data={**form, "move": "suspend", "reason": "on leave"}
        )
        assert done.status_code == 303
        page = ada.get(done.headers["location"]).text
        assert _banner(page) == [
            "Ben is suspended: they can do nothing until you bring them back (their staffing "
            "and accounts are kept)"
        ]
        assert "suspended since" in _text(page) and ": on leave" in _text(page)
        assert ben.get("/console/queue").headers["location"].startswith("/console/signin")

        time.sleep(1.1)  # whole seconds: Ben's sign-in is a second older than his return
        back = ada.post("/console/workspace", data={**form, "move": "reactivate", "reason": "back"})
        assert "Ben is back" in _banner(ada.get(back.headers["location"]).text)[0]
        ben.cookies.clear()
        ben.cookies.update(kept)
        assert ben.get("/console/queue").headers["location"].startswith("/console/signin")
        ben.cookies.clear()
        _signed_in(ben, "ben@hv.example")
        assert ben.get("/console/queue").status_code == 200
        organization.suspend(firm.svc, firm.org, firm.founder, firm.agents["orion"], "audit")
        agents = _text(ada.get("/console/agents").text)
        assert "suspended since" in agents and "audit: it can do nothing until you bring" in agents


def test_suspended_work_recalls_nothing_for_its_agent_or_its_requester(
    store: Store, firm: Firm
) -> None:
    """A run already going when its agent, or the person it acts for, is suspended reads
    nothing more from memory (its intents are refused by the broker as well)."""
    orion = firm.agents["orion"]

    def recalled(on_behalf_of: str | None = None) -> tuple[str, ...]:
        found = store.memory.recall(
            asker_principal_id=orion,
            org_id=firm.org,
            query="Atlas kickoff",
            now=utc_now(),
            on_behalf_of=on_behalf_of,
        )
        return tuple(found.released_refs)

    assert "atlas-kickoff" in recalled() and "atlas-kickoff" in recalled(firm.associate)
    organization.suspend(firm.svc, firm.org, firm.founder, firm.associate, "on leave")
    assert recalled(firm.associate) == () and "atlas-kickoff" in recalled()
    organization.suspend(firm.svc, firm.org, firm.founder, orion, "audit")
    assert recalled() == ()
    organization.reactivate(firm.svc, firm.org, firm.founder, orion, "cleared")
    assert "atlas-kickoff" in recalled()


def test_why_someone_was_suspended_is_the_founders_to_read(door: TestClient, firm: Firm) -> None:
    """Every member sees that Orion is suspended, and since when; only the founder reads
    why (a personnel matter), in the directory, the workspace and the audit chain."""
    from usecases import audit

    assert _move(door, firm, firm.agents["orion"], "suspend", "PRIVATE-REASON-7").status_code == 200
    as_ben = signed_in(firm.svc, firm.associate)
    listed = door.get(f"/v1/orgs/{firm.org}/principals", headers=as_ben)
    orion = next(p for p in listed.json() if p["id"] == firm.agents["orion"])
    assert orion["status"] == "suspended" and orion["status_reason"] is None
    chain = audit.audit(firm.svc, firm.org, firm.associate, verify=False)
    assert "PRIVATE-REASON-7" not in str([e.payload for e in chain.entries])
    assert any(e.rule == "principal_suspended" for e in chain.entries)
    as_ada = door.get(f"/v1/orgs/{firm.org}/principals", headers=signed_in(firm.svc, firm.founder))
    assert "PRIVATE-REASON-7" in as_ada.text
    founders = audit.audit(firm.svc, firm.org, firm.founder, verify=False)
    assert "PRIVATE-REASON-7" in str([e.payload for e in founders.entries])
