"""The in-memory governance unit of work (``tests.fakes.governance``) against the real one
on SQLite: the same scenarios of use cases, run on a fresh firm of each, must come to the
same decisions and reviews and leave chains of the same shape (every entry's stage,
decision, rule, actor, intent, kind of event key and payload fields, in order), and both
chains must verify. Ids, digests and times differ between the two worlds; they are
compared through the names a scenario gives them.

When this fails, the fake has drifted from ``adapters.store.governance`` (or the SQL
store changed): fix the fake, never the scenario.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

from adapters.store.store import Store
from domain.audit.crosscheck import CONFIGURATION
from domain.audit.ports import AuditReader
from domain.governance.intents import ApprovalVerdict, Decision, Intent, Stage
from domain.governance.ports import Connector, GovernanceStore
from domain.governance.usage import usage_draft
from domain.governance.values import ReviewResult
from domain.organization.contracts import SpendCap
from domain.runs.run import ReviewOutcome
from tests.fakes.governance import FakeFirm, FakeGovernance, _Book
from tests.support import (
    APPROVAL_KEYS,
    TEST_KEYS,
    Firm,
    make_settings,
    payment_intent,
    signed,
    utc_now,
    wire,
)
from usecases import commitments, governance, governance_review
from worker.bootstrap import build_connectors


@dataclass
class World:
    """A firm as a scenario sees it, on either store."""

    store: GovernanceStore
    audit: AuditReader
    org: str
    founder: str
    associate: str
    agents: dict[str, str]
    connectors: Mapping[tuple[str, str], Connector]
    add_cap: Callable[[int], None]
    base: int
    """Entries on the chain before the scenario (the SQL firm's configuration)."""
    names: dict[str, str] = field(default_factory=dict)
    """Ids as the scenario names them."""
    said: list[Any] = field(default_factory=list)

    def now(self) -> datetime:
        return utc_now()

    def pay(self, amount: int, invoice: str | None = None, run: str = "run-1", **kw: Any) -> Intent:
        intent = payment_intent(self.org, self.agents["ledger"], amount, invoice, run_id=run)
        intent = intent.model_copy(update=kw) if kw else intent
        self.names[intent.id] = f"intent-{len(self.names)}"
        return intent

    @property
    def people(self) -> dict[str, str]:
        return {
            self.founder: "founder",
            self.associate: "associate",
            **{v: k for k, v in self.agents.items()},
        }

    def name(self, value: str | None) -> str | None:
        return None if value is None else {**self.people, **self.names}.get(value, value)

    def decide(self, intent: Intent, **kw: Any) -> Decision:
        decision = governance.decide(self.store, intent, self.now(), **kw)
        self.note(decision)
        return decision

    def review(
        self,
        request: Any,
        attempt: int,
        run: str = "run-1",
        undecodable: str | None = None,
    ) -> ReviewOutcome:
        outcome = governance_review.review_hold(
            self.store,
            self.org,
            run,
            request,
            attempt,
            self.now(),
            keys=APPROVAL_KEYS,
            undecodable=undecodable,
        )
        self.note(outcome.review)
        self.note(outcome.decision)
        return outcome

    def sign(self, intent: Intent, who: str = "founder", **kw: Any) -> Any:
        approver = {"founder": self.founder, "associate": self.associate, **self.agents}[who]
        return signed(intent, approver, now=self.now(), store=self.store, **kw)

    def note(self, said: Decision | ReviewResult | None) -> None:
        """Keep what a use case answered, as the scenario names it."""
        if isinstance(said, Decision):
            self.said.append(
                (
                    said.outcome,
                    said.stage,
                    said.rule,
                    said.reach,
                    tuple(self.name(e) for e in said.evidence),
                    self.name(said.intent_id),
                    None if said.audit_seq is None else self.seq(said.audit_seq),
                    said.mode,
                    said.enforced,
                )
            )
        elif isinstance(said, ReviewResult):
            self.said.append((said.accepted, said.outcome, said.rule))
        else:
            self.said.append(said)

    def seq(self, seq: int) -> int:
        """Where entry ``seq`` stands in the scenario's part of the chain, configuration
        changes left out (the fake keeps its configuration off the chain)."""
        config = [
            e.seq for e in self.audit.entries(self.org, self.base) if e.stage == CONFIGURATION
        ]
        return seq - self.base - sum(1 for c in config if c < seq)

    def chain(self) -> list[tuple[Any, ...]]:
        """The scenario's part of the chain, as named, configuration changes left out."""
        return [
            (
                self.seq(e.seq),
                e.stage,
                e.decision,
                e.rule,
                self.name(e.actor),
                self.name(e.intent_id),
                e.event_key.partition(":")[0],
                tuple(sorted(e.payload)),
            )
            for e in self.audit.entries(self.org, self.base)
            if e.stage != CONFIGURATION
        ]


@pytest.fixture
def sql_world(sqlite_url: str) -> Iterator[World]:
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    firm = Firm(wire(store, None, make_settings(), utc_now))

    def add_cap(limit: int) -> None:
        cap = commitments.add_commitment(
            firm.svc,
            firm.org,
            firm.founder,
            commitments.AddCommitment(
                "cap", SpendCap(limit_cents=limit), "letter", projects=("east",)
            ),
        )
        commitments.confirm(firm.svc, cap.id, firm.founder)

    world = World(
        store=store.governance,
        audit=store.audit,
        org=firm.org,
        founder=firm.founder,
        associate=firm.associate,
        agents=firm.agents,
        connectors=build_connectors(store, utc_now),
        add_cap=add_cap,
        base=len(store.audit.entries(firm.org)),
    )
    yield world
    store.close()


@pytest.fixture
def fake_world() -> World:
    firm = FakeFirm(FakeGovernance(TEST_KEYS), clock=utc_now)

    def add_cap(limit: int) -> None:
        firm.organization.add_commitment("cap", SpendCap(limit_cents=limit), ("east",), utc_now())

    return World(
        store=firm.store,
        audit=firm.store,
        org=firm.org,
        founder=firm.founder,
        associate=firm.associate,
        agents=firm.agents,
        connectors=firm.connectors(),
        add_cap=add_cap,
        base=0,
    )


# --- scenarios ------------------------------------------------------------------------------


def allowed(w: World) -> None:
    intent = w.pay(50_000)
    w.decide(intent)
    w.decide(intent)  # a retry


def barrier(w: World) -> None:
    w.decide(w.pay(50_000, references=("birch-cim",)))
    w.decide(w.pay(50_000, references=("atlas-kickoff",)))
    w.decide(w.pay(50_000, references=("no-such-record",)))


def held_then_approved(w: World) -> None:
    intent = w.pay(200_000)
    w.decide(intent)
    w.review(w.sign(intent), 1)


def replayed_proof(w: World) -> None:
    intent = w.pay(200_000)
    w.decide(intent)
    request = w.sign(intent)
    w.review(request, 1)
    w.review(request, 1)  # retried: answered as recorded
    w.review(request, 2)  # replayed: spent


def denied(w: World) -> None:
    intent = w.pay(200_000, invoice="INV-1")
    w.decide(intent)
    w.review(w.sign(intent, verdict=ApprovalVerdict.DENY), 1)
    w.decide(w.pay(20_000, invoice="INV-1", run="run-2"))


def refusals(w: World) -> None:
    intent = w.pay(200_000)
    w.decide(intent)
    w.review(w.sign(intent, "associate"), 1)
    w.review(w.sign(intent, "ledger"), 2)
    w.review(w.sign(intent).model_copy(update={"proof": None}), 3)
    w.review(w.sign(intent, run_id="run-other"), 4)
    w.review(w.sign(intent), 5, run="run-other")
    w.review(None, 6, undecodable="approve: not an ApprovalSignal")
    w.review(w.sign(intent), 7)


def cap_takes_the_approval(w: World) -> None:
    w.add_cap(300_000)
    big, small = w.pay(250_000, run="run-big"), w.pay(90_000, run="run-small")
    w.decide(big)
    ada = w.sign(big)
    unsent = w.sign(big)
    w.decide(small)
    w.review(ada, 1, "run-big")
    w.review(ada, 2, "run-big")
    w.review(unsent, 3, "run-big")
    w.review(w.sign(big), 4, "run-big")
    w.decide(w.pay(60_000, run="run-third"))


def model_charges(w: World) -> None:
    draft = usage_draft("run-1", w.agents["ledger"], "scripted", "m", 10, 10, 1_450_000)
    governance.record_usage(w.store, w.org, draft, w.now())
    governance.record_usage(w.store, w.org, draft, w.now())  # once per run
    w.decide(w.pay(60_000))
    w.decide(w.pay(60_000, run="run-2"))


def poisoned(w: World) -> None:
    w.note(governance.poison(w.store, w.org, "entry altered", w.now()))  # type: ignore[arg-type]
    w.note(governance.poison(w.store, w.org, "again", w.now()))  # type: ignore[arg-type]
    w.decide(w.pay(10_000))
    verified = w.audit.verify(w.org)
    governance.unpoison(w.store, w.org, w.founder, "checked", verified, w.now())
    w.decide(w.pay(10_000))


def collide_dispatch_repeat(w: World) -> None:
    first, second = w.pay(10_000, "INV-9", "run-1"), w.pay(10_000, "INV-9", "run-2")
    allowed = w.decide(first)
    w.decide(second)
    w.note(governance_review.recheck(w.store, w.org, second.id, w.now()))
    governance.dispatch(w.store, w.connectors, w.org, allowed, w.now())
    governance.dispatch(w.store, w.connectors, w.org, allowed, w.now())  # a replay
    repeat = governance_review.recheck(w.store, w.org, second.id, w.now())
    w.note(repeat)
    w.review(w.sign(second), 1, "run-2")
    w.decide(w.pay(10_000, "", "run-3"))  # names no invoice: waits for every payment


def closed(w: World) -> None:
    intent = w.pay(50_000, "INV-3")
    w.decide(intent)
    w.note(governance.close(w.store, w.org, intent.id, "run_failed", "gave up", w.now()))
    w.note(governance.close(w.store, w.org, intent.id, "run_failed", "again", w.now()))
    w.decide(w.pay(50_000, "INV-3", "run-2"))
    held = w.pay(200_000, "INV-4", "run-3")
    w.decide(held)
    w.note(governance.close(w.store, w.org, held.id, "hold_expired", "no one", w.now()))
    w.review(w.sign(held), 1, "run-3")


def batch(w: World) -> None:
    intents = [w.pay(a, i, f"run-{n}") for n, (a, i) in enumerate([(10_000, "A"), (20_000, "A")])]
    intents += [w.pay(150_000, "B", "run-x"), w.pay(10_000, "", "run-y")]
    for decision in governance.decide_many(w.store, intents, w.now()):
        w.note(decision)
    for decision in governance.decide_many(w.store, intents[:2], w.now()):
        w.note(decision)


def broken_stage(w: World) -> None:
    def broken(_: object) -> None:
        raise RuntimeError("boom")

    w.decide(w.pay(10_000), stages=((Stage.IDENTITY, broken),))
    w.decide(w.pay(10_000, run="run-2"), stages=())  # nothing asked: allowed


def run_records(w: World) -> None:
    rejected = governance.RunRef(w.org, "run-1", w.agents["ledger"])
    governance.record_run_rejection(
        w.store, rejected, stage="parser", rule="x", payload={}, now=w.now()
    )
    failed = governance.RunRef(w.org, "run-2", w.agents["ledger"])
    governance.record_run_failure(w.store, failed, rule="r", reason="why", now=w.now())
    governance.record_run_failure(w.store, failed, rule="r", reason="why", now=w.now())
    asked = governance.RunRef(w.org, "run-3", w.agents["orion"])
    governance.record_question(w.store, asked, question="q?", summary="s", now=w.now())


SCENARIOS = [
    allowed,
    barrier,
    held_then_approved,
    replayed_proof,
    denied,
    refusals,
    cap_takes_the_approval,
    model_charges,
    poisoned,
    collide_dispatch_repeat,
    closed,
    batch,
    broken_stage,
    run_records,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_the_fake_decides_and_records_as_the_sql_store_does(
    scenario: Callable[[World], None], sql_world: World, fake_world: World
) -> None:
    scenario(sql_world)
    scenario(fake_world)
    assert fake_world.said == sql_world.said
    assert fake_world.chain() == sql_world.chain()
    assert sql_world.audit.verify(sql_world.org).ok
    assert fake_world.audit.verify(fake_world.org).ok
    assert len(sql_world.chain()) > 0


def test_a_fake_that_drifts_is_caught(
    sql_world: World, fake_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The negative control: a fake whose denials forget to release the invoice's key
    holds the next payment of that invoice for a collision the SQL store never sees."""
    monkeypatch.setattr(_Book, "release_claims", lambda self, intent_id: None)
    denied(sql_world)
    denied(fake_world)
    assert fake_world.said[-1][:3] != sql_world.said[-1][:3]
    assert fake_world.said[-1][2] == "collision"
