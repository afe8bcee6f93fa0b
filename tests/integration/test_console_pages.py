"""The console's pages over HTTP, on SQLite and PostgreSQL: a held intent's page read
after it was approved and written, denied or expired (what was decided, by whom, when);
the metrics page's figures against the use case's; and every form a validation or a use
case refuses answered on its own page, its input kept, with a sentence instead of a
validation library's dump."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.store.store import Store
from domain.governance.intents import ApprovalVerdict, Intent, Outcome
from domain.governance.records import decision_draft
from domain.governance.values import effects_of
from domain.runs.run import RunRecord
from tests.identity import link_subject
from tests.integration.test_console_security import BASE, _authorize, _banner, _signed_in
from tests.integration.test_needs_you import _filed_pair, scene
from tests.support import APPROVAL_KEYS, Firm, payment_intent, signed, utc_now
from usecases import governance, governance_review, needs_you, organization
from worker.bootstrap import build_connectors

RAW = ("validation error", "pydantic", "input_value", "_mismatch", "Body")
"""What a refusal the person reads must never carry."""


def _store(firm: Firm) -> Store:
    store = firm.svc.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    return store


def _held(firm: Firm) -> Intent:
    """A 250,000-cent payment of Ledger's, held for the approval threshold, in a run."""
    run_id = f"run-{utc_now().timestamp()}"
    firm.svc.runs.create(
        RunRecord(
            id=run_id,
            org_id=firm.org,
            agent_id=firm.agents["ledger"],
            task="pay the Atlas invoice",
            workflow_id=f"agent-run-{run_id}",
            started_by=firm.founder,
            projects=("east",),
            created_at=utc_now(),
        )
    )
    intent = payment_intent(firm.org, firm.agents["ledger"], 250_000, run_id=run_id)
    decision = governance.decide(_store(firm).governance, intent, utc_now())
    assert (decision.outcome, decision.rule) == (Outcome.HOLD, "money_over_threshold")
    return intent


def _review(firm: Firm, intent: Intent, verdict: ApprovalVerdict) -> Any:
    request = signed(intent, firm.founder, verdict, now=utc_now(), store=_store(firm).governance)
    done = governance_review.review_hold(
        _store(firm).governance,
        firm.org,
        intent.run_id,
        request,
        1,
        utc_now(),
        keys=APPROVAL_KEYS,
    )
    assert done.review.accepted, done.review
    return done.decision


def _write(firm: Firm, decision: Any) -> None:
    store = _store(firm)
    governance.dispatch(
        store.governance, build_connectors(store, utc_now), firm.org, decision, utc_now()
    )


def _text(page: str) -> str:
    """The page's text, as a reader reads it (tags dropped, spaces folded)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.mark.parametrize("ending", ["approved and paid", "denied", "expired"])
def test_a_held_intent_stays_readable_after_it_is_decided(web: tuple, ending: str) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    intent = _held(firm)
    _signed_in(client)
    before = client.get(f"/console/intents/{intent.id}")
    assert before.status_code == 200 and 'id="side"' in before.text
    if ending == "approved and paid":
        _write(firm, _review(firm, intent, ApprovalVerdict.APPROVE))
    elif ending == "denied":
        _review(firm, intent, ApprovalVerdict.DENY)
    else:
        governance.close(
            _store(firm).governance,
            firm.org,
            intent.id,
            "hold_timeout",
            "no one decided",
            utc_now(),
        )
    after = client.get(f"/console/intents/{intent.id}")
    assert after.status_code == 200, after.text[:500]
    said = _text(after.text)
    assert re.search(rf"A payment of \$[\d,.]+ to [^:]+: {ending}", said), said[:300]
    decided = re.search(r'<p class="decided" id="decided">(.*?)</p>', after.text, re.S)
    assert decided is not None
    summary = _text(decided.group(1))
    what = ending.split()[0]
    when = r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC"  # 7 Dec 2026, 03:14 UTC
    by = "the run" if ending == "expired" else "Ada"
    if ending == "expired":
        assert re.match(rf" ?Expired at {when}, no one having decided it", summary), summary
    else:
        assert re.match(rf" ?{what.capitalize()} by Ada at {when}", summary), summary
    assert ("Its write happened" in summary) is (ending == "approved and paid")
    # What the broker said, and the record: held, then the decision (and the write).
    assert "money_over_threshold" in said and "approval threshold" in said
    record = re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>", after.text)
    expected = [("the broker", "held"), (by, what)] + (
        [("the payments connector", "written")] if ending == "approved and paid" else []
    )
    assert [r for r in record if r[1] != "decision refused"] == expected
    # Denied or expired: enforcement stopped it, and the counterfactual still says what
    # would have gone out; approved: nothing to set beside it.
    assert ('id="side"' in after.text) and (
        ("payments.pay: payee=N" in said) is (ending != "approved and paid")
    )
    assert f'href="/console/runs/{intent.run_id}"' in after.text
    assert 'action="/console/act"' not in after.text  # nothing left to decide
    assert "Conflict" not in after.text


def test_the_metrics_page_shows_the_use_cases_figures(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    s = scene(firm)  # a held payment, a run refused by the parser, one refused at resolve
    small = payment_intent(firm.org, firm.agents["ledger"], 5_000, run_id=s.east_run)
    allowed = governance.decide(_store(firm).governance, small, utc_now())
    assert allowed.outcome is Outcome.ALLOW
    _write(firm, allowed)  # dispatched without a human
    _write(firm, _review(firm, s.held, ApprovalVerdict.APPROVE))  # dispatched with one
    m = needs_you.metrics(firm.svc, firm.org, firm.founder)
    w = m.work_without_human
    assert (w.intents, w.intents_dispatched) == (1, 2)
    assert m.blocked_by_stage == {"parser": 1, "resolve": 1}
    _signed_in(client)
    page = client.get("/console/metrics")
    assert page.status_code == 200
    bars = {
        label: (int(v), int(t), whole, int(width))
        for label, width, v, t, whole in re.findall(
            r'<span class="label">([^<]+)</span>\s*<svg[^>]*>.*?<rect width="(\d+)" height="18"'
            r' class="fill"></rect></svg>\s*<span class="value">(\d+) of (\d+) ?([^<]*)</span>',
            page.text,
            re.S,
        )
    }
    blocked = sum(m.blocked_by_stage.values())
    expected = {
        "runs": (w.runs, w.runs_with_intents, "runs that proposed anything"),
        "intents": (w.intents, w.intents_dispatched, "dispatched"),
        "held": (m.escalated.held, m.escalated.decided, "decided"),
        **{
            stage.replace("_", " "): (n, blocked, "blocked")
            for stage, n in m.blocked_by_stage.items()
        },
    }
    assert {k: v[:3] for k, v in bars.items()} == expected
    for label, (value, total, _, width) in bars.items():
        assert value <= total and width == round(300 * value / total), label
    assert bars["parser"][3] == 150  # half of what was blocked, not a full bar


def _csrf(client: TestClient, page: str) -> str:
    token = re.search(r'name="csrf" value="([^"]+)"', client.get(page).text)
    assert token is not None
    return token.group(1)


def _value(page: str, input_id: str) -> str | None:
    found = re.search(rf'<input id="{input_id}"[^>]*?value="([^"]*)"', page)
    return None if found is None else html.unescape(found.group(1))


WAITS = r"A payment of \$[\d,.]+ to [^<:]+: why it waits for you</h1>"
"""The heading of a held payment's page (its payee is whichever test vendor was next)."""


def _refused(answer: Any, heading: str) -> str:
    """The refusal a re-shown form carries (once, in red), after checking it is the page
    the form was on and no dump of a validation library."""
    assert re.search(f"<h1>{heading}", answer.text), answer.text[:400]
    said = re.findall(r'<p class="refusal" role="alert" id="refused">([^<]*)</p>', answer.text)
    assert len(said) == 1, answer.text
    assert _banner(answer.text) == []
    for raw in RAW:
        assert raw not in answer.text, raw
    return html.unescape(said[0])


def test_a_refused_workspace_form_answers_on_the_workspace_with_its_input(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _signed_in(client)
    csrf = _csrf(client, "/console/workspace")
    form = {"csrf": csrf, "change": "project"}
    bad_key = client.post("/console/workspace", data={**form, "slug": "Ops Team", "name": "Ops"})
    assert bad_key.status_code == 422
    assert "lower-case letters, digits and hyphens" in _refused(bad_key, "Harbor &amp; Vale")
    assert (_value(bad_key.text, "slug"), _value(bad_key.text, "pname")) == ("Ops Team", "Ops")
    taken = client.post("/console/workspace", data={**form, "slug": "east", "name": "Again"})
    assert taken.status_code == 409
    assert "east" in _refused(taken, "Harbor &amp; Vale")
    assert _value(taken.text, "pname") == "Again"
    barrier = {"csrf": csrf, "change": "barrier", "name": "second wall"}
    crooked = client.post("/console/workspace", data={**barrier, "left": "East", "right": "west"})
    assert crooked.status_code == 422
    assert "Sides" in _refused(crooked, "Harbor &amp; Vale")
    assert (_value(crooked.text, "left"), _value(crooked.text, "right")) == ("East", "west")
    assert _value(crooked.text, "bname") == "second wall"
    assert "ops-team" not in {p.slug for p in firm.svc.directory.projects(firm.org)}


def test_a_refused_action_answers_on_its_page_with_its_input(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    _, finding, _ = _filed_pair(firm)
    intent = _held(firm)
    _signed_in(client)
    csrf = _csrf(client, "/console/queue")
    long = "renewed " * 300  # 2,400 characters: over the 2,000 a reason may have
    on_queue = client.post(
        "/console/act",
        data={"csrf": csrf, "item": "finding", "action": "resolve", "subject": finding,
              "reason": long},
    )  # fmt: skip
    assert on_queue.status_code == 422
    assert "Reason: is too long (at most 2000)" in _refused(on_queue, "Needs you")
    kept = re.findall(
        rf'<input id="r-\d+-{finding}" name="reason"[^>]*value="([^"]*)"', on_queue.text
    )
    assert kept == [long]
    on_intent = client.post(
        "/console/act",
        data={"csrf": csrf, "item": "held_intent", "action": "deny", "subject": intent.id,
              "reason": long, "back": f"/console/intents/{intent.id}"},
    )  # fmt: skip
    assert on_intent.status_code == 422
    assert "Reason: is too long" in _refused(on_intent, WAITS)
    assert _value(on_intent.text, "reason-deny") == long
    assert _value(on_intent.text, "reason-approve") is None  # only the form that was sent
    assert [f.resolved_at for f in firm.svc.heartbeats.findings(firm.org) if f.id == finding] == [
        None
    ]


def test_a_refused_onboarding_answers_on_its_page_with_its_input(web: tuple) -> None:  # type: ignore[type-arg]
    client, _, _ = web
    client.get(_authorize(client, "zed@elsewhere.example").removeprefix(BASE))
    csrf = _csrf(client, "/console/onboard")
    answer = client.post(
        "/console/onboard",
        data={"csrf": csrf, "name": "Zed & Co", "email": "zed-at-elsewhere", "founder_name": "Zed"},
    )
    assert answer.status_code == 422
    assert "Your email: is not an email address" in _refused(answer, "Set up your firm")
    assert [_value(answer.text, f) for f in ("name", "email", "founder_name")] == [
        "Zed & Co",
        "zed-at-elsewhere",
        "Zed",
    ]


def test_raising_a_wall_asks_where_the_founder_stands_and_says_it(web: tuple) -> None:  # type: ignore[type-arg]
    """Issue 19.27: the founder chooses as the wall goes up, and the workspace says what
    she reads and approves across every wall (the firm's own wall: approver on both sides,
    reading neither)."""
    client, firm, _ = web
    for slug, name in (("north", "North"), ("south", "South")):
        organization.add_project(firm.svc, firm.org, firm.founder, slug, name)
    _signed_in(client)
    csrf = _csrf(client, "/console/workspace")
    form = {"csrf": csrf, "change": "barrier", "name": "second wall"}
    unsaid = client.post("/console/workspace", data={**form, "left": "north", "right": "south"})
    assert unsaid.status_code == 422
    assert "where you stand" in _refused(unsaid, "Harbor &amp; Vale")
    assert firm.svc.directory.barriers(firm.org)[-1].name == "wall"
    raised = client.post(
        "/console/workspace",
        data={**form, "left": "north", "right": "south", "stand": "left"},
        follow_redirects=True,
    )
    assert raised.status_code == 200
    page = html.unescape(raised.text)
    assert "Ada stays on North of second wall (reads its memory, approves there)" in page
    assert "on South, Ada neither reads nor approves: staff an approver there" in page
    assert "Ada approves on every side of wall (Atlas | Birch)" in page
    on = {
        s.project
        for s in firm.svc.directory.staffing(firm.org, firm.founder)
        if s.active_at(utc_now())
    }
    assert "north" in on and "south" not in on


def test_a_decision_from_a_page_whose_hold_has_changed_answers_nothing(web: tuple) -> None:  # type: ignore[type-arg]
    """Review of issue 19.1: a proof bound to the hold open when the API signs would let a
    click on a page showing an earlier hold (a double submit, a second approver) answer a
    re-hold its approver never saw. The page names the hold it shows; once another is
    open, the click is refused and nothing reaches the run."""
    client, firm, _ = web
    intent = _held(firm)
    _signed_in(client)
    page = client.get(f"/console/intents/{intent.id}").text
    shown = re.search(r'name="hold" value="(\d+)"', page)
    queue = client.get("/console/queue").text
    assert shown is not None and f'name="hold" value="{shown.group(1)}"' in queue
    # meanwhile the hold changes: a re-hold (the broker decides it again, as a review does)
    store = _store(firm)
    with store.governance.unit(firm.org, utc_now()) as unit:
        stored = unit.stored(intent.id)
        assert stored is not None
        again = stored.latest.model_copy(update={"reason": "held again", "rule": "spend_cap"})
        unit.record(
            stored.intent,
            again,
            effects_of(again, None, by="broker", held=True),
            decision_draft(stored.intent, again, f"rehold:{intent.id}:test", "broker"),
        )
    csrf = _csrf(client, f"/console/intents/{intent.id}")
    stale = client.post(
        "/console/act",
        data={"csrf": csrf, "item": "held_intent", "action": "approve", "subject": intent.id,
              "hold": shown.group(1), "back": f"/console/intents/{intent.id}"},
    )  # fmt: skip
    assert stale.status_code == 409
    said = _refused(stale, WAITS)
    assert "is no longer the one open" in said and "held again" in said
    entries = store.audit.entries(firm.org)
    assert not [e for e in entries if e.intent_id == intent.id and e.stage == "human_review"]


def _rehold(firm: Firm, intent: Intent, reason: str) -> None:
    """The broker holds ``intent`` again (as a refused approval's review does)."""
    store = _store(firm)
    with store.governance.unit(firm.org, utc_now()) as unit:
        stored = unit.stored(intent.id)
        assert stored is not None
        again = stored.latest.model_copy(update={"reason": reason})
        unit.record(
            stored.intent,
            again,
            effects_of(again, None, by="broker", held=True),
            decision_draft(stored.intent, again, f"rehold:{intent.id}:test", "broker"),
        )


def test_a_decided_intents_page_shows_the_hold_that_was_answered(web: tuple) -> None:  # type: ignore[type-arg]
    """Review: after a re-hold, the page showed the first hold's rule and reason beside
    the decision that answered the second."""
    client, firm, _ = web
    intent = _held(firm)
    first = _store(firm).audit.entries(firm.org)[-1].payload["reason"]
    _rehold(firm, intent, "held again: the Atlas cap is nearly spent")
    _review(firm, intent, ApprovalVerdict.APPROVE)
    _signed_in(client)
    page = html.unescape(client.get(f"/console/intents/{intent.id}").text)
    why = page.split('id="why"')[1].split("</section>")[0]
    assert "held again: the Atlas cap is nearly spent" in why and first not in why


def test_the_queue_speaks_the_owners_words_with_the_engines_one_click_away(web: tuple) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    intent = _held(firm)
    _signed_in(client)
    page = client.get("/console/queue").text
    item = page[page.index(f'data-subject="{intent.id}"') :]
    item = item[: item.index("</li>")]
    meta = _text(re.search(r'<p class="meta">(.*?)</p>', item, re.S).group(1))  # type: ignore[union-attr]
    assert re.match(
        r" ?Waits for your decision · arrived just now · expires (in|on) [^·]+ · \$2,500\.00 · Atlas",
        meta,
    ), meta
    outside, _, inside = item.partition("<details")
    for engine in ("money_over_threshold", "held_intent", "preflight", "250000", "UTC"):
        assert engine not in _text(outside), engine
    assert "money_over_threshold" in inside and f"held_intent:{intent.id}" in inside
    assert "What would release it" in outside and "The agent says" in outside
    held = client.get(f"/console/intents/{intent.id}").text
    assert "Waits for a person" in _text(held)
    assert re.search(
        r"Without enforcement</strong>, a payment of \$2,500\.00 to [^<]+ would have gone ahead\. With it, nothing is paid until a person decides\.",
        held,
    )


def test_the_audit_page_says_what_happened_in_words_and_withholds_the_other_side(
    web: tuple,
) -> None:  # type: ignore[type-arg]
    client, firm, _ = web
    s = scene(firm)  # East's held payment; West's refused run and cap
    _review(firm, s.held, ApprovalVerdict.DENY)
    _signed_in(client)
    said = _text(client.get("/console/audit").text)
    assert re.search(r"Held a payment of \$2,500\.00 to [^.]+ It is over", said) or re.search(
        r"Held a payment of \$2,500\.00 to .{0,80}approval", said
    ), said[:2000]
    assert "Denied a payment of $2,500.00" in said and " Ada " in said
    assert "Commitment recorded: Birch cap" in said
    link_subject(firm.svc, firm.associate, "ben@hv.example")
    client.cookies.clear()
    _signed_in(client, "ben@hv.example")
    bens = _text(client.get("/console/audit").text)
    assert "Held a payment of $2,500.00" in bens  # East: his
    assert "it concerns projects outside yours" in bens  # West's entries: that they exist
    for west in ("Birch cap", s.west_cap, s.west_run):  # the project's name is the firm's
        assert west not in bens, bens[max(bens.find(west) - 150, 0) : bens.find(west) + 80]
