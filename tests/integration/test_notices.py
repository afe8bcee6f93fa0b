"""Notices on SQLite and PostgreSQL: a new hold is told to the people who may decide it
and to no one else; West never reaches an East approver, not even as a count's words;
each notice is written once, by two passes at once too; what no longer waits is
forgotten; the digest lists a person's own queue once a day. Delivered through a local
SMTP server (aiosmtpd) and local HTTP servers speaking Slack's Web API and a Teams
webhook: delivered, given up, tried again at the next pass, and a pass that died
mid-way releasing its notices only when its lease runs out."""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from adapters.notices.email import EmailNotifier
from adapters.notices.slack import SlackNotifier
from adapters.notices.teams import TeamsNotifier
from adapters.relay.smtp import SmtpMailer
from adapters.store.notices import SqlNotices
from adapters.store.store import Store
from domain.governance.intents import ApprovalVerdict
from domain.ingress import Unauthenticated
from domain.notices import Channel, Console, Notice, NoticeKind
from domain.organization.contracts import Identity
from domain.organization.kinds import IdentityKind, StaffRole
from domain.relay import LEASE, DeliveryState, Outcome
from tests.identity import link_chat, link_subject
from tests.integration.test_console_pages import _held, _review
from tests.integration.test_console_security import BASE, _signed_in
from tests.integration.test_needs_you import _filed_pair, scene
from tests.smtp import Inbox
from tests.support import Firm, free_port, race, utc_now
from usecases import ingress, notices, organization
from usecases.notices import NoticeSettings

CONSOLE = Console(url="https://hv.example/console")
EMAIL_ONLY = NoticeSettings(console=CONSOLE, channels=frozenset({Channel.EMAIL}), digest_hour=None)


def _outbox(firm: Firm) -> SqlNotices:
    store = firm.svc.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    return SqlNotices(store.db, store.keys)


def _approver(firm: Firm, who: str, project: str) -> None:
    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(who, project, StaffRole.APPROVER),
    )


def _write(firm: Firm, settings: NoticeSettings = EMAIL_ONLY) -> list[Notice]:
    return notices.write(firm.svc, _outbox(firm), settings, firm.org)


def _chain_ok(firm: Firm) -> None:
    assert firm.svc.store.audit.verify(firm.org).ok  # type: ignore[attr-defined]


def test_a_new_hold_is_told_to_those_who_may_decide_it_once(firm: Firm) -> None:
    s = scene(firm)  # East: a held $2,500 payment, a refused run, a pending cap; West: more
    written = _write(firm)
    # Ada approves on both projects; Ben is a member of East: he may not decide it.
    assert [(n.person_id, n.channel, n.address, n.kind) for n in written] == [
        (firm.founder, Channel.EMAIL, "ada@hv.example", NoticeKind.NEW)
    ]
    [notice] = written
    assert notice.items == (f"held_intent:{s.held.id}",)
    assert notice.link == f"https://hv.example/console/intents/{s.held.id}"
    assert notice.subject.startswith("Waiting for you: A payment of $2,500.00")
    assert "Atlas" in notice.body and "250000" not in notice.body
    assert _write(firm) == []  # told once: a second pass writes nothing
    _approver(firm, firm.associate, "east")
    [bens] = _write(firm)  # now he decides East's holds: he hears of it, Ada not again
    assert (bens.person_id, bens.address) == (firm.associate, "ben@hv.example")
    entries = [e for e in firm.svc.audit.entries(firm.org) if e.stage == "notice"]
    assert [e.payload["person"] for e in entries] == [firm.founder, firm.associate]
    assert "hv.example" not in json.dumps([e.payload for e in entries])
    assert "$2,500" not in json.dumps([e.payload for e in entries])
    _chain_ok(firm)


def test_west_never_reaches_an_east_approver_not_even_in_the_digest(firm: Firm) -> None:
    s, east, west = _filed_pair(firm)
    _approver(firm, firm.associate, "east")
    with_digest = EMAIL_ONLY.model_copy(update={"digest_hour": 0})
    written = _write(firm, with_digest)
    bens = [n for n in written if n.person_id == firm.associate]
    told = {i for n in bens if n.kind is NoticeKind.NEW for i in n.items}
    assert told == {f"held_intent:{s.held.id}", f"finding:{east}"}
    [daily] = [n for n in bens if n.kind is NoticeKind.DIGEST]
    assert f"finding:{west}" not in daily.items and f"commitment:{s.west_cap}" not in daily.items
    said = json.dumps([n.model_dump(mode="json") for n in bens])
    for secret in (west, s.west_cap, s.west_run, "Birch", "west"):
        assert secret not in said, secret
    assert "more concern projects outside yours" in daily.body
    adas = {
        i
        for n in written
        if n.person_id == firm.founder and n.kind is NoticeKind.NEW
        for i in n.items
    }
    assert adas == {f"held_intent:{s.held.id}", f"finding:{east}", f"finding:{west}"}
    assert [n for n in _write(firm, with_digest) if n.kind is NoticeKind.DIGEST] == []  # once a day


def test_two_passes_at_once_write_each_notice_once(firm: Firm) -> None:
    _filed_pair(firm)
    results = race([lambda: _write(firm) for _ in range(4)])
    assert not [r for r in results if isinstance(r, Exception)], results
    ids = [n.id for r in results for n in r]
    assert len(ids) == len(set(ids)) == 3  # the hold and both findings, to Ada
    assert len(_outbox(firm).notices(firm.org)) == 3
    _chain_ok(firm)


def test_one_notice_written_by_four_writers_at_once_is_kept_once(firm: Firm) -> None:
    """The store itself, raced: the same notices handed to four writers at once (passes
    that read who was told before any wrote); one keeps them, on the chain once."""
    scene(firm)
    [notice] = notices.write(firm.svc, _Dry(), EMAIL_ONLY, firm.org)
    outbox = _outbox(firm)
    keys = notice.items
    results = race(
        [
            lambda: outbox.write(firm.org, firm.founder, [notice], keys, keys, utc_now())
            for _ in range(4)
        ]
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(len(r) for r in results) == [0, 0, 0, 1]
    assert [n.id for n, _ in outbox.notices(firm.org)] == [notice.id]
    entries = [e for e in firm.svc.audit.entries(firm.org) if e.stage == "notice"]
    assert len(entries) == 1
    assert outbox.told(firm.org, firm.founder) == set(keys)
    _chain_ok(firm)


class _Dry:
    """An outbox that keeps nothing: what a pass would write, written nowhere."""

    def told(self, org_id: str, person_id: str) -> set[str]:
        return set()

    def last_digest(self, org_id: str, person_id: str) -> None:
        return None

    def write(self, org_id: str, person_id: str, notices: Any, *_: Any) -> list[Notice]:
        return list(notices)


def test_what_no_longer_waits_is_forgotten_and_a_new_hold_told_again(firm: Firm) -> None:
    s = scene(firm)
    _write(firm)
    outbox = _outbox(firm)
    assert f"held_intent:{s.held.id}" in outbox.told(firm.org, firm.founder)
    _review(firm, s.held, ApprovalVerdict.DENY)
    _write(firm)
    assert outbox.told(firm.org, firm.founder) == set()


def test_more_than_five_new_items_make_one_notice(firm: Firm) -> None:
    scene(firm)
    for _ in range(6):
        _held(firm)
    written = _write(firm)
    [one] = [n for n in written if n.person_id == firm.founder]
    assert one.subject == "7 new things wait for you"
    assert len(one.items) == 7
    assert _write(firm) == []


# -- delivery -------------------------------------------------------------------------


@dataclass
class Chat:
    """A local server speaking Slack's ``chat.postMessage`` and a Teams webhook: it keeps
    each request and answers from a script (then 200 and Slack's ``ok``)."""

    posts: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    script: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def chat() -> Iterator[tuple[Chat, str]]:
    state = Chat()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.posts.append((self.path, dict(self.headers), body))
                status, answer = state.script.pop(0) if state.script else (200, {"ok": True})
            raw = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _everywhere(
    firm: Firm, smtp_port: int, chat_url: str
) -> tuple[NoticeSettings, dict[Channel, Any]]:
    link_chat(firm.svc, firm.founder, IdentityKind.SLACK, "T1:U0ADA")
    link_chat(firm.svc, firm.founder, IdentityKind.TEAMS, "tenant-1:aad-ada")
    notifiers = {
        Channel.EMAIL: EmailNotifier(SmtpMailer("127.0.0.1", smtp_port, "verletica@hv.example")),
        Channel.SLACK: SlackNotifier("xoxb-test", f"{chat_url}/api"),
        Channel.TEAMS: TeamsNotifier(f"{chat_url}/teams-hook"),
    }
    return EMAIL_ONLY.model_copy(update={"channels": frozenset(notifiers)}), notifiers


def _states(firm: Firm) -> dict[Channel, tuple[str, int]]:
    rows = _outbox(firm).notices(firm.org, firm.founder)
    return {n.channel: (state, n.attempts) for n, state in rows}


def test_a_hold_reaches_the_founder_by_email_slack_and_teams_with_its_link(
    firm: Firm, smtp: tuple[Inbox, int], chat: tuple[Chat, str]
) -> None:
    (inbox, port), (server, url) = smtp, chat
    settings, notifiers = _everywhere(firm, port, url)
    s = scene(firm)
    server.script = [(429, {"ok": False, "error": "ratelimited"})]  # Slack: later, please
    written = _write(firm, settings)
    assert sorted(n.channel for n in written) == [Channel.EMAIL, Channel.SLACK, Channel.TEAMS]
    first = notices.deliver(_outbox(firm), notifiers, utc_now, 50)
    assert sorted((a.channel, a.outcome) for a in first) == [
        (Channel.EMAIL, Outcome.DELIVERED),
        (Channel.SLACK, Outcome.RETRIED),
        (Channel.TEAMS, Outcome.DELIVERED),
    ]
    second = notices.deliver(_outbox(firm), notifiers, utc_now, 50)
    assert [(a.channel, a.attempt, a.outcome) for a in second] == [
        (Channel.SLACK, 2, Outcome.DELIVERED)
    ]
    assert notices.deliver(_outbox(firm), notifiers, utc_now, 50) == []  # never twice
    assert _states(firm) == {
        Channel.EMAIL: ("delivered", 1),
        Channel.SLACK: ("delivered", 2),
        Channel.TEAMS: ("delivered", 1),
    }
    [(to, raw)] = inbox.received
    mail = message_from_bytes(raw, policy=policy.default)
    assert to == "ada@hv.example"
    assert str(mail["Subject"]).strip().startswith("Waiting for you: A payment of $2,500.00")
    assert isinstance(mail, EmailMessage)
    text = mail.get_body().get_content()  # type: ignore[union-attr]
    assert f"https://hv.example/console/intents/{s.held.id}" in text
    slack = [(h, b) for p, h, b in server.posts if p == "/api/chat.postMessage"]
    assert len(slack) == 2
    headers, body = slack[-1]
    assert headers["Authorization"] == "Bearer xoxb-test"
    assert body["channel"] == "U0ADA" and s.held.id in body["text"]
    [(_, _, card)] = [(p, h, b) for p, h, b in server.posts if p == "/teams-hook"]
    content = card["attachments"][0]["content"]
    assert content["msteams"]["entities"][0]["mentioned"] == {"id": "aad-ada", "name": "Ada"}
    assert content["actions"][0]["url"] == f"https://hv.example/console/intents/{s.held.id}"
    entries = [e for e in firm.svc.audit.entries(firm.org) if e.stage == "notice"]
    assert sorted(e.rule for e in entries) == sorted(
        ["notice_new"] * 3 + ["notice_delivered"] * 3 + ["notice_retried"]
    )
    _chain_ok(firm)


def test_a_refusal_no_retry_changes_is_given_up_at_once(
    firm: Firm, smtp: tuple[Inbox, int], chat: tuple[Chat, str]
) -> None:
    (inbox, port), (server, url) = smtp, chat
    settings, notifiers = _everywhere(firm, port, url)
    scene(firm)
    _write(
        firm, settings.model_copy(update={"channels": frozenset({Channel.SLACK, Channel.TEAMS})})
    )
    server.script = [(200, {"ok": False, "error": "user_not_found"}), (400, {"error": "bad card"})]
    attempts = notices.deliver(_outbox(firm), notifiers, utc_now, 50)
    assert {a.outcome for a in attempts} == {Outcome.BOUNCED}
    assert notices.deliver(_outbox(firm), notifiers, utc_now, 50) == []
    assert inbox.received == []


def test_a_pass_that_died_releases_its_notices_only_when_its_lease_runs_out(
    firm: Firm, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    scene(firm)
    _write(firm)
    outbox = _outbox(firm)
    [claimed] = outbox.claim(50, utc_now())  # a pass claims it, then dies before sending
    mailer = {Channel.EMAIL: EmailNotifier(SmtpMailer("127.0.0.1", port, "v@hv.example"))}
    assert notices.deliver(outbox, mailer, utc_now, 50) == []  # its lease holds
    later: Callable[[], datetime] = lambda: utc_now() + LEASE + timedelta(seconds=1)  # noqa: E731
    [attempt] = notices.deliver(outbox, mailer, later, 50)
    assert (attempt.notice_id, attempt.outcome) == (claimed.id, Outcome.DELIVERED)
    assert len(inbox.received) == 1
    assert _states(firm)[Channel.EMAIL] == (DeliveryState.DELIVERED.value, 1)


def test_an_unreachable_server_is_tried_again_then_given_up(firm: Firm) -> None:
    scene(firm)
    _write(firm)
    outbox = _outbox(firm)
    nowhere = {
        Channel.EMAIL: EmailNotifier(
            SmtpMailer("127.0.0.1", free_port(), "v@hv.example", timeout=2)
        )
    }
    outcomes = [a.outcome for _ in range(5) for a in notices.deliver(outbox, nowhere, utc_now, 50)]
    assert outcomes == [Outcome.RETRIED] * 4 + [Outcome.BOUNCED]
    assert notices.deliver(outbox, nowhere, utc_now, 50) == []


# -- the link a notice carries ---------------------------------------------------------


def test_a_notices_link_survives_sign_in_and_opens_the_queue_at_its_item(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _s, east, _west = _filed_pair(firm)
    link = CONSOLE.url.replace("https://hv.example", "") + f"/queue?item=finding:{east}"
    away = client.get(link)
    assert away.status_code == 303
    signin = away.headers["location"]
    assert signin.startswith("/console/signin?next=")
    page = client.get(signin)
    # the sign-in page's button carries the link on to the issuer and back
    [login] = re.findall(r'href="(/console/login\?next=[^"]+)"', page.text)
    start = client.get(html.unescape(login))
    authorize = start.headers["location"]
    form = httpx.get(authorize)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form.text))
    back = httpx.post(
        authorize.split("?")[0],
        data={**fields, "subject": "ada@hv.example"},
        follow_redirects=False,
    )
    done = client.get(back.headers["location"].removeprefix(BASE))
    assert done.headers["location"] == f"/console/queue?item=finding:{east}"
    opened = client.get(done.headers["location"])
    focused = re.findall(r'<li class="item focus"[^>]*id="([^"]+)"', opened.text)
    assert focused == [f"finding-{east}"]
    assert "no longer waits for you" not in opened.text
    gone = client.get("/console/queue?item=finding:not-there")
    assert "no longer waits for you" in gone.text and "item focus" not in gone.text


def test_a_colleague_links_their_own_slack_with_a_code_and_notices_reach_it(
    web: tuple,
) -> None:  # type: ignore[type-arg]
    """Issue 26.10: signed in, Ben gets a code (shown once) and sends it from his Slack
    account; it is then his, on the record as his own act, and notices reach it. He may
    unlink it. A chat account the founder linked for someone proves nobody."""
    client, firm, _ = web
    link_subject(firm.svc, firm.associate, "ben@hv.example")
    _signed_in(client, "ben@hv.example")
    page = client.get("/console/link")
    assert page.status_code == 200 and "Slack: not linked" in " ".join(page.text.split())
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    ask = {"csrf": csrf.group(1), "kind": "slack", "do": "code"}
    shown = client.post("/console/link", data=ask)
    code = re.search(r"/verletica link (\S+?)</code>", shown.text)
    assert shown.status_code == 200 and code is not None, shown.text[:500]
    ports = client.app.state.ports  # the console's own, with its session key
    ingress.link_chat(ports, IdentityKind.SLACK, "T1:U0BEN", code.group(1))  # sent from Slack
    identities = firm.svc.directory.identities(firm.org)
    ben = firm.svc.directory.principal(firm.org, firm.associate)
    mine = [
        (i.kind, i.principal_id, i.linked_by) for i in identities if i.external_id == "T1:U0BEN"
    ]
    assert mine == [(IdentityKind.SLACK, ben.id, ben.id)]
    assert ingress.proven(ports, IdentityKind.SLACK, "T1:U0BEN").id == ben.id
    both = frozenset({Channel.EMAIL, Channel.SLACK})
    assert notices.addresses(ben, identities, both) == {
        Channel.EMAIL: "ben@hv.example",
        Channel.SLACK: "U0BEN",
    }
    assert notices.addresses(ben, identities, frozenset({Channel.EMAIL})) == {
        Channel.EMAIL: "ben@hv.example"
    }
    entries = firm.svc.store.audit.entries(firm.org)  # type: ignore[attr-defined]
    linked = [e for e in entries if e.rule == "identity_linked"]
    assert linked[-1].actor == ben.id  # Ben's own act, on the record
    assert "Slack: linked" in " ".join(client.get("/console/link").text.split())
    gone = client.post("/console/link", data={**ask, "do": "unlink"})
    assert gone.status_code == 303
    assert firm.svc.directory.identity(IdentityKind.SLACK, "T1:U0BEN") is None
    with pytest.raises(ValueError, match="linked by its owner"):
        ingress.link_identity(
            firm.svc, firm.org, firm.founder, firm.associate, IdentityKind.SLACK, "T1:U0X"
        )
    # linked for Ben by someone else (as the founder could before): it proves nobody
    with firm.svc.configuration.change(firm.org, firm.founder, firm.svc.clock) as change:
        change.link_identity(
            Identity(
                org_id=firm.org,
                kind=IdentityKind.SLACK,
                external_id="T1:U0TYPED",
                principal_id=ben.id,
            )
        )
    with pytest.raises(Unauthenticated, match="not linked by its owner"):
        ingress.proven(firm.svc, IdentityKind.SLACK, "T1:U0TYPED")
    assert firm.svc.audit.verify(firm.org).ok
