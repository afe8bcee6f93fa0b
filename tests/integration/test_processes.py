"""Several processes decide for one organization at once, against one database: none may
double-allow a write to one resource nor overrun a confirmed spend cap. Each process has
its own engine, its own configuration cache and its own spending facts, as separate
workers do; only the database's lock stands between them."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from multiprocessing.connection import Connection

from adapters.store.store import Store
from domain.governance.intents import Outcome
from domain.organization.contracts import SpendCap
from tests.support import TEST_KEYS, Firm, payment_intent, utc_now
from usecases import commitments, governance

PROCESSES = 4
ROUNDS = 2
EACH = 12
CAP = 300_000


def _decide(url: str, org: str, agent: str, n: int, out: Connection) -> None:
    """One process: decide ``EACH`` payments (half on one shared invoice), report the
    outcomes and amounts it was allowed."""
    store = Store.open(url, TEST_KEYS, migrate_schema=False)
    try:
        results = []
        for i in range(EACH):
            invoice = "INV-SHARED" if i % 2 == 0 else f"INV-{n}-{i}"
            decision = governance.decide(
                store.governance, payment_intent(org, agent, 25_000, invoice), utc_now()
            )
            results.append((decision.outcome.value, decision.rule, invoice))
        out.send(results)
    finally:
        store.close()
        out.close()


def test_processes_deciding_at_once_never_double_allow_or_overrun_a_cap(
    db_url: str, firm: Firm, store: Store
) -> None:
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment("cap", SpendCap(limit_cents=CAP), "letter", projects=("east",)),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    context = multiprocessing.get_context("spawn")  # nothing inherited: a fresh process
    outcomes: Counter[str] = Counter()
    shared_allowed = 0
    for r in range(ROUNDS):
        pipes, procs = [], []
        for n in range(PROCESSES):
            receive, send = context.Pipe(duplex=False)
            proc = context.Process(
                target=_decide, args=(db_url, firm.org, firm.agents["ledger"], r * 10 + n, send)
            )
            proc.start()
            send.close()
            pipes.append(receive)
            procs.append(proc)
        results = [pipe.recv() for pipe in pipes]
        for proc in procs:
            proc.join(timeout=60)
            assert proc.exitcode == 0
        for outcome, rule, invoice in (x for batch in results for x in batch):
            outcomes[f"{outcome}:{rule}"] += 1
            if outcome == Outcome.ALLOW.value and invoice == "INV-SHARED":
                shared_allowed += 1
    allowed = outcomes[f"{Outcome.ALLOW.value}:all_stages_passed"]
    assert allowed * 25_000 <= CAP, outcomes
    assert allowed == CAP // 25_000, outcomes  # the cap was reached, not merely respected
    assert shared_allowed <= 1, outcomes  # one write to the shared invoice at a time
    assert sum(outcomes.values()) == ROUNDS * PROCESSES * EACH
    assert store.audit.verify(firm.org).ok
