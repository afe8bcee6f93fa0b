"""The broker's pure stages on a large organization against a small one.

The large organization has 1,000 principals, 500 projects, 50 barriers, 1,000
commitments (most of them confirmed spend caps) and 10,000 intents in flight; the small
one is the showcase's size. Both see the same mix of intents: emails, payments under and
over the approval threshold, payments that collide, that cross a barrier or that reach
outside the agent's staffing; each asked for by a human (a member or an approver where the
agent works), half of them from runs that read what they act on (two records, one from
outside). Every project has established a client domain, a team address and two payees;
one email in three goes somewhere new or carries a link, and one payment in four names
bank details. Each snapshot is built
beforehand, as the store does before calling the broker, and what each intent carries out
of the firm is read beforehand, as the decision does before it takes the organization's
lock (:func:`usecases.governance.read_outbound`); the figure is the time of
:func:`evaluate` alone, per intent. The reading is timed on its own beside it.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from domain.governance.broker import STAGES, evaluate
from domain.governance.destinations import Counterparties, Source, normalized
from domain.governance.index import PolicyIndex
from domain.governance.intents import Intent, Outcome
from domain.governance.outbound import outbound
from domain.governance.values import BrokerSnapshot, InFlight, in_flight_by_key
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Obligation,
    Principal,
    Provenance,
    SpendCap,
    Staffing,
)
from domain.organization.kinds import (
    CharterStatus,
    DestinationKind,
    PrincipalKind,
    ReviewState,
    StaffRole,
)
from domain.tools import REGISTRY

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
SINCE = NOW - timedelta(days=90)


@dataclass(frozen=True)
class OrgShape:
    """How large an organization is, in the things the stages read."""

    principals: int
    projects: int
    barriers: int
    commitments: int
    in_flight: int


LARGE = OrgShape(principals=1000, projects=500, barriers=50, commitments=1000, in_flight=10_000)
SMALL = OrgShape(principals=10, projects=4, barriers=1, commitments=2, in_flight=4)


@dataclass(frozen=True)
class StageTimes:
    """Per-intent times of :func:`evaluate`, in milliseconds, and of reading what each
    intent carries out of the firm (before the lock)."""

    p50_ms: float
    p99_ms: float
    outcomes: dict[str, int]
    read_p50_ms: float = 0.0
    read_p99_ms: float = 0.0


def _org(shape: OrgShape, rng: random.Random) -> tuple[list[BrokerSnapshot], list[str]]:
    """One snapshot per agent, sharing the organization's configuration."""
    projects = [f"p{i:03d}" for i in range(shape.projects)]
    barriers = []
    for b in range(shape.barriers):  # two groups of 2–4 projects each
        chosen = rng.sample(projects, min(len(projects), rng.randint(4, 8)))
        half = len(chosen) // 2
        barriers.append(
            Barrier(
                id=f"b{b}",
                org_id="o",
                name=f"wall-{b}",
                groups=(tuple(chosen[:half]), tuple(chosen[half:])),
            )
        )
    commitments = []
    for c in range(shape.commitments):
        cap = c % 10 != 0  # nine in ten are spend caps, the rest obligations
        commitments.append(
            Commitment(
                id=f"c{c}",
                org_id="o",
                title=f"commitment {c}",
                constraint=SpendCap(limit_cents=rng.randint(50_000, 5_000_000))
                if cap
                else Obligation(text="deliver on time"),
                provenance=Provenance(source="msa.pdf", recorded_by="p-founder"),
                state=ReviewState.CONFIRMED if c % 7 else ReviewState.EXTRACTED,
                projects=tuple(rng.sample(projects, rng.randint(1, 3))) if c % 50 else (),
                valid_from=SINCE,
            )
        )
    index = PolicyIndex.of(barriers, commitments)
    in_flight = in_flight_by_key(
        InFlight(key=f"payments.pay:inv-{i}", intent_id=f"f{i}", status=Outcome.ALLOW)
        for i in range(shape.in_flight)
    )
    counterparties = Counterparties(
        {
            p: (
                _kept(p, DestinationKind.EMAIL_DOMAIN, "client.example"),
                _kept(p, DestinationKind.EMAIL, f"team-{p}@firm.example"),
                _kept(p, DestinationKind.PAYEE, "n", ACCOUNT),
                _kept(p, DestinationKind.PAYEE, f"vendor {p}"),
            )
            for p in projects
        },
        {},
        frozenset({"firm.example"}),
        NOW,
    )
    snapshots = []
    for a in range(shape.principals):
        principal = Principal(
            id=f"a{a}", org_id="o", kind=PrincipalKind.AGENT, handle=f"a{a}", display_name="A"
        )
        staffed = rng.sample(projects, min(3, len(projects)))
        while index.crossed(staffed) is not None:  # configuration never staffs across a wall
            staffed.pop()
        snapshots.append(
            BrokerSnapshot(
                now=NOW,
                principal=principal,
                definition=AgentDefinition(
                    principal_id=principal.id, version=1, instructions="i", budget_cents=10**9
                ),
                charter=Charter(
                    principal_id=principal.id,
                    version=1,
                    status=CharterStatus.PUBLISHED,
                    role="r",
                    purpose="p",
                    tools=tuple(REGISTRY),
                    budget_ceiling_cents=10**9,
                    definition_pin=1,
                ),
                projects=frozenset(projects),
                staffing=tuple(
                    Staffing(
                        id=f"s{a}-{p}",
                        principal_id=principal.id,
                        project=p,
                        role=StaffRole.MEMBER,
                        valid_from=SINCE,
                    )
                    for p in staffed
                ),
                barriers=tuple(barriers),
                commitments=tuple(commitments),
                # The human the run acts for: staffed where the agent is, an approver
                # for every other agent (a member's payments wait for an approver).
                requester=Principal(
                    id=f"h{a}",
                    org_id="o",
                    kind=PrincipalKind.HUMAN,
                    handle=f"h{a}",
                    display_name="H",
                ),
                requester_staffing=tuple(
                    Staffing(
                        id=f"t{a}-{p}",
                        principal_id=f"h{a}",
                        project=p,
                        role=StaffRole.APPROVER if a % 2 else StaffRole.MEMBER,
                        valid_from=SINCE,
                    )
                    for p in staffed
                ),
                index=index,
                records={"r-far": (rng.choice(projects),)},
                committed_spend={c.id: rng.randint(0, 40_000) for c in commitments},
                paid_to_payee=rng.choice((0, 30_000, 90_000)),  # earlier payments to "N"
                payee_payments=("p-earlier",),
                in_flight=in_flight,
                counterparties=counterparties,
                sources=SOURCES,
                run_recipients=frozenset({"a@client.example", "b@client.example"}),
            )
        )
    return snapshots, projects


ACCOUNT = "GB29NWBK60161331926819"
SOURCES = (
    Source(
        ref="in-1",
        kind="email",
        source="cfo@client.example",
        received_at=SINCE,
        text=" ".join(["The data-room index and the timetable, as discussed on the call."] * 8),
    ),
    Source(
        ref="n-1",
        kind="note",
        source=None,
        received_at=SINCE,
        text=" ".join(["Kickoff notes: scope, index, timetable, site visit."] * 8),
        outside=False,
    ),
)
BODY = (
    "Dear CFO, following our call, the data-room index is attached and the timetable "
    "stands: signing in the second week of January, the site visit on the 14th. "
)


def _kept(
    project: str, kind: DestinationKind, value: str, account: str | None = None
) -> Destination:
    return Destination(
        id=f"d-{project}-{kind.value}-{value}",
        project=project,
        kind=kind,
        value=normalized(kind, value),
        account=account,
        established_by="p-founder",
        established_at=SINCE,
    )


def _intent(i: int, snap: BrokerSnapshot, projects: list[str], rng: random.Random) -> Intent:
    assert snap.principal is not None
    mine = [s.project for s in snap.staffing]
    kind = i % 6
    target = rng.choice(mine)
    common = {
        "id": f"i{i}",
        "org_id": "o",
        "run_id": f"r{i}",
        "principal_id": snap.principal.id,
        "justification": "bench",
        "requested_by": f"h{snap.principal.id[1:]}",
        "read_reach": (target,) if i % 2 else (),  # half the runs read where they act
    }
    if kind in (0, 1):
        return Intent(
            **common,
            tool="email.send",
            projects=(target,),
            cost_cents=0,
            payload={
                "to": f"c{i}@client.example" if i % 3 else f"c{i}@elsewhere.example",
                "subject": "Index and timetable",
                "body": BODY + ("See https://portal.client.example/x" if i % 5 else ""),
            },
        )
    invoice = f"inv-{i % 20_000}" if kind == 2 else f"new-{i}"  # kind 2 may collide
    amount = rng.choice((5_000, 80_000, 250_000))
    return Intent(
        **common,
        tool="payments.pay",
        projects=(target,) if kind != 4 else (target, rng.choice(projects)),
        cost_cents=amount,
        payload={
            "payee": "N",
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "m",
            **({"account": "GB29 NWBK 6016 1331 9268 19"} if i % 4 == 0 else {}),
        },
        references=("r-far",) if kind == 5 else (),
    )


def stage_times(shape: OrgShape, n: int = 20_000, seed: int = 7) -> StageTimes:
    """Time :func:`evaluate` on ``n`` intents against an organization of ``shape``."""
    rng = random.Random(seed)
    snapshots, projects = _org(shape, rng)
    clock = time.perf_counter_ns
    work = []
    reads = []
    for i in range(n):
        snap = snapshots[i % len(snapshots)]
        intent = _intent(i, snap, projects, rng)
        _ = intent.digest  # computed once when the intent is proposed, not by the stages
        start = clock()
        out = outbound(REGISTRY.get(intent.tool), intent.payload)  # before the lock
        reads.append(clock() - start)
        work.append((intent, snap, out))
    for intent, snap, out in work[:2000]:  # warm up
        evaluate(intent, snap, STAGES, out)
    samples = []
    outcomes: dict[str, int] = {}
    for intent, snap, out in work:
        start = clock()
        verdict = evaluate(intent, snap, STAGES, out)
        samples.append(clock() - start)
        rule = verdict.decision.rule
        outcomes[rule] = outcomes.get(rule, 0) + 1
    samples.sort()
    reads.sort()
    return StageTimes(
        p50_ms=statistics.median(samples) / 1e6,
        p99_ms=samples[int(len(samples) * 0.99)] / 1e6,
        outcomes=outcomes,
        read_p50_ms=statistics.median(reads) / 1e6,
        read_p99_ms=reads[int(len(reads) * 0.99)] / 1e6,
    )
