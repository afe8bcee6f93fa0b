"""The counterfactual of a held or rejected intent (SQLite and PostgreSQL): a cap hold, a
barrier rejection and a collision replayed over the record with enforcement off, each
showing what would have happened, and each leaving every table's rows and the audit
chain's head as they were (only the memory gate's read log grows, by the reads the view
made through it)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select, table, text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from adapters.connectors.payments import PaymentsLedger
from adapters.store.counterfactual import SqlReplay
from adapters.store.store import Store
from api.cli.main import app
from domain.counterfactual.replay import Counterfactual, SnapshotBasis
from domain.errors import Conflict, NotFound
from domain.governance.intents import Decision, Intent, Outcome
from domain.governance.ports import ConnectorWrite
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from domain.tools import REGISTRY
from tests.identity import cli_signed_in
from tests.support import APPROVAL_KEYS, Firm, payment_intent, signed, utc_now
from usecases import commitments, governance, governance_review, organization
from usecases.counterfactual import counterfactual

READ_LOG = "memory_reads"
FRONT_DOOR = ("ingress_nonces", "ingress_usage")
"""What proving a command's principal records (its nonce and its budget usage)."""


def _counts(store: Store) -> dict[str, int]:
    names = inspect(store.db.engine).get_table_names()
    with store.db.engine.connect() as c:
        return {
            n: c.execute(select(func.count()).select_from(table(n))).scalar_one() for n in names
        }


class Untouched:
    """Every table's row count and the chain's head, before a counterfactual is shown."""

    def __init__(self, store: Store, org: str) -> None:
        self.store, self.org = store, org
        self.counts = _counts(store)
        self.head = store.audit.head(org)

    def check(self, reads: int = 0, front_door: bool = False) -> None:
        """Nothing was written or appended; the read log grew by ``reads`` gated reads
        (and, with ``front_door``, the front door kept the command's nonce and usage)."""
        after = _counts(self.store)
        assert after.pop(READ_LOG) == self.counts[READ_LOG] + reads
        skipped = {READ_LOG, *(FRONT_DOOR if front_door else ())}
        assert {k: v for k, v in after.items() if k not in skipped} == {
            k: v for k, v in self.counts.items() if k not in skipped
        }
        assert self.store.audit.head(self.org) == self.head
        assert self.store.audit.verify(self.org).ok


def _pay(firm: Firm, amount: int, invoice: str | None = None) -> Intent:
    return payment_intent(firm.org, firm.agents["ledger"], amount, invoice=invoice)


def _decide(store: Store, intent: Intent) -> Decision:
    return governance.decide(store.governance, intent, utc_now())


def _paid(store: Store, firm: Firm, intent: Intent, decision: Decision) -> None:
    _, token = store.governance.token_for(firm.org, decision)
    PaymentsLedger(store.db, utc_now, store.keys).write(
        ConnectorWrite(intent=intent, tool=REGISTRY[intent.tool], token=token)
    )


def _cap(firm: Firm, limit: int) -> None:
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "retainer cap", SpendCap(limit_cents=limit), "engagement letter", projects=("east",)
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)


def _west_member(firm: Firm) -> str:
    west = organization.add_human(firm.svc, firm.org, firm.founder, "wes@hv.example", "Wes").id
    organization.staff(
        firm.svc, firm.org, firm.founder, organization.AssignStaff(west, "west", StaffRole.MEMBER)
    )
    return west


def test_a_cap_hold_shows_the_total_against_the_cap_and_the_payment_that_would_go_out(
    store: Store, firm: Firm
) -> None:
    _cap(firm, 150_000)
    first = _pay(firm, 90_000)
    assert _decide(store, first).outcome is Outcome.ALLOW
    second = _pay(firm, 90_000)
    held = _decide(store, second)
    assert (held.outcome, held.rule) == (Outcome.HOLD, "spend_cap")

    before = Untouched(store, firm.org)
    cf = counterfactual(firm.svc, second.id, firm.founder)
    before.check()

    assert cf.snapshot is SnapshotBasis.AS_DECIDED
    assert (cf.done.outcome, cf.done.rule, cf.done.written) == (Outcome.HOLD, "spend_cap", False)
    assert cf.would is Outcome.ALLOW
    (cap,) = cf.caps
    assert (cap.limit_cents, cap.committed_cents, cap.intent_cents) == (150_000, 90_000, 90_000)
    assert (cap.total_cents, cap.over_by_cents) == (180_000, 30_000)
    assert cf.write is not None and (cf.write.system, cf.write.action) == ("payments", "pay")
    assert cf.write.fields["amount_cents"] == 90_000
    assert cf.write.fields["invoice"] == second.payload["invoice"]
    verdicts = {s.stage.value: (s.verdict, s.rule) for s in cf.stages}
    assert verdicts["commitments"] == ("hold", "spend_cap")
    assert verdicts["scope_barriers"] == ("pass", "")
    assert cf.crossing is None and cf.collision is None

    # an east member reads it too (the intent is east's); a west member does not
    assert counterfactual(firm.svc, second.id, firm.associate).caps == cf.caps
    with pytest.raises(NotFound):
        counterfactual(firm.svc, second.id, _west_member(firm))
    # once the configuration has changed since the decision, the view says so
    again = counterfactual(firm.svc, second.id, firm.founder)
    assert again.snapshot is SnapshotBasis.NOW and again.caps == cf.caps


def _crossing_email(firm: Firm) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4().hex[:8]}",
        principal_id=firm.agents["orion"],
        tool="email.send",
        projects=("east",),
        payload={"to": "cfo@atlas.example", "subject": "numbers", "body": "see attached"},
        cost_cents=0,
        justification="share the projections",
        references=("birch-cim",),
    )


def test_a_barrier_rejection_shows_the_crossing_and_withholds_the_far_side_from_an_east_member(
    store: Store, firm: Firm
) -> None:
    email = _crossing_email(firm)
    rejected = _decide(store, email)
    assert (rejected.outcome, rejected.rule) == (Outcome.REJECT, "barrier_crossed")

    before = Untouched(store, firm.org)
    cf = counterfactual(firm.svc, email.id, firm.founder)
    before.check(reads=1)  # the founder's read of birch-cim, through the gate, logged
    assert cf.done.outcome is Outcome.REJECT and not cf.done.written
    assert cf.crossing is not None and cf.crossing.barrier == "wall"
    assert [s.projects for s in cf.crossing.sides] == [("east",), ("west",)]
    # the record that would have crossed: the founder reads the whole intent, so sees
    # its reference; the memory gate (the founder is staffed nowhere) keeps its content
    (record,) = cf.crossing.sides[1].records
    assert (record.ref, record.projects, record.released) == ("birch-cim", ("west",), False)
    assert cf.crossing.sides[0].records == ()
    assert "barrier_crossed" in cf.done.rule and "wall" in cf.done.reason
    assert cf.write is not None and cf.write.fields["to"] == "cfo@atlas.example"
    assert cf.withheld_projects == 0

    before = Untouched(store, firm.org)
    east = counterfactual(firm.svc, email.id, firm.associate)
    before.check(reads=1)
    assert east.crossing is not None and east.crossing.barrier == "wall"
    near, far = east.crossing.sides
    assert near.projects == ("east",) and not near.withheld
    assert far.withheld and far.projects == () and far.records == ()
    assert east.withheld_projects == 1
    shown = east.model_dump_json()
    assert "birch-cim" not in shown and "west" not in shown and "Birch" not in shown
    # the gate logged the east member's read of birch-cim as withheld: nothing released
    (last,) = store.memory.reads(firm.org)[-1:]
    assert last.asker_id == firm.associate and last.released == () and last.withheld == 1


def test_a_collision_shows_the_double_payment(store: Store, firm: Firm) -> None:
    invoice = f"INV-{uuid.uuid4().hex[:6]}"
    first, second = _pay(firm, 40_000, invoice), _pay(firm, 40_000, invoice)
    allowed = _decide(store, first)
    assert allowed.outcome is Outcome.ALLOW
    held = _decide(store, second)
    assert (held.outcome, held.rule, held.evidence) == (Outcome.HOLD, "collision", (first.id,))
    _paid(store, firm, first, allowed)  # the first payment went out afterwards

    before = Untouched(store, firm.org)
    cf = counterfactual(firm.svc, second.id, firm.founder)
    before.check()
    assert cf.collision is not None
    assert cf.collision.double_write and cf.collision.writes == 2
    assert cf.collision.key == f"payments.pay:{invoice.lower()}"
    (other,) = cf.collision.in_flight
    assert other.intent_id == first.id and other.written  # it was paid
    assert other.fields["invoice"] == invoice and other.fields["amount_cents"] == 40_000
    assert cf.write is not None and cf.write.fields["invoice"] == invoice
    assert {s.stage.value: s.verdict for s in cf.stages}["collisions"] == "hold"


def test_an_invoice_already_paid_shows_it_paid_twice(store: Store, firm: Firm) -> None:
    invoice = f"INV-{uuid.uuid4().hex[:6]}"
    first = _pay(firm, 30_000, invoice)
    _paid(store, firm, first, _decide(store, first))
    again = _pay(firm, 30_000, invoice)
    held = _decide(store, again)
    assert (held.outcome, held.rule) == (Outcome.HOLD, "already_done")
    before = Untouched(store, firm.org)
    cf = counterfactual(firm.svc, again.id, firm.founder)
    before.check()
    assert cf.collision is not None and cf.collision.double_write
    assert [o.intent_id for o in cf.collision.completed] == [first.id]


def test_an_intent_let_through_has_no_counterfactual(store: Store, firm: Firm) -> None:
    allowed = _pay(firm, 10_000)
    assert _decide(store, allowed).outcome is Outcome.ALLOW
    with pytest.raises(Conflict):
        counterfactual(firm.svc, allowed.id, firm.founder)
    held = _pay(firm, 200_000)
    assert _decide(store, held).outcome is Outcome.HOLD
    request = signed(held, firm.founder, now=utc_now(), store=store.governance)
    governance_review.review_hold(
        store.governance, firm.org, held.run_id, request, 1, utc_now(), keys=APPROVAL_KEYS
    )
    with pytest.raises(Conflict):
        counterfactual(firm.svc, held.id, firm.founder)
    with pytest.raises(NotFound):
        counterfactual(firm.svc, "no-such-intent", firm.founder)


def test_the_api_shows_it_to_readers_and_no_one_else(
    api: TestClient, store: Store, firm: Firm
) -> None:
    email = _crossing_email(firm)
    _decide(store, email)
    allowed = _pay(firm, 10_000)
    _decide(store, allowed)
    west = _west_member(firm)

    def get(intent_id: str, who: str) -> Any:
        return api.get(
            f"/v1/intents/{intent_id}/counterfactual", headers={"X-Verletica-Principal": who}
        )

    before = Untouched(store, firm.org)
    shown = get(email.id, firm.associate)
    assert shown.status_code == 200, shown.text
    cf = Counterfactual.model_validate(shown.json())
    assert cf.crossing is not None and cf.crossing.sides[1].withheld
    assert "birch-cim" not in shown.text and "west" not in shown.text
    assert get(email.id, west).status_code == 404
    assert get(allowed.id, firm.founder).status_code == 409
    assert get("nope", firm.founder).status_code == 404
    before.check(reads=1)


def test_the_command_line_prints_both_sides(
    store: Store, firm: Firm, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _cap(firm, 150_000)
    assert _decide(store, _pay(firm, 90_000)).outcome is Outcome.ALLOW
    held = _pay(firm, 90_000)
    _decide(store, held)
    cli_signed_in(monkeypatch, tmp_path, firm.svc, firm.founder)
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("COLUMNS", "200")
    before = Untouched(store, firm.org)
    result = CliRunner().invoke(app, ["counterfactual", held.id])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "what was done" in out and "without enforcement" in out
    assert "90000 + 90000 = 180000 of 150000 USD: over by 30000" in out
    assert "nothing written" in out and "payments.pay writes" in out
    before.check(front_door=True)
    allowed = _pay(firm, 10_000)
    _decide(store, allowed)
    refused = CliRunner().invoke(app, ["counterfactual", allowed.id])
    assert refused.exit_code == 1 and "only an intent that" in refused.output


def test_the_replay_takes_no_lock_and_cannot_write(store: Store, firm: Firm) -> None:
    """The record is read back in a read-only transaction: a decision made meanwhile is
    not kept waiting, and (PostgreSQL: ``READ ONLY``) a write inside it fails."""
    held = _pay(firm, 200_000)
    _decide(store, held)
    replays = SqlReplay(store.db, store.memory_stores)
    with replays.read(firm.org) as unit:
        assert unit.stored(held.id) is not None
        assert _decide(store, _pay(firm, 10)).outcome is Outcome.ALLOW  # not blocked
        if store.db.engine.dialect.name == "postgresql":
            with pytest.raises(DBAPIError, match="read-only"):
                unit._s.execute(text("DELETE FROM holds"))
    assert counterfactual(firm.svc, held.id, firm.founder).done.rule == "money_over_threshold"
