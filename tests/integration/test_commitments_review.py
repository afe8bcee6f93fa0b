"""Extracted commitments under human review, on SQLite and PostgreSQL: confirmed or
rejected once, by someone with authority over them, on the audit record; what an
extraction records (commitments with provenance, or a refused reply) and its retries."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from adapters.store.store import Store
from api.cli.main import app
from domain.audit.crosscheck import config_record
from domain.commitments.extraction import (
    ExtractionInput,
    ExtractionRejection,
    ExtractionReply,
    parse_extraction,
)
from domain.errors import Conflict, Forbidden, NotFound, Unavailable
from domain.governance.intents import Intent, Outcome, Stage
from domain.organization.contracts import Commitment, Delivery, Provenance, SpendCap
from domain.organization.kinds import ReviewState, StaffRole
from tests.integration.test_cli import _ok, _onboard
from tests.support import TEST_AUDIENCE, TEST_ISSUER, Firm, race
from usecases import commitments, governance, organization
from usecases.context import Ports

DOC = (
    "Supply agreement, Project Orbit. "
    "The supplier will deliver the quarterly usage report by 31 January 2027. "
    "Fees under this agreement shall not exceed USD 12,000 in total."
)


def _cap(firm: Firm, projects: tuple[str, ...] = ("east",)) -> Commitment:
    return commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment(
            "Atlas diligence cap",
            SpendCap(limit_cents=500_000),
            "Atlas engagement letter",
            projects=projects,
        ),
    )


def _store(svc: Ports) -> Store:
    store = getattr(svc, "store", None)
    assert isinstance(store, Store)
    return store


def test_a_rejected_commitment_says_who_why_and_when_and_never_binds(firm: Firm) -> None:
    cap = _cap(firm)

    rejected = commitments.reject(firm.svc, cap.id, firm.founder, "  not what the letter says ")

    assert rejected.state is ReviewState.REJECTED
    assert rejected.rejected_by == firm.founder
    assert rejected.rejection_reason == "not what the letter says"
    assert rejected.rejected_at is not None
    assert not rejected.binds(datetime.now(UTC))
    (stored,) = commitments.commitments(firm.svc, firm.org, firm.founder)
    assert stored == rejected
    store = _store(firm.svc)
    assert store.audit.verify(firm.org).ok
    rules = [e.rule for e in store.audit.entries(firm.org)]
    assert rules.count("commitment_rejected") == 1


@pytest.mark.parametrize("first", ["confirm", "reject"])
def test_a_reviewed_commitment_is_reviewed_once(firm: Firm, first: str) -> None:
    cap = _cap(firm)
    if first == "confirm":
        commitments.confirm(firm.svc, cap.id, firm.founder)
    else:
        commitments.reject(firm.svc, cap.id, firm.founder, "wrong amount")

    with pytest.raises(Conflict, match=f"{first}ed, not extracted"):
        commitments.reject(firm.svc, cap.id, firm.founder, "again")
    with pytest.raises(Conflict):
        commitments.confirm(firm.svc, cap.id, firm.founder)
    assert _store(firm.svc).audit.verify(firm.org).ok


def test_two_racing_rejections_one_wins_the_other_is_a_conflict(firm: Firm) -> None:
    cap = _cap(firm)

    def rejecting(reason: str) -> Callable[[], Commitment]:
        return lambda: commitments.reject(firm.svc, cap.id, firm.founder, reason)

    results = race([rejecting("no"), rejecting("not at all")])

    assert sum(isinstance(r, Commitment) for r in results) == 1, results
    assert sum(isinstance(r, Conflict) for r in results) == 1, results
    entries = _store(firm.svc).audit.entries(firm.org)
    assert [e.rule for e in entries].count("commitment_rejected") == 1


def test_a_reason_is_required(firm: Firm) -> None:
    cap = _cap(firm)
    with pytest.raises(ValueError, match="reason"):
        commitments.reject(firm.svc, cap.id, firm.founder, "   ")


def test_an_approver_on_its_projects_may_review_it_a_member_may_not(firm: Firm) -> None:
    east, everywhere = _cap(firm), _cap(firm, projects=())
    with pytest.raises(Forbidden):
        commitments.reject(firm.svc, east.id, firm.associate, "no")
    with pytest.raises(Forbidden):
        commitments.confirm(firm.svc, east.id, firm.associate)

    organization.staff(
        firm.svc,
        firm.org,
        firm.founder,
        organization.AssignStaff(firm.associate, "east", StaffRole.APPROVER),
    )

    assert commitments.reject(firm.svc, east.id, firm.associate, "no").rejected_by == (
        firm.associate
    )
    with pytest.raises(Forbidden):  # it binds the whole organization: the founder's
        commitments.reject(firm.svc, everywhere.id, firm.associate, "no")


def test_another_organization_learns_nothing_of_a_commitment(firm: Firm) -> None:
    cap = _cap(firm)
    other = organization.onboard(firm.svc, "Elsewhere", "eve@else.example")
    with pytest.raises(NotFound):
        commitments.reject(firm.svc, cap.id, other.founder.id, "no")
    with pytest.raises(NotFound):
        commitments.reject(firm.svc, "no-such-commitment", firm.founder, "no")


def test_a_row_changed_behind_the_chain_is_found(firm: Firm) -> None:
    cap = _cap(firm)
    commitments.reject(firm.svc, cap.id, firm.founder, "no")
    store = _store(firm.svc)
    with store.db.transaction() as s:
        s.execute(text("UPDATE commitments SET state = 'confirmed' WHERE id = :id"), {"id": cap.id})

    result = store.audit.verify(firm.org)
    assert not result.ok and f"commitment {cap.id}" in (result.problem or "")


def test_a_commitment_recorded_before_rejection_existed_still_verifies() -> None:
    """Chains written before the rejection and extraction fields keep verifying: unset,
    those fields are not part of a commitment's record."""
    commitment = Commitment(
        id="c1",
        org_id="o",
        title="t",
        constraint=SpendCap(limit_cents=1),
        provenance=Provenance(source="s", recorded_by="p"),
        valid_from=datetime(2026, 1, 1, tzinfo=UTC),
    )
    record = config_record(commitment).record
    assert "rejected_by" not in record and "rejection_reason" not in record
    assert set(record["provenance"]) == {"source", "excerpt", "recorded_by"}


# extraction, as recorded ----------------------------------------------------------------


def _extraction(firm: Firm, extraction_id: str = "x-1") -> ExtractionInput:
    return ExtractionInput(
        org_id=firm.org,
        extraction_id=extraction_id,
        document_ref="orbit-supply-agreement",
        extractor_id=firm.agents["ledger"],
        requested_by=firm.founder,
        projects=("east",),
    )


def _reply(text_: str) -> ExtractionReply:
    parsed = parse_extraction(text_, DOC)
    if isinstance(parsed, ExtractionRejection):
        return ExtractionReply(rejection=parsed, provider="p", model="m", reply_digest="d")
    return ExtractionReply(obligations=parsed, provider="p", model="m", reply_digest="d")


GOOD = (
    '{"obligations": [{"kind": "delivery", "title": "Usage report", "deliverable": "the '
    'quarterly usage report", "due": "2027-01-31T17:00:00Z", "recipient": null, "span": [33, 105], '
    '"quote": "The supplier will deliver the quarterly usage report by 31 January 2027."}]}'
)


def test_an_extraction_records_evidence_with_provenance_once_however_often_retried(
    firm: Firm,
) -> None:
    assert DOC[33:105] == "The supplier will deliver the quarterly usage report by 31 January 2027."
    svc, extraction, reply = firm.svc, _extraction(firm), _reply(GOOD)

    first = commitments.record_extraction(svc.configuration, svc.clock, extraction, reply)
    again = commitments.record_extraction(svc.configuration, svc.clock, extraction, reply)

    assert first == again and len(first.commitments) == 1
    (made,) = first.commitments
    assert made.state is ReviewState.EXTRACTED and not made.binds(datetime.now(UTC))
    assert isinstance(made.constraint, Delivery)
    assert made.provenance.document == "orbit-supply-agreement"
    assert made.provenance.span == (33, 105)
    assert made.provenance.excerpt == DOC[33:105]
    assert made.provenance.extractor == firm.agents["ledger"]
    assert made.provenance.model == "p/m"
    assert made.provenance.recorded_by == firm.founder
    assert commitments.commitments(svc, firm.org, firm.founder) == [made]
    assert _store(svc).audit.verify(firm.org).ok


def test_a_refused_reply_is_on_the_record_and_records_no_commitment(firm: Firm) -> None:
    svc, extraction = firm.svc, _extraction(firm, "x-2")
    reply = _reply(GOOD.replace("[33, 105]", "[34, 106]"))
    assert reply.rejection is not None

    for _ in range(2):  # a retry appends nothing twice
        result = commitments.record_extraction(svc.configuration, svc.clock, extraction, reply)
        assert result.rejection == reply.rejection and not result.commitments

    assert commitments.commitments(svc, firm.org, firm.founder) == []
    store = _store(svc)
    refused = [e for e in store.audit.entries(firm.org) if e.stage == "extraction"]
    assert len(refused) == 1
    assert refused[0].rule == "quote_mismatch"
    assert refused[0].payload["document"] == "orbit-supply-agreement"
    assert store.audit.verify(firm.org).ok


def test_the_api_rejects_once_then_answers_409(api: TestClient, firm: Firm) -> None:
    cap = _cap(firm)
    who = {"X-Verletica-Principal": firm.founder}

    first = api.post(f"/v1/commitments/{cap.id}/reject", json={"reason": "no"}, headers=who)
    second = api.post(f"/v1/commitments/{cap.id}/reject", json={"reason": "no"}, headers=who)
    empty = api.post(f"/v1/commitments/{cap.id}/reject", json={"reason": ""}, headers=who)
    by_member = api.post(
        f"/v1/commitments/{cap.id}/reject",
        json={"reason": "no"},
        headers={"X-Verletica-Principal": firm.associate},
    )

    assert first.status_code == 200, first.text
    assert first.json()["state"] == "rejected"
    assert second.status_code == 409
    assert empty.status_code == 422
    assert by_member.status_code == 403


@pytest.fixture
def cli(db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    """The command line over ``db_url``, Ada signed in (as in ``test_cli``)."""
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(TEST_ISSUER.jwks()), encoding="utf-8")
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VERLETICA_OIDC_ISSUER", TEST_ISSUER.issuer)
    monkeypatch.setenv("VERLETICA_OIDC_AUDIENCE", TEST_AUDIENCE)
    monkeypatch.setenv("VERLETICA_OIDC_JWKS", str(jwks))
    monkeypatch.setenv("VERLETICA_TOKEN", TEST_ISSUER.mint("ada@hv.example", TEST_AUDIENCE))
    return CliRunner()


def test_the_command_line_rejects_once(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    org, _, _ = _onboard(cli, "Harbor", "ada@hv.example")
    monkeypatch.setenv("VERLETICA_ORG", org)
    _ok(cli.invoke(app, ["projects", "add", "east", "Atlas"]))
    added = cli.invoke(
        app, ["commit", "add", "cap", "--cap-cents", "100", "--source", "l", "--project", "east"]
    )
    cap = json.loads(_ok(added))

    rejected = cli.invoke(app, ["commit", "reject", cap["id"], "--reason", "not in the letter"])
    again = cli.invoke(app, ["commit", "reject", cap["id"], "--reason", "still not"])

    shown = json.loads(_ok(rejected))
    assert shown["state"] == "rejected" and shown["rejection_reason"] == "not in the letter"
    assert again.exit_code == 1 and "not extracted" in again.output
    assert json.loads(_ok(cli.invoke(app, ["audit", "verify"])))["ok"] is True


async def test_an_extraction_binds_only_projects_of_its_document(firm: Firm) -> None:
    """Checked before anything starts: commitments drawn from an east document may bind
    east, not west; without Temporal, a valid request is honestly unavailable."""
    ledger = firm.agents["ledger"]
    with pytest.raises(ValueError, match="only its own projects"):
        await commitments.extract(
            firm.svc, firm.org, firm.founder, "atlas-kickoff", ledger, ("west",)
        )
    with pytest.raises(ValueError, match="active agent"):
        await commitments.extract(firm.svc, firm.org, firm.founder, "atlas-kickoff", firm.associate)
    with pytest.raises(NotFound):  # Ben (east) may not have a west record read for him
        await commitments.extract(firm.svc, firm.org, firm.associate, "birch-cim", ledger)
    with pytest.raises(Unavailable):
        await commitments.extract(firm.svc, firm.org, firm.founder, "atlas-kickoff", ledger)


def _email(firm: Firm, to: str) -> Intent:
    return Intent(
        id=str(uuid.uuid4()),
        org_id=firm.org,
        run_id=f"run-{uuid.uuid4().hex[:8]}",
        principal_id=firm.agents["ledger"],
        tool="email.send",
        projects=("east",),
        cost_cents=0,
        justification="the client asked",
        payload={"to": to, "subject": "Data-room index", "body": "Attached."},
    )


def test_the_broker_holds_a_late_delivery_only_once_a_human_confirmed_it(firm: Firm) -> None:
    store = _store(firm.svc)
    due = Delivery(
        deliverable="the data-room index",
        due=datetime(2026, 1, 15, tzinfo=UTC),
        recipient="cfo@atlas.example",
    )
    made = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment("Index due", due, "letter", projects=("east",)),
    )
    now = datetime.now(UTC)

    extracted = governance.decide(store.governance, _email(firm, "cfo@atlas.example"), now)
    commitments.confirm(firm.svc, made.id, firm.founder)
    late = governance.decide(store.governance, _email(firm, "cfo@atlas.example"), now)
    elsewhere = governance.decide(store.governance, _email(firm, "ops@client.example"), now)

    assert extracted.outcome is Outcome.ALLOW  # evidence binds nothing
    assert (late.outcome, late.stage) == (Outcome.HOLD, Stage.COMMITMENTS)
    # (the first email, allowed, still holds the recipient's key: a collision too)
    assert late.rule.split("+")[0] == "delivery_overdue"
    assert elsewhere.outcome is Outcome.ALLOW
    assert store.audit.verify(firm.org).ok


def test_a_kept_delivery_binds_no_more_once_on_the_record(api: TestClient, firm: Firm) -> None:
    """Marked delivered (by the founder; not by a member, not a spend cap, not twice), a
    delivery no longer holds late emails to its recipient; the chain verifies, and a row
    changed behind it is found."""
    store = _store(firm.svc)
    due = Delivery(
        deliverable="the data-room index",
        due=datetime(2026, 1, 15, tzinfo=UTC),
        recipient="cfo@atlas.example",
    )
    made = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment("Index due", due, "letter", projects=("east",)),
    )
    path = f"/v1/commitments/{made.id}/fulfilled"
    founder, ben = (
        {"X-Verletica-Principal": firm.founder},
        {"X-Verletica-Principal": firm.associate},
    )
    # Not confirmed: there is nothing to keep yet.
    assert api.post(path, json={"note": "sent"}, headers=founder).status_code == 409
    commitments.confirm(firm.svc, made.id, firm.founder)
    now = datetime.now(UTC)
    late = governance.decide(store.governance, _email(firm, "cfo@atlas.example"), now)
    assert late.rule.split("+")[0] == "delivery_overdue"

    assert api.post(path, json={"note": "sent"}, headers=ben).status_code == 403
    assert api.post(path, json={"note": ""}, headers=founder).status_code == 422
    r = api.post(path, json={"note": "index sent 2026-01-20, ref DR-7"}, headers=founder)
    assert r.status_code == 200, r.text
    kept = Commitment.model_validate(r.json())
    assert (kept.fulfilled_by, kept.fulfilment_note) == (
        firm.founder,
        "index sent 2026-01-20, ref DR-7",
    )
    assert not kept.binds(datetime.now(UTC))
    assert api.post(path, json={"note": "again"}, headers=founder).status_code == 409
    again = governance.decide(store.governance, _email(firm, "cfo@atlas.example"), now)
    assert "delivery_overdue" not in again.rule.split("+")
    assert store.audit.verify(firm.org).ok
    rules = [e.rule for e in store.audit.entries(firm.org)]
    assert rules.count("commitment_fulfilled") == 1

    cap = _cap(firm)
    commitments.confirm(firm.svc, cap.id, firm.founder)
    r = api.post(f"/v1/commitments/{cap.id}/fulfilled", json={"note": "x"}, headers=founder)
    assert r.status_code == 422 and "expires" in r.text

    with store.db.transaction() as s:
        s.execute(
            text("UPDATE commitments SET fulfilment_note = 'forged' WHERE id = :id"),
            {"id": made.id},
        )
    result = store.audit.verify(firm.org)
    assert not result.ok and f"commitment {made.id}" in (result.problem or "")


def test_two_racing_fulfilments_one_wins(firm: Firm) -> None:
    due = Delivery(deliverable="the index", due=datetime(2026, 1, 15, tzinfo=UTC))
    made = commitments.add_commitment(
        firm.svc,
        firm.org,
        firm.founder,
        commitments.AddCommitment("Index due", due, "letter", projects=("east",)),
    )
    commitments.confirm(firm.svc, made.id, firm.founder)

    def keeping(note: str) -> Callable[[], Commitment]:
        return lambda: commitments.fulfil(firm.svc, made.id, firm.founder, note)

    results = race([keeping("first"), keeping("second"), keeping("third")])
    won = [r for r in results if isinstance(r, Commitment)]
    assert len(won) == 1 and sum(isinstance(r, Conflict) for r in results) == 2, results
    assert _store(firm.svc).audit.verify(firm.org).ok
