"""Standing that is not a person's: work a schedule starts acts on the schedule's written
standing, and a diagnostic agent narrows and reports, whoever asks
(:mod:`domain.governance.standing`)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.governance.broker import decide
from domain.governance.destinations import Counterparties
from domain.governance.intents import Intent, Outcome, Stage
from domain.governance.standing import HEARTBEAT, SCHEDULES, requester_words, scheduled
from domain.governance.values import BrokerSnapshot
from domain.organization.contracts import Charter, Principal, Staffing
from domain.organization.kinds import CharterStatus, PrincipalKind
from domain.tools import REGISTRY
from tests.unit.test_governance_broker_properties import (
    AGENT,
    DEFINITION,
    ESTABLISHED,
    NOW,
    ORG,
    PROP,
    email,
    payment,
    snapshot,
    staffed,
    staffing_row,
)

SENTINEL = AGENT.model_copy(update={"handle": "sentinel", "agent_kind": "diagnostic"})
EVERY_TOOL = Charter(
    principal_id=AGENT.id,
    version=2,
    status=CharterStatus.PUBLISHED,
    role="anything",
    purpose="A charter that grants every tool: standing, not the charter, must narrow.",
    tools=tuple(REGISTRY),
    budget_ceiling_cents=10**12,
    definition_pin=DEFINITION.version,
)
ADA = Principal(
    id="p-ada",
    org_id=ORG,
    kind=PrincipalKind.HUMAN,
    handle="ada",
    display_name="Ada",
    email="ada@harbor-vale.example",
)
INSIDE = Counterparties(
    ESTABLISHED.destinations,
    {"ada@harbor-vale.example": (staffing_row("east", principal=ADA),)},
    frozenset({"harbor-vale.example"}),
    NOW,
)


def snap(principal: Principal = AGENT) -> BrokerSnapshot:
    return replace(
        snapshot(staffing=staffed(("east", "west")), principal=principal, counterparties=INSIDE),
        charter=EVERY_TOOL,
    )


def finding(requested_by: str | None = HEARTBEAT) -> Intent:
    return Intent(
        id="i-finding",
        org_id=ORG,
        run_id="heartbeat-1",
        principal_id=AGENT.id,
        tool="findings.file",
        projects=("east",),
        payload={
            "kind": "expired_commitment",
            "subject": "cap-1",
            "severity": "warning",
            "summary": "The East cap expired.",
            "evidence": "c-1",
            "cites": "c-1",
        },
        cost_cents=0,
        justification="heartbeat",
        requested_by=requested_by,
    )


def by(intent: Intent, requested_by: str | None) -> Intent:
    return intent.model_copy(update={"requested_by": requested_by})


def test_the_heartbeat_files_findings_on_its_own_written_standing() -> None:
    got = decide(finding(), snap(SENTINEL))
    assert got.outcome is Outcome.ALLOW, got.reason


@pytest.mark.parametrize(
    ("agent", "paid_rule"),
    [(AGENT, "schedule_standing"), (SENTINEL, "diagnostic_standing")],
    ids=["finance agent", "sentinel"],
)
def test_work_a_schedule_started_never_pays_nor_writes(agent: Principal, paid_rule: str) -> None:
    # The agent's charter grants every tool and its staffing covers the reach: only
    # standing refuses (a diagnostic agent's own, first, for money).
    paid = decide(by(payment(5_000), HEARTBEAT), snap(agent))
    assert (paid.outcome, paid.rule) == (Outcome.REJECT, paid_rule)
    wrote = decide(by(email(to="ada@harbor-vale.example"), HEARTBEAT), snap(agent))
    assert (wrote.outcome, wrote.rule) == (Outcome.REJECT, "schedule_standing")
    assert wrote.reason.startswith("the run was started by the heartbeat (a schedule): it may")
    assert wrote.reason.endswith("not an email")


def test_a_schedule_with_no_written_standing_grants_nothing() -> None:
    got = decide(finding("schedule:nightly-sweep"), snap(SENTINEL))
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_unknown")
    assert "schedule:nightly-sweep" in got.reason


def test_a_diagnostic_agent_reports_to_the_firms_people_and_never_pays_whoever_asks() -> None:
    asked = by(email(to="ada@harbor-vale.example"), None)
    assert decide(asked, snap(SENTINEL)).outcome is Outcome.ALLOW
    outside = decide(by(email(to="cfo@example.com"), None), snap(SENTINEL))
    assert (outside.outcome, outside.rule, outside.stage) == (
        Outcome.REJECT,
        "diagnostic_standing",
        Stage.EGRESS,
    )
    assert "cfo@example.com is not one" in outside.reason
    # The same email from a finance agent is established, and goes.
    assert decide(by(email(to="cfo@example.com"), None), snap()).outcome is Outcome.ALLOW
    paid = decide(by(payment(5_000), None), snap(SENTINEL))
    assert (paid.outcome, paid.rule, paid.stage) == (
        Outcome.REJECT,
        "diagnostic_standing",
        Stage.IDENTITY,
    )
    assert "sentinel is a diagnostic agent" in paid.reason


def test_a_recipient_field_that_does_not_parse_is_no_one_inside() -> None:
    odd = by(email(to='"ada@harbor-vale.example"@evil.example'), None)
    got = decide(odd, snap(SENTINEL))
    assert (got.outcome, got.rule) == (Outcome.REJECT, "diagnostic_standing")


def test_who_asked_reads_as_an_owner_reads_it() -> None:
    assert requester_words(HEARTBEAT, {}) == "the heartbeat (a schedule)"
    assert requester_words("p-ada", {"p-ada": "ada"}) == "ada"
    assert requester_words("schedule:gone", {}) == "schedule:gone"
    assert scheduled("p-ada") is None
    assert scheduled(None) is None


@PROP
@given(
    tool=st.sampled_from(sorted(REGISTRY)),
    schedule=st.sampled_from(sorted(SCHEDULES)),
    diagnostic=st.booleans(),
)
def test_no_schedule_grants_a_tool_beyond_its_standing(
    tool: str, schedule: str, diagnostic: bool
) -> None:
    """Whatever the tool and the agent's charter, work a schedule started is let through
    only for a tool its standing names."""
    standing = SCHEDULES[schedule]
    spec = REGISTRY[tool]
    payload: dict[str, object] = {name: "x" for name in spec.params}
    for name, kind in spec.params.items():
        if kind.value == "integer":
            payload[name] = 0
    intent = finding(schedule).model_copy(update={"tool": tool, "payload": payload})
    got = decide(intent, snap(SENTINEL if diagnostic else AGENT))
    assert (got.outcome is Outcome.ALLOW) == (tool in standing.tools), got.reason


def test_a_requester_that_is_neither_a_person_nor_a_schedule_grants_nothing() -> None:
    got = decide(finding("p-nobody"), snap(SENTINEL))
    assert (got.outcome, got.rule) == (Outcome.REJECT, "requester_unknown")


@pytest.mark.parametrize(
    ("agent", "requested_by", "rule"),
    [(SENTINEL, None, "diagnostic_standing"), (AGENT, HEARTBEAT, "schedule_standing")],
    ids=["diagnostic agent", "schedule"],
)
def test_narrow_standing_moves_no_money_even_with_a_tool_it_may_use(
    agent: Principal, requested_by: str | None, rule: str
) -> None:
    costly = finding(requested_by).model_copy(update={"cost_cents": 5})
    got = decide(costly, snap(agent))
    assert (got.outcome, got.rule) == (Outcome.REJECT, rule)
    assert got.reason.endswith("it moves no money")


def test_a_diagnostic_agent_writes_to_people_not_to_a_domain() -> None:
    # The firm's people may use a public mail provider: its domain is no colleague.
    stranger = decide(by(email(to="someone@harbor-vale.example"), None), snap(SENTINEL))
    assert (stranger.outcome, stranger.rule) == (Outcome.REJECT, "diagnostic_standing")


def test_staffing_still_binds_a_schedules_work() -> None:
    unstaffed: tuple[Staffing, ...] = staffed(("west",))
    got = decide(finding(), replace(snap(SENTINEL), staffing=unstaffed))
    assert got.outcome is Outcome.REJECT
    assert (got.stage, got.rule) == (Stage.STAFFING, "not_staffed")
