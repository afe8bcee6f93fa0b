"""The needs-you queue's ranking and the autonomy metrics, as pure functions."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.audit.chain import AuditEntry
from domain.governance.records import run_failure_draft
from domain.needs_you.chain import read_chain, retry_draft
from domain.needs_you.items import (
    BASE,
    MONEY_MOST,
    PRESSURE,
    STALE,
    ItemKind,
    QueueItem,
    WithheldItem,
    for_reader,
    rank,
    urgency,
)
from domain.needs_you.metrics import (
    NotAvailable,
    ProcessPrecision,
    ResolutionTimes,
    autonomy,
    finding_resolution,
    process_precision,
)

PROP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

# ------------------------------------------------------------------------------ ranking

kinds = st.sampled_from(list(ItemKind))
instants = st.integers(min_value=0, max_value=60 * 86_400).map(lambda s: T0 + timedelta(seconds=s))
moneys = st.none() | st.integers(min_value=0, max_value=10**12)


@st.composite
def queue_items(draw: st.DrawFn) -> QueueItem:
    since = draw(instants)
    due = draw(st.none() | st.integers(min_value=1, max_value=30 * 86_400))
    return QueueItem(
        kind=draw(kinds),
        subject_id=draw(st.uuids()).hex,
        title="t",
        waiting_since=since,
        due=None if due is None else since + timedelta(seconds=due),
        money_cents=draw(moneys),
    )


@PROP
@given(st.lists(queue_items(), max_size=12, unique_by=lambda i: i.key), st.randoms())
def test_ranking_is_the_same_whatever_order_the_items_come_in(
    items: list[QueueItem], rnd: Any
) -> None:
    now = T0 + timedelta(days=61)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    first, second = rank(items, now), rank(shuffled, now)
    assert [i.key for i in first] == [i.key for i in second]
    assert sorted(i.key for i in first) == sorted(i.key for i in items)
    assert [i.urgency for i in first] == sorted((i.urgency for i in first), reverse=True)


@PROP
@given(queue_items(), st.integers(min_value=0, max_value=10**12))
def test_more_money_at_stake_is_never_less_urgent(item: QueueItem, more: int) -> None:
    now = T0 + timedelta(days=61)
    richer = item.model_copy(update={"money_cents": (item.money_cents or 0) + more})
    assert urgency(richer, now) >= urgency(item, now)


@PROP
@given(queue_items(), st.integers(min_value=0, max_value=90 * 86_400))
def test_waiting_longer_is_never_less_urgent(item: QueueItem, later: int) -> None:
    now = T0 + timedelta(days=61)
    assert urgency(item, now + timedelta(seconds=later)) >= urgency(item, now)


@PROP
@given(queue_items())
def test_urgency_is_bounded_by_its_parts(item: QueueItem) -> None:
    score = urgency(item, T0 + timedelta(days=400))
    assert BASE[item.kind] <= score <= BASE[item.kind] + PRESSURE + STALE + MONEY_MOST


def hold(subject: str, since: datetime, cents: int) -> QueueItem:
    return QueueItem(
        kind=ItemKind.HELD_INTENT,
        subject_id=subject,
        title=subject,
        waiting_since=since,
        due=since + timedelta(days=7),
        money_cents=cents,
    )


def test_a_hold_near_its_expiry_outranks_a_fresh_one_of_the_same_amount() -> None:
    now = T0 + timedelta(days=7)
    old, fresh = hold("old", T0 + timedelta(hours=1), 250_000), hold("new", now, 250_000)
    assert [i.subject_id for i in rank([fresh, old], now)] == ["old", "new"]


def test_a_large_payment_outranks_a_small_one_held_at_the_same_time() -> None:
    small, large = hold("small", T0, 150_000), hold("large", T0, 90_000_000)
    assert [i.subject_id for i in rank([small, large], T0)] == ["large", "small"]


def test_a_hold_outranks_a_failed_run_and_a_run_outranks_a_pending_commitment() -> None:
    def item(kind: ItemKind) -> QueueItem:
        return QueueItem(kind=kind, subject_id=kind.value, title="t", waiting_since=T0)

    ranked = rank(
        [item(ItemKind.COMMITMENT), item(ItemKind.FAILED_RUN), hold("h", T0, 0)],
        T0 + timedelta(hours=1),
    )
    assert [i.kind for i in ranked] == [
        ItemKind.HELD_INTENT,
        ItemKind.FAILED_RUN,
        ItemKind.COMMITMENT,
    ]


def test_a_confirmation_pending_over_a_week_gains_the_stale_bonus() -> None:
    pending = QueueItem(kind=ItemKind.COMMITMENT, subject_id="c", title="t", waiting_since=T0)
    week = urgency(pending, T0 + timedelta(days=7))
    assert urgency(pending, T0 + timedelta(days=7, hours=1)) == week + STALE


def test_ties_go_to_the_longest_waiting_then_the_key() -> None:
    a = QueueItem(kind=ItemKind.COMMITMENT, subject_id="a", title="t", waiting_since=T0)
    b = a.model_copy(update={"subject_id": "b"})
    older = a.model_copy(update={"subject_id": "z", "waiting_since": T0 - timedelta(minutes=1)})
    now = T0 + timedelta(minutes=5)
    assert [i.subject_id for i in rank([b, a, older], now)] == ["z", "a", "b"]


projects = st.frozensets(st.sampled_from(["east", "west", "north"]), max_size=3)


@PROP
@given(st.lists(st.tuples(queue_items(), projects), max_size=10), st.none() | projects)
def test_a_reader_sees_its_items_in_order_and_nothing_of_the_others(
    drawn: list[tuple[QueueItem, frozenset[str]]], readable: frozenset[str] | None
) -> None:
    items = [item.model_copy(update={"reach": tuple(sorted(reach))}) for item, reach in drawn]
    ranked = rank(items, T0 + timedelta(days=61))
    seen = for_reader(ranked, readable)
    assert len(seen) == len(ranked)
    mine = [i for i in ranked if readable is None or set(i.reach) <= readable]
    assert seen[: len(mine)] == mine
    assert seen[len(mine) :] == [WithheldItem()] * (len(ranked) - len(mine))
    assert all(i.model_dump() == {"kind": "withheld", "reason": WithheldItem().reason}
               for i in seen[len(mine) :])  # fmt: skip


# ------------------------------------------------------------------------- the chain


class Chain:
    """A hand-written chain: entries appended in order, one second apart."""

    def __init__(self) -> None:
        self.entries: list[AuditEntry] = []
        self._seq: Iterator[int] = count(1)

    def add(
        self,
        decision: str,
        *,
        intent: str | None = None,
        run: str = "r1",
        stage: str = "approval",
        rule: str = "r",
        seconds: float | None = None,
        actor: str = "broker",
        **payload: Any,
    ) -> AuditEntry:
        seq = next(self._seq)
        when = T0 + timedelta(seconds=seq if seconds is None else seconds)
        if intent is not None and decision in ("allow", "reject", "hold"):
            payload = {
                "intent": {
                    "id": intent,
                    "run_id": run,
                    "principal_id": "agent",
                    "tool": "payments.pay",
                    "payload": {"amount_cents": 250_000},
                    "cost_cents": 250_000,
                    "justification": "due",
                },
                "reason": payload.pop("reason", "why"),
                "release": payload.pop("release", []),
                "reach": ["east"],
                "evidence": [],
                **payload,
            }
        elif intent is None:
            payload = {"run_id": run, **payload}
        entry = AuditEntry(
            org_id="o",
            seq=seq,
            at=when.isoformat(),
            event_key=f"k{seq}",
            actor=actor,
            intent_id=intent,
            decision=decision,
            stage=stage,
            rule=rule,
            payload=payload,
            prev_hash="0" * 64,
            entry_hash="0" * 64,
        )
        self.entries.append(entry)
        return entry


def test_an_open_hold_carries_its_reasons_release_and_refused_reviews() -> None:
    chain = Chain()
    chain.add("hold", intent="i1", rule="over_threshold", release=["an approver on east"])
    chain.add("review_refused", intent="i1", stage="human_review", rule="not_authorized",
              actor="p_ben", verdict="approve", reason="not an approver")  # fmt: skip
    chain.add("hold", intent="i1", rule="over_threshold", release=["an approver on east"])
    (held,) = read_chain(chain.entries).open_holds()
    assert held.intent_id == "i1" and held.run_id == "r1"
    assert held.held_at == T0 + timedelta(seconds=1)  # the re-hold keeps the first time
    assert held.release == ("an approver on east",)
    assert held.refused_reviews == ("approve by p_ben: not_authorized — not an approver",)
    assert held.audit_seq == 3


def test_a_decided_hold_leaves_and_its_time_to_resolution_is_measured() -> None:
    chain = Chain()
    chain.add("hold", intent="i1", seconds=0)
    chain.add("approved", intent="i1", stage="human_review", seconds=90)
    chain.add("dispatched", intent="i1", stage="dispatch", seconds=91)
    chain.add("hold", intent="i2", seconds=100)
    chain.add("denied", intent="i2", stage="human_review", seconds=400)
    chain.add("hold", intent="i3", seconds=500)
    story = read_chain(chain.entries)
    assert [h.intent_id for h in story.open_holds()] == ["i3"]
    times = autonomy(story, T0 + timedelta(seconds=600)).hold_resolution
    assert (times.resolved, times.open) == (2, 1)
    assert times.by_outcome == {"approved": 1, "denied": 1}
    assert times.median_seconds == 90 and times.max_seconds == 300
    assert times.oldest_open_seconds == 100


def test_failed_runs_come_from_refusals_and_failure_closes_until_retried() -> None:
    chain = Chain()
    chain.add("reject", run="r-resolve", stage="resolve", rule="agent_inactive", reason="off")
    chain.add("reject", run="r-parse", stage="parser", rule="malformed_json", reason="bad")
    chain.add("allow", intent="i9", run="r-fail")
    chain.add("expired", intent="i9", stage="human_review", rule="run_failed",
              reason="the run ended before this intent was done: boom")  # fmt: skip
    chain.add("hold", intent="i8", run="r-ok")
    chain.add("expired", intent="i8", stage="human_review", rule="hold_expired")
    story = read_chain(chain.entries)
    failed = {f.run_id: f for f in story.failed_runs()}
    assert set(failed) == {"r-resolve", "r-parse", "r-fail"}
    assert failed["r-fail"].reason.endswith("boom") and failed["r-resolve"].rule == "agent_inactive"
    draft = retry_draft("r-resolve", "r-new", "p_ada")
    chain.add(draft.decision, run="r-resolve", stage=draft.stage, rule=draft.rule,
              retry_run_id="r-new")  # fmt: skip
    assert {f.run_id for f in read_chain(chain.entries).failed_runs()} == {"r-parse", "r-fail"}


def test_a_run_failing_before_any_intent_is_failed_by_its_own_entry_once() -> None:
    """The model never answered: the run's own ``run_failed`` entry; a run whose intents
    were closed and then recorded its end is still one failed run, as its own entry
    says (it carries the error's type, hence the class)."""
    chain = Chain()
    model = run_failure_draft("r-model", "agent", "run_failed", "model unavailable")
    chain.add(model.decision, run="r-model", stage=model.stage, rule=model.rule,
              reason="model unavailable")  # fmt: skip
    chain.add("allow", intent="i1", run="r-both")
    chain.add("expired", intent="i1", stage="human_review", rule="run_cancelled",
              reason="the run ended before this intent was done")  # fmt: skip
    chain.add("ended_badly", run="r-both", stage="run", rule="run_cancelled", reason="cancelled")
    failed = read_chain(chain.entries).failed_runs()
    assert [(f.run_id, f.rule, f.stage) for f in failed] == [
        ("r-model", "run_failed", "run"),
        ("r-both", "run_cancelled", "run"),
    ]
    assert failed[0].reason == "model unavailable"


def test_work_without_a_human_escalations_and_blocks_by_stage() -> None:
    chain = Chain()
    chain.add("allow", intent="a1", run="auto")
    chain.add("dispatched", intent="a1", stage="dispatch")
    chain.add("allow", intent="a2", run="auto")
    chain.add("dispatched", intent="a2", stage="dispatch")
    chain.add("allow", intent="b1", run="mixed")
    chain.add("dispatched", intent="b1", stage="dispatch")
    chain.add("hold", intent="b2", run="mixed")
    chain.add("approved", intent="b2", stage="human_review")
    chain.add("dispatched", intent="b2", stage="dispatch")
    chain.add("reject", intent="c1", run="walled", stage="scope_barriers", rule="barrier")
    chain.add("reject", intent="c2", run="walled", stage="commitments", rule="spend_cap")
    chain.add("reject", run="refused", stage="parser", rule="malformed_json")
    m = autonomy(read_chain(chain.entries), T0 + timedelta(hours=1))
    assert (m.work_without_human.runs, m.work_without_human.runs_with_intents) == (1, 3)
    assert (m.work_without_human.intents, m.work_without_human.intents_dispatched) == (3, 4)
    assert (m.escalated.held, m.escalated.decided) == (1, 6)
    assert m.blocked_by_stage == {"commitments": 1, "parser": 1, "scope_barriers": 1}


def test_metrics_without_a_source_say_why_and_give_no_number() -> None:
    m = autonomy(read_chain([]), T0)
    assert isinstance(m.repeated_process_precision, NotAvailable)
    assert "process offers" in m.repeated_process_precision.reason
    assert isinstance(m.finding_resolution, NotAvailable)
    assert m.work_without_human.share is None and m.escalated.share is None
    assert m.hold_resolution.median_seconds is None


def test_findings_time_to_resolution_counts_median_and_max() -> None:
    hour = timedelta(hours=1)
    spans = [(T0, T0 + 2 * hour), (T0, T0 + 5 * hour), (T0, T0 + 9 * hour), (T0, None)]
    times = finding_resolution(spans, T0 + 24 * hour)
    assert isinstance(times, ResolutionTimes)
    assert (times.resolved, times.open) == (3, 1)
    assert times.median_seconds == 5 * 3600 and times.max_seconds == 9 * 3600
    assert times.oldest_open_seconds == 24 * 3600
    m = autonomy(read_chain([]), T0, findings=times)
    assert m.finding_resolution == times
    # Flagged but none resolved yet is data too: nothing resolved, one waiting.
    waiting = finding_resolution([(T0, None)], T0 + hour)
    assert isinstance(waiting, ResolutionTimes) and waiting.median_seconds is None
    assert isinstance(finding_resolution([], T0), NotAvailable)


def test_precision_is_confirmed_over_offers_of_a_repeated_process() -> None:
    # (confirmed, episodes): a single episode is no repeated process and counts for
    # nothing unless a human confirmed it anyway.
    p = process_precision([(True, 3), (False, 2), (False, 4), (False, 1), (True, 1)])
    assert p == ProcessPrecision(confirmed=2, offered=4, share=0.5)
    assert isinstance(process_precision([(False, 1)]), NotAvailable)
    none = process_precision([])
    assert isinstance(none, NotAvailable) and "process offers" in none.reason
    m = autonomy(read_chain([]), T0, process_precision=p)
    assert m.repeated_process_precision == p


@PROP
@given(st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=6)), max_size=20))
def test_precision_is_a_share_of_what_was_offered(offers: list[tuple[bool, int]]) -> None:
    p = process_precision(offers)
    if isinstance(p, NotAvailable):
        assert all(not confirmed and episodes < 2 for confirmed, episodes in offers)
    else:
        assert 0 <= p.confirmed <= p.offered <= len(offers)
        assert p.confirmed == sum(confirmed for confirmed, _ in offers)


stories = st.lists(
    st.tuples(
        st.sampled_from(["allow", "reject", "hold"]),
        st.sampled_from([None, "approved", "denied", "expired"]),
        st.booleans(),
        st.sampled_from(["r1", "r2", "r3"]),
    ),
    max_size=20,
)


@PROP
@given(stories)
def test_metrics_agree_with_themselves(story: list[tuple[str, str | None, bool, str]]) -> None:
    chain = Chain()
    for n, (first, end, dispatch, run) in enumerate(story):
        intent = f"i{n}"
        chain.add(first, intent=intent, run=run, stage="approval")
        if first == "hold" and end is not None:
            chain.add(end, intent=intent, stage="human_review")
        if dispatch and (first == "allow" or end == "approved"):
            chain.add("dispatched", intent=intent, stage="dispatch")
    m = autonomy(read_chain(chain.entries), T0 + timedelta(days=1))
    work = m.work_without_human
    assert work.intents <= work.intents_dispatched <= m.escalated.decided == len(story)
    assert work.runs <= work.runs_with_intents
    assert m.escalated.held == m.hold_resolution.resolved + m.hold_resolution.open
    assert sum(m.blocked_by_stage.values()) == sum(1 for s in story if s[0] == "reject")
    held = read_chain(chain.entries).open_holds()
    assert len(held) == m.hold_resolution.open


def test_a_run_whose_every_intent_was_stopped_is_a_failed_run_of_the_last_stop() -> None:
    chain = Chain()
    chain.add("reject", intent="w1", run="walled", stage="scope_barriers", rule="barrier_crossed")
    chain.add("hold", intent="w2", run="walled", stage="approval", rule="money_over_threshold")
    chain.add("denied", intent="w2", run="walled", stage="human_review", rule="denied_by_authority")
    chain.add("allow", intent="ok", run="mixed")
    chain.add("dispatched", intent="ok", run="mixed", stage="dispatch")
    chain.add("reject", intent="no", run="mixed", stage="scope_barriers", rule="barrier_crossed")
    chain.add("hold", intent="h", run="waiting")
    chain.add("reject", intent="c1", run="capped", stage="commitments", rule="spend_cap")
    story = read_chain(chain.entries)
    stopped = {f.run_id: f for f in story.stopped_runs()}
    # Some work done (mixed) or still waiting (waiting): not failed.
    assert set(stopped) == {"walled", "capped"}
    assert (stopped["walled"].rule, stopped["walled"].failure) == (
        "denied_by_authority",
        "commitment",
    )
    assert stopped["capped"].failure == "commitment"


def test_retries_are_counted_along_their_lineage() -> None:
    chain = Chain()
    for run, retry in (("r0", "r1"), ("r1", "r2"), ("x0", "x1")):
        draft = retry_draft(run, retry, "p_ada")
        chain.add(draft.decision, run=run, stage=draft.stage, rule=draft.rule,
                  retry_run_id=retry)  # fmt: skip
    story = read_chain(chain.entries)
    assert [story.tries(r) for r in ("r0", "r1", "r2", "x1", "other")] == [0, 1, 2, 1, 0]
