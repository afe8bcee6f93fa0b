"""The front door's four checks run in their order (issue 26.10): a request that fails
several is refused for the first it fails, through the API (a bearer token) and through
a chat channel (a Slack signature), on SQLite and PostgreSQL.

1. signature, 2. identity, 3. replay, 4. budget: the test starts from a request that
fails all four and makes it pass them one at a time, in order."""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from api.http.app import create_app
from domain.ingress import BudgetCeilings
from domain.organization.kinds import IdentityKind
from tests.identity import link_chat, link_subject
from tests.support import TEST_AUDIENCE, TEST_ISSUER, Firm
from usecases import ingress
from usecases.context import Ports

SECRET = "order-test-slack-signing-secret-0001"
SPENT = BudgetCeilings(requests_per_principal=0, requests_per_org=0)


@pytest.fixture
def spent(services: Ports) -> Iterator[TestClient]:
    """The API with every budget spent and a Slack signing secret."""
    from adapters.ingress.channels import SlackSignature

    ports = replace(
        services,
        budgets=SPENT,
        channels={**services.channels, IdentityKind.SLACK: SlackSignature(SECRET)},
    )
    with TestClient(create_app(ports=ports), raise_server_exceptions=False) as client:
        yield client


def _reason(answer: Any) -> str:
    assert answer.status_code == 401, answer.text
    return str(answer.json()["reason"])


def test_an_api_request_is_refused_for_the_first_check_it_fails(
    spent: TestClient, firm: Firm
) -> None:
    link_subject(firm.svc, firm.associate, "order|ben")
    path, body = f"/v1/orgs/{firm.org}/projects", {"slug": "never", "name": "Never"}
    nonce = uuid.uuid4().hex
    good = TEST_ISSUER.mint("order|ben", TEST_AUDIENCE)
    forged = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    stranger = TEST_ISSUER.mint("order|nobody", TEST_AUDIENCE)

    def post(token: str) -> Any:
        headers = {"Authorization": f"Bearer {token}", "X-Verletica-Nonce": nonce}
        return spent.post(path, json=body, headers=headers)

    # the nonce is spent first (by the one request that reaches the replay check fresh)
    assert _reason(post(good)) == "over_budget"  # 1-3 pass: the budget refuses
    assert _reason(post(forged)) == "bad_signature"  # fails 1, 2?, 3, 4: the first
    assert _reason(post(stranger)) == "unknown_subject"  # passes 1; fails 2, 3, 4
    assert _reason(post(good)) == "replayed"  # passes 1, 2; fails 3 and 4
    assert "never" not in {p.slug for p in firm.svc.directory.projects(firm.org)}


def _slash(user: str, trigger: str) -> bytes:
    fields = {"team_id": "T0ORDER", "user_id": user, "text": "orion go", "trigger_id": trigger}
    return urlencode(fields).encode()


def _signed(body: bytes, stamp: str, secret: str = SECRET) -> dict[str, str]:
    base = b"v0:" + stamp.encode() + b":" + body
    return {
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest(),
        "Content-Type": "application/x-www-form-urlencoded",
    }


def test_a_channel_message_is_refused_for_the_first_check_it_fails(
    spent: TestClient, firm: Firm
) -> None:
    link_chat(firm.svc, firm.associate, IdentityKind.SLACK, "T0ORDER:U0BEN")
    stamp = str(int(time.time()))
    mine, theirs = _slash("U0BEN", "t-1"), _slash("U0NOBODY", "t-2")

    def post(body: bytes, headers: dict[str, str]) -> Any:
        return spent.post("/v1/ingress/slack", content=body, headers=headers)

    assert _reason(post(mine, _signed(mine, stamp))) == "over_budget"
    assert _reason(post(theirs, _signed(theirs, stamp, "wrong-secret"))) == "bad_signature"
    unknown = post(theirs, _signed(theirs, stamp))  # 2 fails: told how to link, no run
    assert unknown.status_code == 200 and "Link a chat account" in unknown.json()["text"]
    assert _reason(post(mine, _signed(mine, stamp))) == "replayed"
    kept = [r.reason.value for r in firm.svc.front_door.refusals(10)]  # type: ignore[union-attr]
    assert kept[:4] == ["replayed", "unknown_subject", "bad_signature", "over_budget"]


def test_an_account_is_linked_by_the_code_its_owner_sends_from_it_once(
    spent: TestClient, firm: Firm
) -> None:
    """The other way round from a founder typing an id: Ben's console sign-in gets the
    code, his Slack account sends it. Sent again (say, seen in a channel and copied from
    another account), it is spent; a Teams code links no Slack account; a mistyped one
    links nothing. Each refusal is recorded."""
    ports = spent.app.state.ports
    ben = firm.svc.directory.principal(firm.org, firm.associate)
    code = ingress.chat_code(ports, ben, IdentityKind.SLACK)
    teams_code = ingress.chat_code(ports, ben, IdentityKind.TEAMS)
    stamp = str(int(time.time()))

    def say(user: str, text: str, trigger: str) -> str:
        body = urlencode(
            {"team_id": "T0ORDER", "user_id": user, "text": text, "trigger_id": trigger}
        ).encode()
        answer = spent.post("/v1/ingress/slack", content=body, headers=_signed(body, stamp))
        assert answer.status_code == 200, answer.text
        return str(answer.json()["text"])

    assert say("U0BEN", f"link {teams_code}", "l-0").startswith("That code links nothing")
    assert say("U0BEN", f"link {code[:-1]}x", "l-1").startswith("That code links nothing")
    assert say("U0BEN", f"link {code}", "l-2") == (
        "Linked: what you send from this Slack account acts as Ben from now on."
    )
    assert say("U0EVE", f"link {code}", "l-3").startswith("That code links nothing")
    assert firm.svc.directory.identity(IdentityKind.SLACK, "T0ORDER:U0EVE") is None
    assert ingress.proven(ports, IdentityKind.SLACK, "T0ORDER:U0BEN").id == ben.id
    again = ingress.chat_code(ports, ben, IdentityKind.SLACK)
    assert "linked already (yours)" in say("U0BEN", f"link {again}", "l-4")
    kept = [r.reason.value for r in firm.svc.front_door.refusals(10)]  # type: ignore[union-attr]
    assert kept[:3] == ["replayed", "invalid_claim", "invalid_claim"]
