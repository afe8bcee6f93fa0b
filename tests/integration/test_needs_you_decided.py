"""What a person decided, on SQLite and PostgreSQL, read from the folded chain: each
approval, denial and refused decision of theirs, newest first, with what became of it
(paid, nothing paid, goes ahead, the broker's refusal), and what concerns a project they
may no longer read withheld. Checked against the whole audit trail read as its reader
may read it (the way the page read it before the fold kept it)."""

from __future__ import annotations

from typing import Any

from domain.audit.chain import AuditEntry
from domain.governance.intents import ApprovalVerdict, Intent
from domain.organization.kinds import StaffRole
from domain.words import action, done_words, tool_words
from tests.integration.test_console_pages import _held, _review, _store, _write
from tests.support import APPROVAL_KEYS, Firm, signed, utc_now
from usecases import audit, governance, governance_review, organization
from usecases.needs_you import decided
from usecases.needs_you.decided import VERDICTS, DecidedLine


def _oracle(firm: Firm, actor_id: str) -> list[DecidedLine]:
    """The same lines, from the whole trail as ``actor_id`` may read it."""
    trail = audit.audit(firm.svc, firm.org, actor_id, verify=False)
    written = {e.intent_id for e in trail.entries if e.decision == "dispatched"}
    closed = {e.intent_id for e in trail.entries if e.decision == "expired"}
    proposed: dict[str, dict[str, Any]] = {}
    for e in trail.entries:
        intent = e.payload.get("intent")
        if e.intent_id and isinstance(intent, dict):
            proposed.setdefault(e.intent_id, intent)
    lines = []
    for e in reversed(trail.entries):
        if e.actor != actor_id or e.decision not in VERDICTS or not e.intent_id:
            continue
        lines.append(_line(e, written, closed, proposed.get(e.intent_id, {})))
    return lines


def _line(
    e: AuditEntry, written: set[Any], closed: set[Any], intent: dict[str, Any]
) -> DecidedLine:
    tool = str(intent.get("tool", ""))
    payload = intent.get("payload")
    cost = intent.get("cost_cents")
    what = (
        action(
            tool, payload if isinstance(payload, dict) else {}, cost if isinstance(cost, int) else 0
        )
        if tool
        else "an action of a project you may no longer read"
    )
    verdict = VERDICTS[e.decision]
    noun = tool_words(tool).removeprefix("a ").removeprefix("an ")
    if verdict == "tried to decide":
        became = f"the broker refused your decision: {e.payload.get('reason', e.rule)}"
    elif e.intent_id in written:
        became = done_words(tool)
    elif verdict == "approved" and e.intent_id not in closed:
        became = f"the {noun} goes ahead: its run carries it out"
    else:
        became = f"nothing was {done_words(tool)}"
    return DecidedLine(
        intent_id=e.intent_id or "",
        seq=e.seq,
        at=e.at,  # type: ignore[arg-type]
        verdict=verdict,
        what=what,
        became=became,
        done=e.intent_id in written,
        said=str(e.payload.get("request_reason") or ""),
    )


def _approve_as(firm: Firm, intent: Intent, who: str, accepted: bool = True) -> None:
    """``who`` approves ``intent``: accepted, or refused by the broker (on the record)."""
    store = _store(firm)
    request = signed(intent, who, ApprovalVerdict.APPROVE, now=utc_now(), store=store.governance)
    done = governance_review.review_hold(
        store.governance, firm.org, intent.run_id, request, 1, utc_now(), keys=APPROVAL_KEYS
    )
    assert done.review.accepted is accepted, done.review


def test_what_each_person_decided_reads_as_the_trail_says_and_withholds_a_lost_project(
    firm: Firm,
) -> None:
    paid, denied, ahead, ended, refused = (_held(firm) for _ in range(5))
    bens = organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.associate, "east", StaffRole.APPROVER),
    )
    _write(firm, _review(firm, paid, ApprovalVerdict.APPROVE))
    _review(firm, denied, ApprovalVerdict.DENY)
    _approve_as(firm, ahead, firm.associate)
    _review(firm, ended, ApprovalVerdict.APPROVE)
    governance.close(
        _store(firm).governance, firm.org, ended.id, "run_cancelled", "the run ended", utc_now()
    )
    organization.unstaff(firm.svc, firm.org, firm.founder, bens.id)
    _approve_as(firm, refused, firm.associate, accepted=False)  # no longer an approver

    adas = decided.decided_by(firm.svc, firm.org, firm.founder)
    assert [(d.intent_id, d.verdict, d.became) for d in adas] == [
        (ended.id, "approved", "nothing was paid"),
        (denied.id, "denied", "nothing was paid"),
        (paid.id, "approved", "paid"),
    ]
    assert adas == _oracle(firm, firm.founder)
    bens_lines = decided.decided_by(firm.svc, firm.org, firm.associate)
    assert [(d.intent_id, d.verdict) for d in bens_lines] == [
        (refused.id, "tried to decide"),
        (ahead.id, "approved"),
    ]
    assert bens_lines[1].became == "the payment goes ahead: its run carries it out"
    assert (
        bens_lines[0].became == "the broker refused your decision: Ben does not approve for Atlas"
    )
    assert bens_lines == _oracle(firm, firm.associate)
    assert len(decided.decided_by(firm.svc, firm.org, firm.founder, limit=2)) == 2

    # Ben leaves East altogether: what he decided there is withheld from him now.
    for s in firm.svc.directory.staffing(firm.org, firm.associate):
        if s.valid_until is None:
            organization.unstaff(firm.svc, firm.org, firm.founder, s.id)
    gone = decided.decided_by(firm.svc, firm.org, firm.associate)
    assert [d.what for d in gone] == ["an action of a project you may no longer read"] * 2
    assert all(d.said == "" for d in gone)
    assert gone == _oracle(firm, firm.associate)
