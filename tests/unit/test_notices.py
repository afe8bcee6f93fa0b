"""What a notice says and to whom, and how a channel's answer is read: who decides an
item (approver on every project it reaches; the founder for the organization's own), one
notice an item up to five and one for more, a digest once a day, words an owner reads
(money, project names, the most worrying cause first; never a rule id), and each
channel's answer sorted into delivered, given up and tried again."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from domain.needs_you.items import Evidence, ItemKind, QueueItem
from domain.notices import (
    AT_ONCE,
    Channel,
    Console,
    NoticeAttempt,
    NoticeKind,
    Reply,
    attempt_draft,
    decides,
    digest,
    digest_due,
    http_reply,
    new_notices,
    outcome_of,
    smtp_reply,
    written_draft,
)
from domain.organization.contracts import Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from domain.relay import Outcome
from domain.words import Severity

NOW = datetime(2026, 12, 6, 9, 30, tzinfo=UTC)
CONSOLE = Console(url="https://hv.example/console/")
NAMES = {"east": "Atlas", "west": "Birch"}


def person(pid: str = "ada", kind: PrincipalKind = PrincipalKind.HUMAN, **kw: object) -> Principal:
    return Principal(
        id=pid,
        org_id="org",
        kind=kind,
        handle=pid,
        display_name=pid.title(),
        email=f"{pid}@hv.example",
        **kw,  # type: ignore[arg-type]
    )


def staffed(pid: str, project: str, role: StaffRole, until: datetime | None = None) -> Staffing:
    return Staffing(
        id=f"{pid}-{project}",
        principal_id=pid,
        project=project,
        role=role,
        valid_from=NOW - timedelta(days=30),
        valid_until=until,
    )


def held(subject: str = "i-1", reach: tuple[str, ...] = ("east",)) -> QueueItem:
    return QueueItem(
        kind=ItemKind.HELD_INTENT,
        subject_id=subject,
        title="A payment of $7,500.00 to Northwind, by Ledger",
        waiting_since=NOW - timedelta(minutes=5),
        due=NOW + timedelta(days=3),
        money_cents=750_000,
        reach=reach,
        evidence=(
            Evidence(label="already done", detail="Invoice NW-7 was already paid"),
            Evidence(label="reason", detail="It is over $5,000.00", severity=Severity.ROUTINE),
            Evidence(label="reason", detail="New bank details", severity=Severity.DANGER),
            Evidence(label="rule", detail="preflight: money_over_threshold+already_done"),
        ),
    )


def test_an_item_is_told_at_once_to_an_approver_on_every_project_it_reaches() -> None:
    ada, ben = person("ada"), person("ben")
    staffing = [
        staffed("ada", "east", StaffRole.APPROVER),
        staffed("ada", "west", StaffRole.APPROVER),
        staffed("ben", "east", StaffRole.APPROVER),
    ]
    assert decides(ada, staffing, held(reach=("east", "west")), "ada", NOW)
    assert not decides(ben, staffing, held(reach=("east", "west")), "ada", NOW)
    assert decides(ben, staffing, held(reach=("east",)), "ada", NOW)


def test_a_member_an_ended_approver_an_agent_and_a_suspended_person_are_not_told() -> None:
    item = held()
    assert not decides(person("ben"), [staffed("ben", "east", StaffRole.MEMBER)], item, "ada", NOW)
    ended = [staffed("cy", "east", StaffRole.APPROVER, until=NOW - timedelta(seconds=1))]
    assert not decides(person("cy"), ended, item, "ada", NOW)
    bot = person("ledger", kind=PrincipalKind.AGENT)
    assert not decides(bot, [staffed("ledger", "east", StaffRole.APPROVER)], item, "ada", NOW)
    away = person("dee", status=PrincipalStatus.SUSPENDED)
    assert not decides(away, [staffed("dee", "east", StaffRole.APPROVER)], item, "ada", NOW)


def test_an_item_of_the_whole_organization_is_told_to_the_founder_alone() -> None:
    item = held(reach=())
    assert decides(person("ada"), [], item, "ada", NOW)
    assert not decides(
        person("ben"), [staffed("ben", "east", StaffRole.APPROVER)], item, "ada", NOW
    )


def test_a_notice_reads_as_the_owner_reads_and_links_to_the_items_page() -> None:
    [notice] = new_notices(
        person("ada"), {Channel.EMAIL: "ada@hv.example"}, [held()], NAMES, CONSOLE, NOW
    )
    assert notice.subject == "Waiting for you: A payment of $7,500.00 to Northwind, by Ledger"
    assert notice.link == "https://hv.example/console/intents/i-1"
    assert notice.link in notice.body
    lines = notice.body.splitlines()
    # the danger first, then the causes as the queue orders them; the project by name
    assert lines.index("  - Invoice NW-7 was already paid") < lines.index("  - New bank details")
    assert "arrived 5 minutes ago · $7,500.00 · Atlas · expires in 3 days" in notice.body
    assert "money_over_threshold" not in notice.body and "preflight" not in notice.body
    assert "750000" not in notice.body and "east" not in notice.body


def test_an_item_other_than_a_hold_links_to_the_queue_opened_at_it() -> None:
    finding = held().model_copy(update={"kind": ItemKind.FINDING, "subject_id": "f-9"})
    assert CONSOLE.link(finding) == "https://hv.example/console/queue?item=finding:f-9"
    assert CONSOLE.link(None) == "https://hv.example/console/queue"


def test_each_channel_gets_its_own_notice_named_by_person_channel_and_item() -> None:
    to = {Channel.EMAIL: "ada@hv.example", Channel.SLACK: "U123"}
    first = new_notices(person("ada"), to, [held()], NAMES, CONSOLE, NOW)
    again = new_notices(person("ada"), to, [held()], NAMES, CONSOLE, NOW + timedelta(hours=1))
    assert [(n.channel, n.address) for n in first] == [
        (Channel.EMAIL, "ada@hv.example"),
        (Channel.SLACK, "U123"),
    ]
    assert [n.id for n in first] == [n.id for n in again]  # written once, whenever
    assert len({n.id for n in first}) == 2


def test_more_than_five_new_items_make_one_notice_that_lists_them() -> None:
    items = [held(subject=f"i-{k}") for k in range(AT_ONCE + 7)]
    [notice] = new_notices(person("ada"), {Channel.EMAIL: "a@x"}, items, NAMES, CONSOLE, NOW)
    assert notice.subject == "12 new things wait for you"
    assert notice.items == tuple(f"held_intent:i-{k}" for k in range(12))
    assert notice.link == "https://hv.example/console/queue"
    assert "… and 2 more." in notice.body
    assert (
        len(
            new_notices(person("ada"), {Channel.EMAIL: "a@x"}, items[:AT_ONCE], NAMES, CONSOLE, NOW)
        )
        == AT_ONCE
    )


def test_the_digest_is_due_once_a_day_from_its_hour() -> None:
    assert digest_due(NOW.replace(hour=7), 8, None) is None
    assert digest_due(NOW, 8, None) == date(2026, 12, 6)
    assert digest_due(NOW, 8, date(2026, 12, 5)) == date(2026, 12, 6)
    assert digest_due(NOW, 8, date(2026, 12, 6)) is None


def test_a_digest_counts_what_it_does_not_list_and_what_is_withheld() -> None:
    items = [held(subject=f"i-{k}") for k in range(12)]
    [notice] = digest(
        person("ben"), {Channel.TEAMS: "aad-1"}, items, 3, NAMES, CONSOLE, NOW.date(), NOW
    )
    assert notice.kind is NoticeKind.DIGEST
    assert notice.subject == "Today: 12 things wait for you"
    assert "… and 2 more in the console." in notice.body
    assert "(3 more concern projects outside yours.)" in notice.body
    assert notice.id.endswith(":teams:2026-12-06")
    assert digest(person("ben"), {Channel.TEAMS: "x"}, [], 3, NAMES, CONSOLE, NOW.date(), NOW) == []


def test_the_chain_keeps_who_which_item_and_channel_never_the_words_or_address() -> None:
    [notice] = new_notices(
        person("ada"), {Channel.EMAIL: "ada@hv.example"}, [held()], NAMES, CONSOLE, NOW
    )
    draft = written_draft(notice)
    said = str(draft.payload)
    assert draft.payload["items"] == ["held_intent:i-1"]
    assert "ada@hv.example" not in said and "Northwind" not in said and "$" not in said
    attempt = attempt_draft(
        NoticeAttempt(
            notice_id=notice.id,
            org_id="org",
            channel=Channel.EMAIL,
            attempt=2,
            outcome=Outcome.RETRIED,
            code=451,
            detail="x" * 500,
        )
    )
    assert attempt.event_key == f"notice:{notice.id}:2"
    assert len(str(attempt.payload["detail"])) == 200


def test_http_answers_are_delivered_given_up_or_tried_again() -> None:
    assert http_reply(200, "").delivered and http_reply(202, "").delivered
    for transient in (408, 425, 429, 500, 502, 503):
        reply = http_reply(transient, "")
        assert not reply.delivered and not reply.final, transient
    for final in (400, 401, 403, 404, 410):
        assert http_reply(final, "").final, final


def test_smtp_answers_are_delivered_given_up_or_tried_again() -> None:
    assert smtp_reply(250, "ok").delivered
    assert smtp_reply(550, "no such mailbox").final
    assert not smtp_reply(451, "later").final and not smtp_reply(None, "unreachable").final


@given(
    delivered=st.booleans(),
    final=st.booleans(),
    attempt=st.integers(min_value=1, max_value=10),
)
def test_a_notice_is_never_retried_once_delivered_or_given_up_and_never_more_than_five_times(
    delivered: bool, final: bool, attempt: int
) -> None:
    outcome = outcome_of(Reply(code=None, delivered=delivered, final=final), attempt)
    if delivered:
        assert outcome is Outcome.DELIVERED
    elif final or attempt >= 5:
        assert outcome is Outcome.BOUNCED
    else:
        assert outcome is Outcome.RETRIED


@given(st.lists(st.sampled_from(["east", "west", "north"]), unique=True, max_size=3))
def test_only_an_approver_of_all_its_projects_is_told_of_an_item(reach: list[str]) -> None:
    staffing = [
        staffed("ben", "east", StaffRole.APPROVER),
        staffed("ben", "west", StaffRole.MEMBER),
    ]
    told = decides(person("ben"), staffing, held(reach=tuple(reach)), "ada", NOW)
    assert told == (bool(reach) and set(reach) <= {"east"})
