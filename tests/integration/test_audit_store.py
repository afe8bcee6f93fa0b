"""The audit chain in the database, on SQLite and PostgreSQL: tamper detection,
concurrent appenders, concurrent broker decisions, and refusal on a broken chain."""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy import event as sa_event

from adapters.connectors.payments import PaymentsLedger
from adapters.store import governance as governance_store
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, AuditHeadRow, DecisionRow, PaymentRow
from domain.audit.chain import GENESIS_HASH, AuditDraft, AuditEntry, ChainKey, ChainKeys, entry_hash
from domain.errors import Conflict, TokenRefused
from domain.governance.intents import Decision, Intent, Outcome
from domain.governance.ports import ConnectorWrite
from domain.organization.contracts import SpendCap
from domain.organization.kinds import StaffRole
from domain.tools import REGISTRY
from tests.support import Firm, establish_test_payees, payment_intent, race, utc_now
from usecases import commitments, governance, organization
from worker.bootstrap import verify_chains

CHAIN = 12


def _fill(store: Store, org: str, n: int = CHAIN) -> int:
    """Append ``n`` entries; the sequence number of the last one."""
    for i in range(n):
        store.audit.append(
            org,
            AuditDraft(
                event_key=f"e{i}",
                actor="tester",
                decision="allow",
                stage="test",
                rule=f"r{i}",
                payload={"i": i, "note": f"entry {i}"},
            ),
            utc_now(),
        )
    return store.audit.verify(org).entries


def _rows(store: Store, org: str) -> list[dict[str, Any]]:
    with store.db.transaction() as s:
        rows = s.execute(
            select(AuditEntryRow).where(AuditEntryRow.org_id == org).order_by(AuditEntryRow.seq)
        ).scalars()
        return [r.model_dump() for r in rows]


def _restore(store: Store, org: str, rows: list[dict[str, Any]]) -> None:
    with store.db.transaction() as s:
        s.execute(delete(AuditEntryRow).where(AuditEntryRow.org_id == org))
        for row in rows:
            s.execute(insert(AuditEntryRow).values(**row))


def _tamper(
    store: Store, org: str, kind: str, pos: int, other: int, rows: list[dict[str, Any]]
) -> None:
    seq = pos + 1
    where = (AuditEntryRow.org_id == org, AuditEntryRow.seq == seq)
    with store.db.transaction() as s:
        if kind == "payload":
            s.execute(update(AuditEntryRow).where(*where).values(payload={"i": -1}))
        elif kind == "decision":
            s.execute(update(AuditEntryRow).where(*where).values(decision="reject"))
        elif kind == "actor":
            s.execute(update(AuditEntryRow).where(*where).values(actor="mallory"))
        elif kind == "at":
            s.execute(
                update(AuditEntryRow).where(*where).values(at="2000-01-01T00:00:00.000000+00:00")
            )
        elif kind in COLUMNS:  # one more character in any other column
            row = rows[pos]
            changed = "00" if row[kind] is None else row[kind] + "0"
            s.execute(update(AuditEntryRow).where(*where).values({kind: changed}))
        elif kind == "delete":
            s.execute(delete(AuditEntryRow).where(*where))
        elif kind == "reorder":
            # swap the content of two positions, keeping each row's sequence number
            a, b = rows[pos], rows[other]
            s.execute(
                delete(AuditEntryRow).where(
                    AuditEntryRow.org_id == org, AuditEntryRow.seq.in_([a["seq"], b["seq"]])
                )
            )
            s.execute(
                insert(AuditEntryRow).values(
                    **{**b, "seq": a["seq"], "event_key": "x" + b["event_key"]}
                )
            )
            s.execute(
                insert(AuditEntryRow).values(
                    **{**a, "seq": b["seq"], "event_key": "y" + a["event_key"]}
                )
            )


COLUMNS = ["event_key", "intent_id", "stage", "rule", "prev_hash", "entry_hash", "signature"]
KINDS = ["payload", "decision", "actor", "at", "delete", "reorder", *COLUMNS]


def test_any_single_tampering_is_detected(store: Store, firm: Firm) -> None:
    """Every edit is found, and found by a log that has verified the untouched chain
    before (what it keeps of verified entries is no excuse to miss one)."""
    _fill(store, firm.org)
    original = _rows(store, firm.org)
    assert store.audit.verify(firm.org).ok

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        kind=st.sampled_from(KINDS),
        pos=st.integers(0, CHAIN - 1),
        other=st.integers(0, CHAIN - 1),
    )
    def check(kind: str, pos: int, other: int) -> None:
        if kind == "reorder" and pos == other:
            other = (pos + 1) % CHAIN
        try:
            _tamper(store, firm.org, kind, pos, other, original)
            result = store.audit.verify(firm.org)
            assert not result.ok, (kind, pos, other)
            assert result.broken_at is not None
            # verified and listed in one read: the same verdict, the chain listed whole
            assert store.audit.verified_entries(firm.org) == (result, store.audit.entries(firm.org))
        finally:
            _restore(store, firm.org, original)
        assert store.audit.verify(firm.org).ok
        assert store.audit.verified_entries(firm.org) == (
            store.audit.verify(firm.org),
            store.audit.entries(firm.org),
        )

    check()


def test_concurrent_appenders_never_fork_the_chain(store: Store, firm: Firm) -> None:
    threads, per_thread = 6, 15
    base = store.audit.verify(firm.org).entries
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(per_thread):
                store.audit.append(
                    firm.org,
                    AuditDraft(
                        event_key=f"t{t}-{i}",
                        actor=f"thread-{t}",
                        decision="allow",
                        stage="test",
                        rule="concurrent",
                        payload={"t": t, "i": i},
                    ),
                    utc_now(),
                )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    assert errors == []
    result = store.audit.verify(firm.org)
    assert result.ok, result
    assert result.entries == base + threads * per_thread
    seqs = [r["seq"] for r in _rows(store, firm.org)]
    assert seqs == list(range(1, base + threads * per_thread + 1))


def test_appending_the_same_event_twice_is_idempotent(store: Store, firm: Firm) -> None:
    base = store.audit.verify(firm.org).entries
    draft = AuditDraft(event_key="once", actor="a", decision="allow", stage="s", rule="r")
    first = store.audit.append(firm.org, draft, utc_now())
    again = store.audit.append(firm.org, draft, utc_now())
    assert again == first
    assert store.audit.verify(firm.org).entries == base + 1


def _payment(firm: Firm, invoice: str, amount: int) -> Intent:
    return payment_intent(firm.org, firm.agents["ledger"], amount, invoice)


def _close(store: Store, org: str, intent_id: str, now: Any, rule: str, reason: str) -> Decision:
    return governance.close(store.governance, org, intent_id, rule, reason, now)


def _decide_concurrently(store: Store, intents: list[Intent]) -> list[Any]:
    return race([partial(governance.decide, store.governance, i, utc_now()) for i in intents])


def test_concurrent_intents_on_one_resource_are_booked_once(store: Store, firm: Firm) -> None:
    intents = [_payment(firm, "INV-1", 10_000) for _ in range(8)]
    decisions = _decide_concurrently(store, intents)
    assert not [d for d in decisions if isinstance(d, BaseException)]
    allowed = [d for d in decisions if d.outcome is Outcome.ALLOW]
    collided = [d for d in decisions if d.rule == "collision"]
    assert len(allowed) == 1
    assert len(collided) == 7
    assert store.audit.verify(firm.org).ok


def test_concurrent_payments_never_overrun_a_confirmed_cap(store: Store, firm: Firm) -> None:
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "cap", SpendCap(limit_cents=200_000), "letter", projects=("east",)
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    intents = [_payment(firm, f"INV-{i}", 50_000) for i in range(10)]
    decisions = _decide_concurrently(store, intents)
    assert not [d for d in decisions if isinstance(d, BaseException)]
    allowed = [d for d in decisions if d.outcome is Outcome.ALLOW]
    assert sum(50_000 for _ in allowed) <= 200_000
    assert len(allowed) == 4
    assert all(
        d.outcome is Outcome.HOLD and "spend_cap" in d.rule for d in decisions if d not in allowed
    )
    assert store.audit.verify(firm.org).ok


def test_a_cap_holds_whether_spending_facts_are_known_or_forgotten(
    store: Store, firm: Firm, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spend is summed from facts a process keeps about spending intents; a process that
    has never seen them (or has forgotten them: a tiny limit here) sums the same, and an
    expired payment stops counting."""
    monkeypatch.setattr(governance_store, "_FACTS_KEPT", 2)
    cap = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "cap", SpendCap(limit_cents=100_000), "letter", projects=("east",)
        ),
    )
    commitments.confirm(firm.svc, cap.id, firm.founder)
    paid = [_payment(firm, f"INV-F{i}", 30_000) for i in range(3)]
    for intent in paid:
        assert governance.decide(store.governance, intent, utc_now()).outcome is Outcome.ALLOW
    other = Store.open(db_url, store.keys, migrate_schema=False)  # as another process
    try:
        over = governance.decide(other.governance, _payment(firm, "INV-F9", 30_000), utc_now())
        assert (over.outcome, over.rule) == (Outcome.HOLD, "spend_cap")
        _close(store, firm.org, paid[0].id, utc_now(), "run_failed", "gave up")
        fits = governance.decide(other.governance, _payment(firm, "INV-F8", 30_000), utc_now())
        assert fits.outcome is Outcome.ALLOW
    finally:
        other.close()


def test_a_retried_decision_returns_the_recorded_one(store: Store, firm: Firm) -> None:
    base = store.audit.verify(firm.org).entries
    intent = _payment(firm, "INV-9", 10_000)
    first = governance.decide(store.governance, intent, utc_now())
    again = governance.decide(store.governance, intent, utc_now())
    assert again == first
    assert store.audit.verify(firm.org).entries == base + 1


# ------------------------------------------------------------------ an attacker who can write the database


def _rewrite_from(store: Store, org: str, seq: int, change: dict[str, Any], head: bool) -> None:
    """Edit entry ``seq`` and recompute, with the published formula, its hash and every
    later hash and link; with ``head``, update the head row to match."""
    rows = _rows(store, org)
    prev = rows[seq - 2]["entry_hash"] if seq > 1 else GENESIS_HASH
    with store.db.transaction() as s:
        for row in rows[seq - 1 :]:
            if row["seq"] == seq:
                row.update(change)
            row["prev_hash"] = prev
            body = AuditEntry(**{k: v for k, v in row.items() if k != "signature"}).body()
            row["entry_hash"] = entry_hash(prev, body)
            prev = row["entry_hash"]
            s.execute(
                update(AuditEntryRow)
                .where(AuditEntryRow.org_id == org, AuditEntryRow.seq == row["seq"])
                .values(**{k: row[k] for k in ("payload", "decision", "prev_hash", "entry_hash")})
            )
        if head:
            s.execute(
                update(AuditHeadRow)
                .where(AuditHeadRow.org_id == org)
                .values(seq=rows[-1]["seq"], entry_hash=prev)
            )


@pytest.mark.parametrize("where", ["tail", "middle", "first"])
@pytest.mark.parametrize("head", [True, False])
def test_recomputing_the_hashes_after_an_edit_is_detected(
    store: Store, firm: Firm, where: str, head: bool
) -> None:
    last = _fill(store, firm.org)
    assert store.audit.verify(firm.org).ok
    seq = {"tail": last, "middle": last - CHAIN // 2, "first": 1}[where]
    _rewrite_from(store, firm.org, seq, {"payload": {"i": -1, "note": "rewritten"}}, head)
    result = store.audit.verify(firm.org)
    assert not result.ok
    assert result.broken_at == seq, result


def test_re_signing_with_a_key_of_ones_own_is_detected(store: Store, firm: Firm) -> None:
    last = _fill(store, firm.org)
    _rewrite_from(store, firm.org, last, {"decision": "reject"}, head=True)
    forged = ChainKeys(current=ChainKey(b"m" * 32))
    newest = _rows(store, firm.org)[-1]
    with store.db.transaction() as s:
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == last)
            .values(signature=forged.sign_entry(newest["entry_hash"]))
        )
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == firm.org)
            .values(signature=forged.sign_head(firm.org, last, newest["entry_hash"]))
        )
    assert not store.audit.verify(firm.org).ok


def test_a_head_row_rolled_back_to_an_earlier_entry_is_detected(store: Store, firm: Firm) -> None:
    last = _fill(store, firm.org)
    rows = _rows(store, firm.org)
    with store.db.transaction() as s:
        s.execute(delete(AuditEntryRow).where(AuditEntryRow.seq == last))
        s.execute(
            update(AuditHeadRow)
            .where(AuditHeadRow.org_id == firm.org)
            .values(seq=last - 1, entry_hash=rows[-2]["entry_hash"])
        )
    result = store.audit.verify(firm.org)
    assert not result.ok and "head" in (result.problem or "")


def test_decision_rows_are_cross_checked_against_the_chain(store: Store, firm: Firm) -> None:
    intent = _payment(firm, "X-1", 10_000)
    decision = governance.decide(store.governance, intent, utc_now())
    _fill(store, firm.org, 3)
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(
            update(DecisionRow)
            .where(DecisionRow.intent_id == intent.id)
            .values(audit_seq=(decision.audit_seq or 0) + 1)
        )
    result = store.audit.verify(firm.org)
    assert not result.ok and "decision" in (result.problem or ""), result


def test_a_holds_causes_on_its_row_are_cross_checked_against_the_chain(
    store: Store, firm: Firm
) -> None:
    """The console shows a hold's causes from the chain and the run views from the row:
    a row whose causes were softened (the new bank details dropped) no longer verifies."""
    intent = _payment(firm, "X-3", 900_000)
    intent = intent.model_copy(
        update={"payload": {**intent.payload, "payee": "Stranger Supplies Ltd"}}
    )
    decision = governance.decide(store.governance, intent, utc_now())
    assert decision.outcome is Outcome.HOLD and len(decision.reasons) >= 2, decision
    assert store.audit.verify(firm.org).ok
    softened = [list(c) for c in decision.reasons[1:]]
    with store.db.transaction() as s:
        s.execute(
            update(DecisionRow).where(DecisionRow.intent_id == intent.id).values(reasons=softened)
        )
    result = store.audit.verify(firm.org)
    assert not result.ok and "decision" in (result.problem or ""), result


def test_connector_rows_are_cross_checked_against_the_chain(store: Store, firm: Firm) -> None:
    intent = _payment(firm, "X-2", 10_000)
    decision = governance.decide(store.governance, intent, utc_now())
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    _, token = store.governance.token_for(firm.org, decision)
    payments.write(ConnectorWrite(intent=intent, tool=REGISTRY[intent.tool], token=token))
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(update(PaymentRow).values(entry_hash="0" * 64))
    result = store.audit.verify(firm.org)
    assert not result.ok and "payments" in (result.problem or ""), result


def test_a_payment_written_while_the_chain_is_verified_is_no_false_alarm(
    store: Store, firm: Firm
) -> None:
    """A verification reads the chain and the rows outside it as of one moment: a payment
    committed meanwhile (its row and its dispatch entry in one transaction) is seen whole
    or not at all. Read committed (PostgreSQL's default) gave each statement its own
    moment: the row was seen without its entry, the chain called broken, the broker
    poisoned (chaos at load, one run in ten)."""
    intent = _payment(firm, "X-R", 10_000)
    decision = governance.decide(store.governance, intent, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    wrote: list[str] = []

    def pay_meanwhile(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        # The verification's read of the payment rows is about to run: the payment
        # commits first, on a connection of its own.
        if (
            not wrote
            and statement.lstrip().upper().startswith("SELECT")
            and ("payments_ledger" in statement)
        ):
            wrote.append(statement)
            payments.write(ConnectorWrite(intent=intent, tool=REGISTRY[intent.tool], token=token))

    sa_event.listen(store.db.engine, "before_cursor_execute", pay_meanwhile)
    try:
        during = store.audit.verify(firm.org)
    finally:
        sa_event.remove(store.db.engine, "before_cursor_execute", pay_meanwhile)
    assert wrote, "the payment was not written during the verification"
    assert during.ok, during
    after = store.audit.verify(firm.org)
    assert after.ok and after.entries == during.entries + 1, (during, after)


def test_a_paid_invoice_keeps_blocking_while_an_expired_payment_releases_it(
    store: Store, firm: Firm
) -> None:
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    paid = _payment(firm, "INV-P", 10_000)
    decision = governance.decide(store.governance, paid, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    payments.write(ConnectorWrite(intent=paid, tool=REGISTRY[paid.tool], token=token))

    twice = governance.decide(store.governance, _payment(firm, " inv-p", 10_000), utc_now())
    assert (twice.outcome, twice.rule) == (Outcome.HOLD, "already_done")
    # the earlier payment is named in the evidence (shown as far as a reader may read),
    # never in the reason (issue 19.20)
    assert paid.id in twice.evidence and paid.id not in twice.reason

    dropped = _payment(firm, "INV-Q", 10_000)
    assert governance.decide(store.governance, dropped, utc_now()).outcome is Outcome.ALLOW
    _close(store, firm.org, dropped.id, utc_now(), "run_failed", "the run failed")
    retried = governance.decide(store.governance, _payment(firm, "INV-Q", 10_000), utc_now())
    assert retried.outcome is Outcome.ALLOW
    assert store.audit.verify(firm.org).ok


def test_two_repeats_of_a_paid_invoice_cannot_both_be_approved_to_run_at_once(
    store: Store, firm: Firm
) -> None:
    """A held repeat holds the invoice's key while its human decides (found by the
    interleaving property test: two held repeats, both approved, were two writes to one
    invoice at the same time)."""
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    paid = _payment(firm, "INV-T", 10_000)
    decision = governance.decide(store.governance, paid, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    payments.write(ConnectorWrite(intent=paid, tool=REGISTRY[paid.tool], token=token))

    first = governance.decide(store.governance, _payment(firm, "INV-T", 10_000), utc_now())
    assert (first.outcome, first.rule) == (Outcome.HOLD, "already_done")
    second = governance.decide(store.governance, _payment(firm, "INV-T", 10_000), utc_now())
    assert (second.outcome, second.rule) == (Outcome.HOLD, "collision")
    assert second.evidence == (first.intent_id,)
    assert store.audit.verify(firm.org).ok


def test_a_write_that_happened_is_never_closed_as_failed(store: Store, firm: Firm) -> None:
    """The connector's row and its record commit together: when the run then gives up on
    the dispatch (say its worker died after the commit), closing the intent changes
    nothing, the invoice's key stays done, and paying it again is held."""
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    paid = _payment(firm, "INV-R", 10_000)
    decision = governance.decide(store.governance, paid, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    payments.write(ConnectorWrite(intent=paid, tool=REGISTRY[paid.tool], token=token))
    closed = _close(store, firm.org, paid.id, utc_now(), "dispatch_failed", "gave up")
    assert closed.outcome is Outcome.ALLOW  # it was dispatched: nothing to close
    again = governance.decide(store.governance, _payment(firm, "INV-R", 10_000), utc_now())
    assert (again.outcome, again.rule) == (Outcome.HOLD, "already_done")
    assert store.audit.verify(firm.org).ok


def test_a_closed_intent_can_no_longer_be_written(store: Store, firm: Firm) -> None:
    """A stale dispatch attempt that arrives after its intent was closed is refused."""
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    late = _payment(firm, "INV-L", 10_000)
    decision = governance.decide(store.governance, late, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    _close(store, firm.org, late.id, utc_now(), "dispatch_failed", "gave up")
    with pytest.raises(TokenRefused, match="expired"):
        payments.write(ConnectorWrite(intent=late, tool=REGISTRY[late.tool], token=token))
    with store.db.transaction() as s:
        assert s.get(PaymentRow, late.id) is None


def _paid(store: Store, firm: Firm, invoice: str) -> tuple[Intent, int, str]:
    """A payment decided, written and recorded: (intent, its allow entry, its hash)."""
    payments = PaymentsLedger(store.db, utc_now, store.keys)
    intent = _payment(firm, invoice, 10_000)
    decision = governance.decide(store.governance, intent, utc_now())
    _, token = store.governance.token_for(firm.org, decision)
    payments.write(ConnectorWrite(intent=intent, tool=REGISTRY[intent.tool], token=token))
    return intent, token.audit_seq, token.entry_hash


TAMPERS: dict[str, str] = {
    "payment amount and payee rewritten": (
        "update payments_ledger set amount_cents = 99999999, payee = 'Mallory' where intent_id = :i"
    ),
    "an email row pointing at the payment's allow": (
        'insert into email_outbox (intent_id, org_id, "to", subject, body, audit_seq, '
        "entry_hash, created_at) values (:i, :o, 'x@evil.example', 's', 'b', :q, :h, "
        "'2026-01-01 00:00:00+00')"
    ),
    "decision reason and rule rewritten": (
        "update decisions set reason = 'approved by the board', rule = 'x' where intent_id = :i"
    ),
    "the paid invoice unmarked as dispatched": (
        "update intents set dispatched = false where id = :i"
    ),
    "the paid invoice filed under another key": (
        "update intents set op_key = 'payments.pay:other' where id = :i"
    ),
    "a payment row for an intent that was never dispatched": (
        "insert into payments_ledger (intent_id, org_id, payee, invoice, amount_cents, "
        "currency, memo, audit_seq, entry_hash, created_at) values (:other, :o, 'N', 'INV-Z', "
        "10000, 'USD', 'm', :oq, :oh, '2026-01-01 00:00:00+00')"
    ),
}


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_rows_outside_the_chain_must_agree_with_it(store: Store, firm: Firm, tamper: str) -> None:
    paid, seq, hashed = _paid(store, firm, "INV-T")
    other = _payment(firm, "INV-Z", 10_000)
    other_decision = governance.decide(store.governance, other, utc_now())
    _close(store, firm.org, other.id, utc_now(), "run_failed", "the run failed")
    assert store.audit.verify(firm.org).ok
    with store.db.transaction() as s:
        s.execute(
            text(TAMPERS[tamper]),
            {
                "i": paid.id,
                "o": firm.org,
                "q": seq,
                "h": hashed,
                "other": other.id,
                "oq": other_decision.audit_seq,
                "oh": other_decision.entry_hash,
            },
        )
    result = store.audit.verify(firm.org)
    assert not result.ok, tamper


def test_an_organization_whose_row_was_deleted_is_still_verified(store: Store, firm: Firm) -> None:
    _fill(store, firm.org, 3)
    _rewrite_from(store, firm.org, 2, {"payload": {"i": -1}}, head=True)
    with store.db.transaction() as s:
        s.execute(text("delete from orgs where id = :o"), {"o": firm.org})
    assert firm.org in verify_chains(store)


def test_a_broken_chain_poisons_its_organization_and_no_other(
    store: Store, firm: Firm, services: Any
) -> None:
    """A worker starting on a broken chain poisons that organization's broker, on the
    record and in the database, and serves the others. Only a verified chain can be
    unpoisoned, by a human, on the record."""
    other = Firm.__new__(Firm)
    done = organization.onboard(services, "Other", "o@other.example")
    other.org, other.agents = done.org.id, {a.handle: a.id for a in done.agents}
    organization.add_project(services, other.org, done.founder.id, "east", "East")
    organization.staff(
        services,
        other.org,
        done.founder.id,
        organization.AssignStaff(other.agents["ledger"], "east", StaffRole.MEMBER),
    )
    establish_test_payees(services, other.org, done.founder.id, ("east",))
    original = _rows(store, firm.org)
    _tamper(store, firm.org, "payload", 3, 0, original)

    assert set(verify_chains(store)) == {firm.org}
    assert verify_chains(store) == {}  # poisoned once, not again
    refused = governance.decide(store.governance, _payment(firm, "P-1", 10), utc_now())
    assert (refused.outcome, refused.rule) == (Outcome.REJECT, "broker_poisoned")
    served = governance.decide(store.governance, _payment(other, "P-1", 10), utc_now())
    assert served.outcome is Outcome.ALLOW

    with pytest.raises(Conflict, match="does not verify"):
        governance.unpoison(
            store.governance,
            firm.org,
            firm.founder,
            "fixed",
            store.audit.verify(firm.org),
            utc_now(),
        )
    with store.db.transaction() as s:  # the operator restores the tampered row from backup
        row = original[3]
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == firm.org, AuditEntryRow.seq == row["seq"])
            .values(payload=row["payload"])
        )
    verification = store.audit.verify(firm.org)
    assert verification.ok, verification
    governance.unpoison(
        store.governance, firm.org, firm.founder, "row 4 restored", verification, utc_now()
    )
    entries = store.audit.entries(firm.org)
    assert [e.decision for e in entries[-3:]] == ["broker_poisoned", "reject", "broker_unpoisoned"]
    again = governance.decide(store.governance, _payment(firm, "P-2", 10), utc_now())
    assert again.outcome is Outcome.ALLOW
    assert store.audit.verify(firm.org).ok
