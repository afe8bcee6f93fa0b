"""The console's sign-in and forms under attack, on SQLite and PostgreSQL, against the
local issuer served over HTTP: a stale or foreign callback, a replayed code, a forged
session, a form without its CSRF token or from another site, and the cookies' flags."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.console.session import FLASH_COOKIE, LOGIN_COOKIE, SESSION_COOKIE
from api.http.app import create_app
from domain.organization.contracts import SpendCap
from tests.identity import ServedIssuer, link_subject
from tests.integration.conftest import CONSOLE_BASE
from tests.integration.test_needs_you import _filed_pair
from tests.support import Firm, make_settings
from usecases import commitments

BASE = CONSOLE_BASE


def _authorize(client: TestClient, subject: str) -> str:
    """Start a sign-in and sign in at the issuer: the callback URL it sends back."""
    start = client.get("/console/login?next=/console/queue")
    assert start.status_code == 303
    authorize = start.headers["location"]
    page = httpx.get(authorize)
    assert page.status_code == 200 and "Your email" in page.text
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page.text))
    back = httpx.post(
        authorize.split("?")[0], data={**fields, "subject": subject}, follow_redirects=False
    )
    assert back.status_code == 303, back.text
    return back.headers["location"]


def _signed_in(client: TestClient, subject: str = "ada@hv.example") -> None:
    callback = _authorize(client, subject)
    done = client.get(callback.removeprefix(BASE))
    assert done.status_code == 303 and done.headers["location"] == "/console/queue", done.text


def test_a_person_signs_in_with_pkce_and_their_session_is_tightly_kept(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    assert client.get("/console/queue").headers["location"].startswith("/console/signin")
    start = client.get("/console/login")
    query = parse_qs(urlsplit(start.headers["location"]).query)
    assert query["code_challenge_method"] == ["S256"] and query["response_type"] == ["code"]
    assert "nonce" in query and "state" in query
    login_cookie = start.headers["set-cookie"]
    assert LOGIN_COOKIE in login_cookie and "HttpOnly" in login_cookie
    assert "SameSite=lax" in login_cookie and "Secure" not in login_cookie  # on this machine
    callback = _authorize(client, "ada@hv.example")
    done = client.get(callback.removeprefix(BASE))
    cookie = done.headers["set-cookie"]
    assert SESSION_COOKIE in cookie and "HttpOnly" in cookie and "Path=/console" in cookie
    page = client.get("/console/queue")
    assert page.status_code == 200 and "Needs you" in page.text
    # The code was spent: the same callback again is refused.
    again = client.get(callback.removeprefix(BASE))
    assert again.status_code in (400, 401)


def test_a_callback_not_started_here_or_with_another_state_is_refused(web: tuple) -> None:  # type: ignore[type-arg]
    client, _, _ = web
    callback = _authorize(client, "ada@hv.example")
    code = parse_qs(urlsplit(callback).query)["code"][0]
    forged = client.get(f"/console/callback?code={code}&state=someone-elses")
    assert forged.status_code == 400 and "stale or was not started here" in forged.text
    client.cookies.delete(LOGIN_COOKIE, path="/console")
    stranger = client.get(callback.removeprefix(BASE))
    assert stranger.status_code == 400
    assert SESSION_COOKIE not in client.cookies


def test_a_forged_or_altered_session_is_no_session(web: tuple) -> None:  # type: ignore[type-arg]
    client, _, _ = web
    _signed_in(client)
    real = client.cookies.get(SESSION_COOKIE, path="/console")
    assert real is not None
    assert client.get("/console/queue").status_code == 200
    for forged in (real[:-3] + ("abc" if not real.endswith("abc") else "xyz"), "e30.forged.sig"):
        client.cookies.clear()
        client.cookies.set(SESSION_COOKIE, forged, path="/console")
        assert client.get("/console/queue").status_code == 303


def test_a_form_needs_its_csrf_token_and_this_site(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _signed_in(client)
    page = client.get("/console/workspace").text
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token is not None
    form = {"change": "project", "slug": "ops", "name": "Ops"}
    missing = client.post("/console/workspace", data=form)
    assert missing.status_code == 403 and "CSRF" in missing.text
    wrong = client.post("/console/workspace", data={**form, "csrf": "guessed"})
    assert wrong.status_code == 403
    foreign = client.post(
        "/console/workspace",
        data={**form, "csrf": token.group(1)},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403 and "another site" in foreign.text
    assert "ops" not in {p.slug for p in firm.svc.directory.projects(firm.org)}
    done = client.post("/console/workspace", data={**form, "csrf": token.group(1)})
    assert done.status_code == 303
    assert "ops" in {p.slug for p in firm.svc.directory.projects(firm.org)}


def test_a_signed_in_stranger_reaches_only_onboarding(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _authorize_to = _authorize(client, "zed@elsewhere.example")
    done = client.get(_authorize_to.removeprefix(BASE))
    assert done.headers["location"] == "/console/onboard"
    assert client.get("/console/queue").headers["location"] == "/console/onboard"
    assert client.get(f"/console/intents/{firm.org}").headers["location"] == "/console/onboard"


def test_cookies_are_secure_off_this_machine(firm: Firm, served_issuer: ServedIssuer) -> None:
    app = create_app(make_settings(), served_issuer.console_ports(firm.svc))
    with TestClient(app, base_url="https://console.harborvale.example") as client:
        start = client.get("/console/login", follow_redirects=False)
        assert "Secure" in start.headers["set-cookie"]


def test_an_east_member_reads_no_west_content_on_any_page(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Birch exclusivity",
            SpendCap(limit_cents=900_000, currency="USD"),
            "Birch letter",
            excerpt="the Birch sellers grant exclusivity until March",
            projects=("west",),
        ),
    )
    link_subject(firm.svc, firm.associate, "ben@hv.example")
    _signed_in(client, "ben@hv.example")
    for page in ("/console/workspace", "/console/queue", "/console/audit", "/console/runs"):
        answer = client.get(page)
        assert answer.status_code == 200, (page, answer.text[:300])
        assert "Birch exclusivity" not in answer.text and "exclusivity until" not in answer.text
    audit = client.get("/console/audit?rule=commitment_recorded").text
    assert "Memory read log" not in audit  # the founder's alone
    assert answer.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


def test_a_bad_form_is_refused_before_anything_is_done(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _, finding, _ = _filed_pair(firm)
    _signed_in(client)
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/queue").text)
    assert token is not None
    act = {"csrf": token.group(1), "item": "finding", "action": "resolve", "subject": finding}
    for bad in (
        {"reason": "renewed", "start": "first"},  # the page to come back to is no number
        {"reason": "re\x00newed"},  # a NUL, refused as the API refuses it
        {"reason": "x" * 5000},
        {"reason": "renewed", "item": "no_such_kind"},
    ):
        answer = client.post("/console/act", data={**act, **bad})
        assert answer.status_code == 422, (bad, answer.status_code, answer.text[:200])
    open_findings = [f for f in firm.svc.heartbeats.findings(firm.org) if f.id == finding]  # type: ignore[union-attr]
    assert open_findings[0].resolved_at is None
    done = client.post("/console/act", data={**act, "reason": "renewed"})
    assert done.status_code == 303 and done.headers["location"] == "/console/queue"
    assert "finding resolved" in client.get("/console/queue").text  # the server's flash


def _banner(html: str) -> list[str]:
    """What the page's green banner says (every one of them)."""
    return re.findall(r'<p class="message" role="status"[^>]*>([^<]*)</p>', html)


def test_the_banner_says_only_what_the_server_flashed_once_never_a_link(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _, finding, _ = _filed_pair(firm)
    _signed_in(client)
    phish = "Your account is locked: call +1 555 0100 with your password"
    for page in ("/console/queue", "/console/workspace", "/console/metrics", "/console/audit"):
        answer = client.get(page, params={"message": phish})
        assert answer.status_code == 200, (page, answer.text[:300])
        assert phish not in answer.text and _banner(answer.text) == [], page
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/queue").text)
    assert token is not None
    act = {"csrf": token.group(1), "item": "finding", "action": "resolve", "subject": finding}
    done = client.post(
        "/console/act", data={**act, "reason": "renewed", "back": f"/console/queue?message={phish}"}
    )
    assert done.status_code == 303 and "message" not in done.headers["location"]
    flashed = client.cookies.get(FLASH_COOKIE, path="/console")
    assert flashed is not None
    shown = client.get(done.headers["location"])
    assert _banner(shown.text) == ["finding resolved"]
    assert f'{FLASH_COOKIE}=""' in shown.headers["set-cookie"]  # the page that shows it clears it
    assert _banner(client.get("/console/queue").text) == []  # once
    # A flash cookie forged, altered, or set for another session says nothing.
    for cookie in (flashed[:-4] + ("AAAA" if not flashed.endswith("AAAA") else "BBBB"), "e30.x.y"):
        client.cookies.set(FLASH_COOKIE, cookie, path="/console")
        assert _banner(client.get("/console/queue").text) == []
    _signed_in(client)  # a new session: the old session's flash is not this one's
    client.cookies.set(FLASH_COOKIE, flashed, path="/console")
    assert _banner(client.get("/console/queue").text) == []


@given(text=st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=200))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_query_string_reaches_the_banner(web: tuple, text: str) -> None:  # type: ignore[type-arg]
    client, _, _ = web
    if SESSION_COOKIE not in client.cookies:
        _signed_in(client)
    answer = client.get("/console/queue", params={"message": text, "notice": text})
    assert answer.status_code == 200 and _banner(answer.text) == []


def test_a_refusal_is_told_once_in_red_never_in_the_green_banner(web: tuple) -> None:  # type: ignore[type-arg]
    client, _, _ = web
    _signed_in(client)
    missing = client.post("/console/workspace", data={"change": "project", "slug": "ops"})
    assert missing.status_code == 403
    unknown = client.get("/console/intents/no-such-intent")
    assert unknown.status_code == 404
    for answer, said in ((missing, "CSRF token is missing"), (unknown, "no intent")):
        assert answer.text.count(said) == 1, answer.text
        assert _banner(answer.text) == []
        assert re.search(r'<p class="refusal" role="alert">[^<]*' + said, answer.text)
