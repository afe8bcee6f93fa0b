"""Connectors write only with a token naming an audited allow, once per intent.

Every decision here is real: the broker's policy over the store's snapshot, persisted
and appended to the audit chain. Runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy import func, select, update

from adapters.connectors.base import TableConnector
from adapters.connectors.email import EmailOutbox
from adapters.connectors.payments import PaymentsLedger
from adapters.store.store import Store
from adapters.store.tables import AuditEntryRow, EmailRow, IntentRow, PaymentRow
from domain.errors import BrokerPoisoned, FoundationBroken, TokenRefused
from domain.governance.intents import Decision, DispatchToken, Intent, Outcome, Stage
from domain.governance.ports import ConnectorWrite
from domain.tools import EMAIL_SEND, PAYMENTS_PAY
from tests.fakes.governance import FIRM_PAYEE
from tests.support import Firm, utc_now
from usecases import governance, organization
from usecases.context import Ports
from worker.bootstrap import build_connectors


def email_intent(
    firm: Firm, who: str = "orion", project: str = "east", to: str = "cfo@atlas-client.example"
) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4()}",
        principal_id=firm.agents[who],
        tool="email.send",
        projects=(project,),
        payload={"to": to, "subject": "Project Atlas: kickoff agenda", "body": "Agenda attached."},
        cost_cents=0,
        justification="The client asked for the agenda.",
    )


def payment_intent(
    firm: Firm,
    amount: int = 75_000,
    who: str = "ledger",
    project: str = "east",
    invoice: str = "NW-2291",
) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4()}",
        principal_id=firm.agents[who],
        tool="payments.pay",
        projects=(project,),
        payload={
            "payee": FIRM_PAYEE,
            "invoice": invoice,
            "amount_cents": amount,
            "currency": "USD",
            "memo": "Atlas virtual data room",
        },
        cost_cents=amount,
        justification="Invoice is due.",
    )


def decide(store: Store, intent: Intent) -> Decision:
    return governance.decide(store.governance, intent, utc_now())


def count(store: Store, row_type: type, intent_id: str | None = None) -> int:
    with store.db.transaction() as s:
        query = select(func.count()).select_from(row_type)
        if intent_id is not None:
            query = query.where(row_type.intent_id == intent_id)  # type: ignore[attr-defined]
        return int(s.execute(query).scalar_one())


def tamper_entry(store: Store, org_id: str, seq: int, **values: Any) -> None:
    with store.db.transaction() as s:
        s.execute(
            update(AuditEntryRow)
            .where(AuditEntryRow.org_id == org_id, AuditEntryRow.seq == seq)  # type: ignore[arg-type]
            .values(**values)
        )


def entry_row(store: Store, org_id: str, seq: int) -> AuditEntryRow:
    with store.db.transaction() as s:
        row = s.get(AuditEntryRow, (org_id, seq))
        assert row is not None
        return row


def allowed_email(store: Store, firm: Firm, **kw: str) -> tuple[Intent, Decision]:
    intent = email_intent(firm, **kw)
    decision = decide(store, intent)
    assert decision.outcome is Outcome.ALLOW, decision
    return intent, decision


def rejected_email(store: Store, firm: Firm) -> tuple[Intent, Decision]:
    """Vega is staffed on west only: an email to the east client is rejected."""
    intent = email_intent(firm, who="vega", project="east", to="vega-target@atlas.example")
    decision = decide(store, intent)
    assert decision.outcome is Outcome.REJECT, decision
    assert decision.rule == "not_staffed"
    return intent, decision


def forged(token: DispatchToken, **changes: Any) -> DispatchToken:
    return token.model_copy(update=changes)


# ---------------------------------------------------------------------------- email


def test_an_allowed_email_is_audited_and_dispatchable(store: Store, firm: Firm) -> None:
    intent, decision = allowed_email(store, firm)

    assert decision.stage is Stage.AUDIT
    assert decision.audit_seq is not None and decision.entry_hash is not None
    assert decision.intent_digest == intent.digest
    entry = store.audit.entries(firm.org)[-1]
    assert (entry.seq, entry.entry_hash) == (decision.audit_seq, decision.entry_hash)
    assert entry.intent_id == intent.id and entry.decision == Outcome.ALLOW
    assert store.audit.verify(firm.org).ok

    got, token = store.governance.token_for(firm.org, decision)

    assert got == intent
    assert token == DispatchToken(
        org_id=firm.org,
        intent_id=intent.id,
        audit_seq=decision.audit_seq,
        entry_hash=decision.entry_hash,
        intent_digest=intent.digest,
    )


def test_email_outbox_writes_one_row_once(store: Store, firm: Firm) -> None:
    intent, decision = allowed_email(store, firm)
    got, token = store.governance.token_for(firm.org, decision)
    outbox = EmailOutbox(store.db, utc_now, store.keys)
    assert outbox.system == "email" and outbox.actions == frozenset({"send"})

    first = outbox.write(ConnectorWrite(intent=got, tool=EMAIL_SEND, token=token))

    assert first.duplicate is False
    assert (first.intent_id, first.system, first.action) == (intent.id, "email", "send")
    assert first.external_id == f"email:{intent.id}"
    assert count(store, EmailRow) == 1
    with store.db.transaction() as s:
        row = s.get(EmailRow, intent.id)
        assert row is not None
        assert (row.org_id, row.to, row.subject, row.body) == (
            firm.org,
            intent.payload["to"],
            intent.payload["subject"],
            intent.payload["body"],
        )
        assert (row.audit_seq, row.entry_hash) == (token.audit_seq, token.entry_hash)

    again = outbox.write(ConnectorWrite(intent=got, tool=EMAIL_SEND, token=token))

    assert again.duplicate is True
    assert again.external_id == first.external_id
    assert count(store, EmailRow) == 1


def test_a_second_outbox_instance_also_sees_the_duplicate(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)
    write = ConnectorWrite(intent=intent, tool=EMAIL_SEND, token=token)

    EmailOutbox(store.db, utc_now, store.keys).write(write)
    replay = EmailOutbox(store.db, utc_now, store.keys).write(write)

    assert replay.duplicate is True
    assert count(store, EmailRow) == 1


# ---------------------------------------------------------------------------- forged tokens


def _refused(store: Store, intent: Intent, token: DispatchToken) -> TokenRefused:
    with pytest.raises(TokenRefused) as raised:
        EmailOutbox(store.db, utc_now, store.keys).write(
            ConnectorWrite(intent=intent, tool=EMAIL_SEND, token=token)
        )
    assert isinstance(raised.value, PermissionError)
    return raised.value


def test_a_token_with_an_altered_entry_hash_is_refused(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)
    flipped = ("1" if token.entry_hash[0] == "0" else "0") + token.entry_hash[1:]

    _refused(store, intent, forged(token, entry_hash=flipped))
    _refused(store, intent, forged(token, entry_hash="0" * 64))

    assert count(store, EmailRow) == 0


def test_a_token_pointing_at_another_entry_is_refused(store: Store, firm: Firm) -> None:
    _, other = allowed_email(store, firm, to="someone-else@atlas.example")
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)
    assert other.audit_seq is not None and other.audit_seq != token.audit_seq

    # Another entry's sequence with this entry's hash: no such entry.
    _refused(store, intent, forged(token, audit_seq=other.audit_seq))
    # Another allowed entry, hash and all: it is about another intent.
    _refused(store, intent, forged(token, audit_seq=other.audit_seq, entry_hash=other.entry_hash))
    # A sequence past the head.
    _refused(store, intent, forged(token, audit_seq=token.audit_seq + 100))

    assert count(store, EmailRow) == 0


def test_a_token_with_another_digest_is_refused(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)

    _refused(store, intent, forged(token, intent_digest="f" * 64))

    assert count(store, EmailRow) == 0


def test_an_intent_changed_after_the_decision_is_refused(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)
    redirected = intent.model_copy(
        update={"payload": {**intent.payload, "to": "attacker@evil.example"}}
    )

    refusal = _refused(store, redirected, token)
    # Re-digesting the token to match the changed intent does not help either.
    _refused(store, redirected, forged(token, intent_digest=redirected.digest))

    assert "changed" in str(refusal)
    assert count(store, EmailRow) == 0


def test_a_token_naming_another_intent_or_org_is_refused(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    intent, token = store.governance.token_for(firm.org, decision)

    _refused(store, intent, forged(token, intent_id=str(uuid.uuid4())))
    _refused(store, intent, forged(token, org_id=str(uuid.uuid4())))

    assert count(store, EmailRow) == 0


def test_a_token_naming_a_rejected_decision_is_refused(store: Store, firm: Firm) -> None:
    intent, decision = rejected_email(store, firm)
    assert decision.audit_seq is not None and decision.entry_hash is not None
    token = DispatchToken(
        org_id=firm.org,
        intent_id=intent.id,
        audit_seq=decision.audit_seq,
        entry_hash=decision.entry_hash,
        intent_digest=intent.digest,
    )

    refusal = _refused(store, intent, token)

    assert "reject" in str(refusal)
    assert count(store, EmailRow) == 0


def _dispatch(store: Store, org: str, decision: Any) -> Any:
    """The dispatch use case: the connector checks the token in its own transaction."""
    return governance.dispatch(
        store.governance, build_connectors(store, utc_now), org, decision, utc_now()
    )


def test_dispatch_token_refuses_a_rejected_decision(store: Store, firm: Firm) -> None:
    _, decision = rejected_email(store, firm)

    with pytest.raises(FoundationBroken) as raised:
        _dispatch(store, firm.org, decision)

    assert isinstance(raised.value, RuntimeError)
    assert "reject" in str(raised.value)


def test_dispatch_token_refuses_a_rejection_relabelled_as_allow(store: Store, firm: Firm) -> None:
    _, decision = rejected_email(store, firm)

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision.model_copy(update={"outcome": Outcome.ALLOW}))


def test_dispatch_token_refuses_a_held_payment(store: Store, firm: Firm) -> None:
    intent = payment_intent(firm, amount=250_000)
    decision = decide(store, intent)
    assert decision.outcome is Outcome.HOLD
    assert "money_over_threshold" in decision.rule

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision)
    assert decision.audit_seq is not None and decision.entry_hash is not None
    token = DispatchToken(
        org_id=firm.org,
        intent_id=intent.id,
        audit_seq=decision.audit_seq,
        entry_hash=decision.entry_hash,
        intent_digest=intent.digest,
    )
    # the first attempt poisoned the broker: the connector now refuses before looking
    with pytest.raises(BrokerPoisoned):
        PaymentsLedger(store.db, utc_now, store.keys).write(
            ConnectorWrite(intent=intent, tool=PAYMENTS_PAY, token=token)
        )
    assert count(store, PaymentRow) == 0


@pytest.mark.parametrize(
    "change",
    [
        {"audit_seq": None},
        {"entry_hash": None},
        {"entry_hash": "0" * 64},
        {"audit_seq": 10_000},
        {"intent_id": "no-such-intent"},
    ],
    ids=["no-seq", "no-hash", "wrong-hash", "missing-entry", "unknown-intent"],
)
def test_dispatch_token_refuses_a_decision_that_is_not_in_the_chain(
    store: Store, firm: Firm, change: dict[str, Any]
) -> None:
    _, decision = allowed_email(store, firm)

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision.model_copy(update=change))


def test_dispatch_token_refuses_another_organization(
    store: Store, firm: Firm, services: Ports
) -> None:
    _, decision = allowed_email(store, firm)
    other = organization.onboard(services, "Other Firm", "zed@other.example")

    with pytest.raises(FoundationBroken):
        _dispatch(store, other.org.id, decision)


def test_dispatch_token_refuses_another_intents_allowed_entry(store: Store, firm: Firm) -> None:
    _, other = allowed_email(store, firm, to="someone-else@atlas.example")
    _, decision = allowed_email(store, firm)

    with pytest.raises(FoundationBroken):
        _dispatch(
            store,
            firm.org,
            decision.model_copy(
                update={"audit_seq": other.audit_seq, "entry_hash": other.entry_hash}
            ),
        )


# ---------------------------------------------------------------------------- tampering


def test_a_tampered_audit_payload_breaks_dispatch(store: Store, firm: Firm) -> None:
    _, decision = allowed_email(store, firm)
    assert decision.audit_seq is not None
    row = entry_row(store, firm.org, decision.audit_seq)

    tamper_entry(
        store,
        firm.org,
        decision.audit_seq,
        payload={**row.payload, "reason": "a human said it was fine"},
    )

    with pytest.raises(FoundationBroken) as raised:
        _dispatch(store, firm.org, decision)
    assert "hash" in str(raised.value)
    assert not store.audit.verify(firm.org).ok


def test_a_tampered_audit_decision_breaks_dispatch(store: Store, firm: Firm) -> None:
    _, decision = rejected_email(store, firm)
    assert decision.audit_seq is not None

    tamper_entry(store, firm.org, decision.audit_seq, decision=Outcome.ALLOW.value)

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision.model_copy(update={"outcome": Outcome.ALLOW}))


def test_a_broken_link_to_the_previous_entry_breaks_dispatch(store: Store, firm: Firm) -> None:
    _, first = allowed_email(store, firm, to="first@atlas.example")
    _, second = allowed_email(store, firm)
    assert first.audit_seq is not None and second.audit_seq == first.audit_seq + 1

    tamper_entry(store, firm.org, first.audit_seq, entry_hash="e" * 64)

    with pytest.raises(FoundationBroken) as raised:
        _dispatch(store, firm.org, second)
    assert "predecessor" in str(raised.value)


def test_an_intent_rewritten_in_the_database_breaks_dispatch(store: Store, firm: Firm) -> None:
    intent, decision = allowed_email(store, firm)
    body = {**intent.model_dump(mode="json")}
    body["payload"] = {**body["payload"], "to": "attacker@evil.example"}

    with store.db.transaction() as s:
        s.execute(update(IntentRow).where(IntentRow.id == intent.id).values(body=body))  # type: ignore[arg-type]

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision)


def test_an_intent_closed_since_its_allow_is_not_written(store: Store, firm: Firm) -> None:
    intent, decision = allowed_email(store, firm)

    with store.db.transaction() as s:
        s.execute(
            update(IntentRow)
            .where(IntentRow.id == intent.id)  # type: ignore[arg-type]
            .values(status=Outcome.DENIED.value)
        )

    with pytest.raises(TokenRefused, match="denied"):
        _dispatch(store, firm.org, decision)


# ---------------------------------------------------------------------------- payments


def test_payments_ledger_writes_an_allowed_payment_once(store: Store, firm: Firm) -> None:
    intent = payment_intent(firm, amount=99_999)
    decision = decide(store, intent)
    assert decision.outcome is Outcome.ALLOW, decision
    got, token = store.governance.token_for(firm.org, decision)
    ledger = PaymentsLedger(store.db, utc_now, store.keys)
    assert ledger.system == "payments" and ledger.actions == frozenset({"pay"})

    first = ledger.write(ConnectorWrite(intent=got, tool=PAYMENTS_PAY, token=token))

    assert first.duplicate is False
    assert first.external_id == f"payments:{intent.id}"
    assert count(store, PaymentRow) == 1
    with store.db.transaction() as s:
        row = s.get(PaymentRow, intent.id)
        assert row is not None
        assert (row.payee, row.invoice, row.amount_cents, row.currency, row.memo) == (
            FIRM_PAYEE,
            "NW-2291",
            99_999,
            "USD",
            "Atlas virtual data room",
        )
        assert (row.audit_seq, row.entry_hash) == (token.audit_seq, token.entry_hash)

    again = ledger.write(ConnectorWrite(intent=got, tool=PAYMENTS_PAY, token=token))

    assert again.duplicate is True
    assert count(store, PaymentRow) == 1


def test_the_approval_threshold_is_exclusive(store: Store, firm: Firm) -> None:
    at = decide(store, payment_intent(firm, amount=100_000, invoice="AT-1"))
    over = decide(store, payment_intent(firm, amount=100_001, invoice="OVER-1"))

    assert at.outcome is Outcome.ALLOW
    assert over.outcome is Outcome.HOLD


@pytest.mark.parametrize(
    "change",
    [
        {"entry_hash": "0" * 64},
        {"intent_digest": "a" * 64},
        {"audit_seq": "other"},
        {"intent_id": "someone-else"},
    ],
    ids=["entry-hash", "digest", "other-entry", "other-intent"],
)
def test_payments_ledger_refuses_forged_tokens(
    store: Store, firm: Firm, change: dict[str, Any]
) -> None:
    other = decide(store, email_intent(firm))  # an entry about another intent
    intent = payment_intent(firm)
    decision = decide(store, intent)
    assert decision.outcome is Outcome.ALLOW and decision.audit_seq == (other.audit_seq or 0) + 1
    got, token = store.governance.token_for(firm.org, decision)
    if change.get("audit_seq") == "other":
        change = {"audit_seq": other.audit_seq}

    with pytest.raises(TokenRefused):
        PaymentsLedger(store.db, utc_now, store.keys).write(
            ConnectorWrite(intent=got, tool=PAYMENTS_PAY, token=forged(token, **change))
        )

    assert count(store, PaymentRow) == 0


def test_payments_ledger_refuses_a_rejected_payment(store: Store, firm: Firm) -> None:
    # Orion's charter does not include payments.pay.
    intent = payment_intent(firm, who="orion")
    decision = decide(store, intent)
    assert decision.outcome is Outcome.REJECT
    assert decision.rule == "tool_outside_charter"
    assert decision.audit_seq is not None and decision.entry_hash is not None

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision)
    # the attempt poisoned the broker: the connector now refuses before looking
    with pytest.raises(BrokerPoisoned):
        PaymentsLedger(store.db, utc_now, store.keys).write(
            ConnectorWrite(
                intent=intent,
                tool=PAYMENTS_PAY,
                token=DispatchToken(
                    org_id=firm.org,
                    intent_id=intent.id,
                    audit_seq=decision.audit_seq,
                    entry_hash=decision.entry_hash,
                    intent_digest=intent.digest,
                ),
            )
        )
    assert count(store, PaymentRow) == 0


def test_a_payment_tampered_in_the_audit_log_is_not_dispatched(store: Store, firm: Firm) -> None:
    intent = payment_intent(firm)
    decision = decide(store, intent)
    assert decision.outcome is Outcome.ALLOW and decision.audit_seq is not None
    row = entry_row(store, firm.org, decision.audit_seq)
    body = {**row.payload}
    body["intent"] = {
        **body["intent"],
        "payload": {**body["intent"]["payload"], "amount_cents": 9_999_999},
    }

    tamper_entry(store, firm.org, decision.audit_seq, payload=body)

    with pytest.raises(FoundationBroken):
        _dispatch(store, firm.org, decision)
    assert count(store, PaymentRow) == 0


@pytest.mark.parametrize("amount", ["20000000", 20_000_000.0], ids=["text", "float"])
def test_a_payment_whose_amount_is_not_an_integer_is_not_paid_unreviewed(
    store: Store, firm: Firm, amount: object
) -> None:
    """The money check must not fall back to a declared cost of 0 when the amount is not
    an integer: 20,000,000 cents is over ledger's budget and the approval threshold."""
    intent = payment_intent(firm).model_copy(
        update={
            "payload": {**payment_intent(firm).payload, "amount_cents": amount},
            "cost_cents": 0,
        }
    )
    decision = decide(store, intent)

    if decision.outcome is Outcome.ALLOW:
        got, token = store.governance.token_for(firm.org, decision)
        PaymentsLedger(store.db, utc_now, store.keys).write(
            ConnectorWrite(intent=got, tool=PAYMENTS_PAY, token=token)
        )
        with store.db.transaction() as s:
            row = s.get(PaymentRow, intent.id)
            paid = None if row is None else row.amount_cents
        pytest.fail(
            f"amount_cents={amount!r} with cost_cents=0 was allowed without a human "
            f"({decision.rule}); the ledger then paid {paid!r} cents"
        )
    assert decision.outcome in (Outcome.REJECT, Outcome.HOLD)
    assert count(store, PaymentRow) == 0


def test_connectors_are_table_connectors(store: Store) -> None:
    assert isinstance(EmailOutbox(store.db, utc_now, store.keys), TableConnector)
    assert isinstance(PaymentsLedger(store.db, utc_now, store.keys), TableConnector)
    assert EmailOutbox.row_type is EmailRow and PaymentsLedger.row_type is PaymentRow
