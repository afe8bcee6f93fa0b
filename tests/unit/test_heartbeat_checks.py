"""The heartbeat's checks, pure: each finds what it must and nothing else, and Sentinel's
proposals are built from findings deterministically."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count

from hypothesis import given
from hypothesis import strategies as st

from domain.governance.intents import Outcome
from domain.heartbeat.checks import (
    CHECKS,
    FINDINGS_FILE,
    KEYS_CLOSE,
    PENDING_LIMIT,
    CheckKind,
    CommitmentFacts,
    FiledFinding,
    OpenIntent,
    OrgSnapshot,
    Severity,
    disagreeing_findings,
    expired_commitments,
    orphans,
    overdue_deliveries,
    pending_confirmations,
    proposals,
    run_checks,
    waiting_on_humans,
)
from domain.organization.contracts import Commitment, Delivery, Obligation, Provenance, SpendCap
from domain.organization.kinds import ReviewState

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
_ids = count()


def commitment(
    state: ReviewState = ReviewState.CONFIRMED,
    valid_until: datetime | None = None,
    constraint: SpendCap | Obligation | Delivery | None = None,
    projects: tuple[str, ...] = ("east",),
) -> Commitment:
    return Commitment(
        id=f"c{next(_ids)}",
        org_id="org",
        title="cap",
        constraint=constraint or SpendCap(limit_cents=100),
        provenance=Provenance(source="sow.pdf", recorded_by="ada"),
        state=state,
        projects=projects,
        valid_from=NOW - timedelta(days=30),
        valid_until=valid_until,
    )


def facts(c: Commitment, recorded: datetime = NOW - timedelta(days=30)) -> CommitmentFacts:
    return CommitmentFacts(commitment=c, recorded_at=recorded)


def open_intent(
    status: str | None, hold: bool = True, rule: str = "money_over_threshold"
) -> OpenIntent:
    n = next(_ids)
    return OpenIntent(
        intent_id=f"i{n}",
        run_id=f"r{n}",
        principal_id="ledger",
        tool="payments.pay",
        status=Outcome.HOLD if hold else Outcome.ALLOW,
        hold_open=hold,
        rule=rule,
        keys=(f"payments.pay:inv-{n}",),
        reach=("east",),
        since=NOW - timedelta(hours=1),
        workflow_id=f"agent-run-r{n}",
        workflow_status=status,
    )


def snap(**fields: object) -> OrgSnapshot:
    return OrgSnapshot(org_id="org", sentinel_id="sentinel", sentinel_projects=("east",), **fields)  # type: ignore[arg-type]


def test_a_confirmed_commitment_past_its_window_is_expired() -> None:
    gone = commitment(valid_until=NOW - timedelta(seconds=1))
    at_edge = commitment(valid_until=NOW)
    later = commitment(valid_until=NOW + timedelta(seconds=1))
    open_ended = commitment(valid_until=None)
    extracted = commitment(ReviewState.EXTRACTED, valid_until=NOW - timedelta(days=1))
    rejected = commitment(ReviewState.REJECTED, valid_until=NOW - timedelta(days=1))
    s = snap(
        commitments=tuple(facts(c) for c in (gone, at_edge, later, open_ended, extracted, rejected))
    )
    found = expired_commitments(s, NOW)
    assert [f.cites for f in found] == [gone.id, at_edge.id]
    assert all(f.kind is CheckKind.COMMITMENT_EXPIRED and f.projects == ("east",) for f in found)


def test_a_confirmed_delivery_past_its_due_date_is_overdue() -> None:
    due = commitment(constraint=Delivery(deliverable="index", due=NOW - timedelta(minutes=1)))
    not_yet = commitment(constraint=Delivery(deliverable="index", due=NOW + timedelta(days=1)))
    unconfirmed = commitment(
        ReviewState.EXTRACTED, constraint=Delivery(deliverable="x", due=NOW - timedelta(days=1))
    )
    obligation = commitment(constraint=Obligation(text="be nice"))
    kept = commitment(
        constraint=Delivery(deliverable="kept", due=NOW - timedelta(days=1)),
        valid_until=NOW - timedelta(hours=1),
    ).model_copy(update={"fulfilled_by": "ada", "fulfilled_at": NOW - timedelta(days=2)})
    s = snap(commitments=tuple(facts(c) for c in (due, not_yet, unconfirmed, obligation, kept)))
    (found,) = overdue_deliveries(s, NOW)
    assert expired_commitments(s, NOW) == []  # kept: neither overdue nor expired
    assert (found.cites, found.severity) == (due.id, Severity.CRITICAL)
    assert "index" in found.summary


@given(age=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=30)))
def test_a_confirmation_is_overdue_only_after_seven_days(age: timedelta) -> None:
    pending = commitment(ReviewState.EXTRACTED)
    confirmed = commitment(ReviewState.CONFIRMED)
    s = snap(commitments=(facts(pending, NOW - age), facts(confirmed, NOW - age)))
    found = pending_confirmations(s, NOW)
    assert [f.cites for f in found] == ([pending.id] if age > PENDING_LIMIT else [])


def _filed(principal: str, cites: str | None, n: int) -> FiledFinding:
    return FiledFinding(
        id=f"f{n}",
        org_id="o1",
        principal_id=principal,
        kind="note",
        subject=f"s{n}",
        cites=cites,
        projects=("east",),
        filed_at=NOW,
    )


@given(
    filings=st.lists(
        st.tuples(
            st.sampled_from(["sentinel", "scout", "ledger"]), st.sampled_from(["a", "b", None])
        ),
        max_size=8,
    )
)
def test_findings_of_different_principals_on_one_commitment_disagree(
    filings: list[tuple[str, str | None]],
) -> None:
    s = snap(findings=tuple(_filed(p, c, n) for n, (p, c) in enumerate(filings)))
    found = {f.cites: f for f in disagreeing_findings(s, NOW)}
    for cited in ("a", "b"):
        principals = {p for p, c in filings if c == cited}
        assert (cited in found) == (len(principals) >= 2)
        if cited in found:
            assert set(found[cited].evidence) == {
                f"f{n}" for n, (_, c) in enumerate(filings) if c == cited
            }
    assert None not in found


def test_holds_of_live_runs_wait_on_humans_but_collisions_do_not() -> None:
    human = open_intent("running")
    collision = open_intent("running", rule="collision")
    ended = open_intent("terminated")
    key_only = open_intent("running", hold=False, rule="all_stages_passed")
    s = snap(open_intents=(human, collision, ended, key_only))
    assert [f.evidence for f in waiting_on_humans(s, NOW)] == [(human.intent_id,)]


@given(
    status=st.sampled_from(
        [
            "running",
            "completed",
            "failed",
            "canceled",
            "terminated",
            "timed_out",
            "not_found",
            "continued_as_new",
            None,
        ]
    ),
    hold=st.booleans(),
)
def test_only_what_an_ended_run_left_open_is_orphaned(status: str | None, hold: bool) -> None:
    o = open_intent(status, hold=hold)
    found = orphans(snap(open_intents=(o,)), NOW)
    ended = status in {"completed", "failed", "canceled", "terminated", "timed_out", "not_found"}
    assert [f.close_intent for f in found] == ([o.intent_id] if ended else [])


def test_every_check_runs_and_reports_its_count_and_duration() -> None:
    ticks = iter(range(100))
    s = snap(
        commitments=(facts(commitment(valid_until=NOW - timedelta(days=1))),),
        open_intents=(open_intent("terminated"),),
    )
    findings, results = run_checks(s, NOW, lambda: float(next(ticks)))
    assert [r.name for r in results] == [name for name, _ in CHECKS]
    assert sum(r.count for r in results) == len(findings) == 2
    assert all(r.duration_ms == 1000.0 for r in results)


def test_sentinel_files_a_finding_once_and_closes_an_orphan() -> None:
    orphan = open_intent("terminated")
    s = snap(open_intents=(orphan,))
    (finding,) = orphans(s, NOW)
    filed, close = proposals(finding, s)
    assert (filed.tool, close.tool) == (FINDINGS_FILE, KEYS_CLOSE)
    assert filed.payload["subject"] == finding.subject and filed.projects == ("east",)
    assert close.payload["intent_id"] == orphan.intent_id and close.cost_cents == 0
    already = s.model_copy(
        update={
            "findings": (
                _filed("sentinel", None, 0).model_copy(update={"subject": finding.subject}),
            )
        }
    )
    assert [a.tool for a in proposals(finding, already)] == [KEYS_CLOSE]


def test_an_org_wide_finding_is_filed_where_sentinel_is_staffed() -> None:
    org_wide = commitment(valid_until=NOW - timedelta(days=1), projects=())
    s = snap(commitments=(facts(org_wide),))
    (finding,) = expired_commitments(s, NOW)
    # Filed, and spending held, where Sentinel is staffed: never across a wall.
    filed, held = proposals(finding, s)
    assert (filed.tool, held.tool) == (FINDINGS_FILE, "holds.place")
    assert filed.projects == held.projects == ("east",)
    assert filed.payload["cites"] == held.payload["cites"] == org_wide.id


def test_proposals_are_deterministic() -> None:
    s = snap(open_intents=(open_intent("failed"),))
    (finding,) = orphans(s, NOW)
    assert proposals(finding, s) == proposals(finding, s)


def test_a_subject_proposed_lately_is_not_proposed_again() -> None:
    expired = commitment(valid_until=NOW - timedelta(days=1))
    s = snap(commitments=(facts(expired),))
    (finding,) = expired_commitments(s, NOW)
    lately = s.model_copy(
        update={
            "recently_proposed": (finding.subject,),
            "recently_proposed_holds": (finding.subject,),
        }
    )
    assert [a.tool for a in proposals(finding, s)] == [FINDINGS_FILE, "holds.place"]
    assert proposals(finding, lately) == []
