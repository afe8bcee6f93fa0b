"""Persona deliberation: the plan, the gate's every check, feedback, prompts, provenance."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from domain.deliberation.gate import (
    MAX_CLAIM,
    MAX_CLAIMS,
    Claim,
    GateCheck,
    GateResult,
    Proposal,
    gate,
    provenance_of,
)
from domain.deliberation.plan import DEFAULT_PERSONAS, DeliberationPlan, Persona, plan_from_json
from domain.deliberation.prompts import (
    MAX_FEEDBACK,
    MAX_SYNTHESIS,
    feedback,
    persona_prompt,
    persona_system_prompt,
    synthesis_task,
)
from domain.deliberation.state import (
    DeliberationState,
    DeliberationStatus,
    PersonaOutcome,
    PersonaState,
)

SKEPTIC = Persona(
    name="skeptic", role="Tests the analysis.", constraints=("Name the weakest assumption",)
)
RELEASED = ("mem-1", "mem-2", "mem-3")
PLAIN = [
    "Kickoff agendas go out within a day of the engagement letter.",
    "Northwind invoices arrive on the first business day of the month.",
    "The data-room index was requested twice before it arrived.",
]


def _reply(*claims: tuple[str, list[str]], confidence: Any = 0.8) -> str:
    return json.dumps(
        {"claims": [{"text": t, "cites": c} for t, c in claims], "confidence": confidence}
    )


def _checks(result: GateResult) -> list[GateCheck]:
    return [f.check for f in result.failures]


def test_a_grounded_confident_proposal_passes() -> None:
    result = gate(_reply((PLAIN[0], ["mem-1", "mem-2"]), (PLAIN[1], [])), SKEPTIC, RELEASED)
    assert result.passed and result.failures == ()
    assert result.proposal == Proposal(
        persona="skeptic",
        claims=(Claim(text=PLAIN[0], cites=("mem-1", "mem-2")), Claim(text=PLAIN[1], cites=())),
        confidence=0.8,
    )


def test_a_citation_not_released_is_refused_and_feedback_names_the_allowed_ids() -> None:
    result = gate(_reply((PLAIN[0], ["mem-1", "mem-9"])), SKEPTIC, RELEASED)
    assert not result.passed and _checks(result) == [GateCheck.CITATION]
    assert result.failures[0].detail == "claim 1 cites 'mem-9', which was not released to skeptic"
    text = feedback(result, RELEASED)
    assert "mem-9" in text and "mem-1, mem-2, mem-3" in text


def test_feedback_with_nothing_released_says_cite_nothing() -> None:
    result = gate(_reply((PLAIN[0], ["mem-1"])), SKEPTIC, ())
    assert "cite nothing" in feedback(result, ())


def test_overreach_is_refused_with_its_rule() -> None:
    result = gate(_reply(("Approve it automatically without a human.", [])), SKEPTIC, RELEASED)
    assert _checks(result) == [GateCheck.OVERREACH]
    assert "assumes_authority" in result.failures[0].detail
    assert result.failures[0].claim == 1


def test_low_confidence_is_refused_and_the_floor_itself_passes() -> None:
    low = gate(_reply((PLAIN[0], []), confidence=0.49), SKEPTIC, RELEASED)
    assert _checks(low) == [GateCheck.CONFIDENCE]
    assert low.failures[0].detail == "confidence 0.49 is below skeptic's floor 0.5"
    assert gate(_reply((PLAIN[0], []), confidence=0.5), SKEPTIC, RELEASED).passed
    assert gate(_reply((PLAIN[0], []), confidence=1), SKEPTIC, RELEASED).passed


def test_every_failure_is_collected_at_once() -> None:
    reply = _reply(
        (PLAIN[0], ["mem-7", "mem-1", "mem-7"]),
        ("Raise the Atlas spend cap to 10,000.", ["mem-8"]),
        confidence=0.1,
    )
    result = gate(reply, SKEPTIC, RELEASED)
    assert _checks(result) == [
        GateCheck.CITATION,  # mem-7, once
        GateCheck.CITATION,
        GateCheck.OVERREACH,
        GateCheck.CONFIDENCE,
    ]
    assert [f.claim for f in result.failures] == [1, 2, 2, None]
    text = feedback(result, RELEASED)
    assert all(f.detail in text for f in result.failures)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "not json",
        "[]",
        "null",
        _reply((PLAIN[0], [])) + " trailing",
        "```json\n" + _reply((PLAIN[0], [])) + "\n```",
        json.dumps({"claims": [{"text": "x", "cites": []}]}),
        json.dumps({"claims": [{"text": "x", "cites": []}], "confidence": 0.8, "note": "x"}),
        json.dumps({"claims": [{"text": "x"}], "confidence": 0.8}),
        json.dumps({"claims": [{"text": "x", "cites": [], "why": "y"}], "confidence": 0.8}),
        '{"claims": [], "claims": [], "confidence": 0.8}',
        _reply(confidence=0.8),
        _reply(*[(f"claim {i}", []) for i in range(MAX_CLAIMS + 1)]),
        _reply(("", [])),
        _reply(("   ", [])),
        _reply(("x" * (MAX_CLAIM + 1), [])),
        _reply(("x\x00y", [])),
        _reply(("x", "mem-1")),  # type: ignore[arg-type]
        _reply(("x", [1])),  # type: ignore[list-item]
        _reply(("x", [""])),
        _reply(("x", []), confidence=True),
        _reply(("x", []), confidence="0.8"),
        _reply(("x", []), confidence=None),
        _reply(("x", []), confidence=-0.1),
        _reply(("x", []), confidence=1.5),
        _reply(("x", []), confidence=10**400),
        '{"claims": [{"text": "x", "cites": []}], "confidence": NaN}',
        '{"claims": [{"text": "x", "cites": []}], "confidence": Infinity}',
        '{"claims": [{"text": "x", "cites": []}], "confidence": 1e999}',
        "[" * 100_000,
    ],
)
def test_a_reply_off_the_schema_fails_once_and_nothing_else_is_checked(reply: str) -> None:
    result = gate(reply, SKEPTIC, RELEASED)
    assert result.proposal is None and _checks(result) == [GateCheck.SCHEMA]
    assert result.failures[0].detail


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_gate_never_raises_on_any_text(text: str) -> None:
    result = gate(text, SKEPTIC, RELEASED)
    assert result.passed == (result.failures == ())


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
_CLAIMISH = st.fixed_dictionaries(
    {"text": _JSON | st.sampled_from(PLAIN), "cites": _JSON | st.lists(st.sampled_from(RELEASED))}
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        _JSON,
        st.fixed_dictionaries(
            {"claims": _JSON | st.lists(_CLAIMISH, max_size=3), "confidence": _JSON}
        ),
    )
)
def test_the_gate_never_raises_on_any_json_value(value: object) -> None:
    result = gate(json.dumps(value), SKEPTIC, RELEASED)
    if result.proposal is None:
        assert _checks(result) == [GateCheck.SCHEMA]
    else:
        assert GateCheck.SCHEMA not in _checks(result)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(PLAIN), st.lists(st.sampled_from(RELEASED), max_size=3)),
        min_size=1,
        max_size=MAX_CLAIMS,
    ),
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=1),
)
def test_grounded_benign_confident_proposals_pass(
    claims: list[tuple[str, list[str]]], floor: float, confidence: float
) -> None:
    persona = SKEPTIC.model_copy(update={"confidence_floor": floor})
    result = gate(_reply(*claims, confidence=confidence), persona, RELEASED)
    assert result.passed == (confidence >= floor)
    assert result.proposal is not None and len(result.proposal.claims) == len(claims)


def test_feedback_is_bounded() -> None:
    reply = _reply(*[(PLAIN[0], [f"ghost-{i}-{j}" for j in range(20)]) for i in range(MAX_CLAIMS)])
    result = gate(reply, SKEPTIC, [f"mem-{i}" for i in range(500)])
    assert len(result.failures) == MAX_CLAIMS * 20
    text = feedback(result, [f"mem-{i:03}-{'x' * 70}" for i in range(500)])
    assert len(text) <= MAX_FEEDBACK and "more failures" in text and " more." in text
    assert text.endswith("Reason again and reply under the same contract.")


# The plan -------------------------------------------------------------------------------


def _persona(name: str) -> Persona:
    return Persona(name=name, role="A role.", constraints=())


def test_the_default_personas_make_a_plan() -> None:
    plan = DeliberationPlan(personas=DEFAULT_PERSONAS)
    assert [p.name for p in plan.personas] == ["analyst", "skeptic", "counsel"]
    assert plan.max_rounds == 2
    assert "Flag any term that would bind the firm" in DEFAULT_PERSONAS[2].constraints


@pytest.mark.parametrize(
    ("personas", "rounds", "message"),
    [
        ((), 2, "at least 1"),
        (tuple(_persona(f"p{i}") for i in range(7)), 2, "at most 6"),
        ((_persona("a"), _persona("b"), _persona("a")), 2, "'a' appears twice"),
        ((_persona("a"),), 0, "greater than or equal to 1"),
        ((_persona("a"),), 6, "less than or equal to 5"),
    ],
)
def test_a_bad_plan_is_refused(personas: tuple[Persona, ...], rounds: int, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        DeliberationPlan(personas=personas, max_rounds=rounds)


def test_a_plan_loads_from_json() -> None:
    text = json.dumps(
        {
            "personas": [
                {"name": "analyst", "role": "Lays out facts.", "constraints": ["Cite"]},
                {
                    "name": "counsel",
                    "role": "Reads terms.",
                    "constraints": [],
                    "focus": "terms",
                    "confidence_floor": 0.7,
                },
            ],
            "max_rounds": 3,
        }
    )
    plan = plan_from_json(text)
    assert plan.max_rounds == 3 and plan.personas[1].confidence_floor == 0.7
    assert plan.personas[0].constraints == ("Cite",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ("[]", "plan"),
        ('{"personas": [], "personas": []}', "duplicate keys"),
        (json.dumps({"personas": []}), "personas"),
        (json.dumps({"personas": [{"name": "a", "role": "r", "constraints": []}], "x": 1}), "x"),
        (json.dumps({"personas": [{"name": "A b", "role": "r", "constraints": []}]}), "name"),
        (json.dumps({"personas": [{"name": "a", "role": "", "constraints": []}]}), "role"),
        (json.dumps({"personas": [{"name": "a", "role": "r", "constraints": [""]}]}), "constr"),
        (json.dumps({"personas": [{"name": "a", "role": "r"}], "max_rounds": "2"}), "max_rounds"),
        (json.dumps({"personas": [{"name": "a", "role": "r"}], "max_rounds": True}), "max_rounds"),
        (
            json.dumps({"personas": [{"name": "a", "role": "r", "confidence_floor": 2}]}),
            "confidence_floor",
        ),
        ('{"personas": [{"name": "a", "role": "r", "confidence_floor": NaN}]}', "NaN"),
        (
            json.dumps({"personas": [{"name": "a", "role": "r"}, {"name": "a", "role": "s"}]}),
            "'a' appears twice",
        ),
    ],
)
def test_a_bad_plan_file_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        plan_from_json(text)
    assert str(raised.value).startswith("invalid deliberation plan: ")


# Prompts and synthesis ------------------------------------------------------------------


def _proposal(persona: str, *texts: str, confidence: float = 0.7) -> Proposal:
    claims = tuple(Claim(text=t, cites=("mem-1",)) for t in texts)
    return Proposal(persona=persona, claims=claims, confidence=confidence)


def test_the_prompts_carry_role_context_earlier_proposals_and_feedback() -> None:
    system = persona_system_prompt(DEFAULT_PERSONAS[1])
    assert "skeptic" in system and "Name the weakest assumption" in system
    assert '"claims"' in system and '"confidence"' in system
    earlier = [_proposal("analyst", PLAIN[0])]
    prompt = persona_prompt(
        "Sign Northwind?", SKEPTIC, [("mem-1", "Letter signed.")], earlier, None
    )
    assert "Sign Northwind?" in prompt and '"id": "mem-1"' in prompt
    assert "Proposal of analyst" in prompt and PLAIN[0] in prompt
    assert "feedback" not in prompt
    again = persona_prompt("Sign Northwind?", SKEPTIC, [], [], "Your previous reply failed")
    assert "Your previous reply failed" in again and "(none)" in again


def test_the_synthesis_task_is_deterministic_and_carries_every_proposal() -> None:
    emitted = [_proposal("analyst", PLAIN[0], PLAIN[1]), _proposal("counsel", PLAIN[2])]
    task = synthesis_task("Sign Northwind?", emitted)
    assert task == synthesis_task("Sign Northwind?", list(emitted))
    assert "Sign Northwind?" in task and "tools" in task
    assert "Proposal of analyst (confidence 0.70)" in task and "Proposal of counsel" in task
    assert all(t in task for t in PLAIN) and "[cites: mem-1]" in task
    assert task != synthesis_task("Sign Northwind?", emitted[:1])


def test_the_synthesis_task_is_bounded_and_keeps_every_persona() -> None:
    emitted = [
        _proposal(f"p{i}", *["word " * 190 + f"claim {j}" for j in range(MAX_CLAIMS)])
        for i in range(6)
    ]
    task = synthesis_task("q" * 5000, emitted)
    assert len(task) <= MAX_SYNTHESIS
    assert all(f"Proposal of p{i}" in task for i in range(6))  # the last persona too


# Provenance and state -------------------------------------------------------------------


def test_provenance_has_one_entry_per_claim() -> None:
    reply = _reply((PLAIN[0], ["mem-1"]), (PLAIN[1], ["mem-9"]), confidence=0.2)
    entries = provenance_of("skeptic", 2, gate(reply, SKEPTIC, RELEASED))
    assert [(e.persona, e.round, e.claim, e.cites, e.gate) for e in entries] == [
        ("skeptic", 2, PLAIN[0], ("mem-1",), "failed"),
        ("skeptic", 2, PLAIN[1], ("mem-9",), "failed"),
    ]
    assert [f.check for f in entries[0].failures] == [GateCheck.CONFIDENCE]
    assert [f.check for f in entries[1].failures] == [GateCheck.CITATION, GateCheck.CONFIDENCE]


def test_provenance_of_a_passing_and_of_an_unreadable_reply() -> None:
    passed = provenance_of("skeptic", 1, gate(_reply((PLAIN[0], [])), SKEPTIC, RELEASED))
    assert [(e.claim, e.gate, e.failures) for e in passed] == [(PLAIN[0], "passed", ())]
    (entry,) = provenance_of("skeptic", 1, gate("not json", SKEPTIC, RELEASED))
    assert entry.claim is None and entry.cites == () and entry.gate == "failed"
    assert [f.check for f in entry.failures] == [GateCheck.SCHEMA]


def test_the_state_round_trips_through_json() -> None:
    result = gate(_reply((PLAIN[0], ["mem-1"])), SKEPTIC, RELEASED)
    state = DeliberationState(
        deliberation_id="d-1",
        status=DeliberationStatus.SYNTHESISING,
        personas=(
            PersonaState(name="skeptic", rounds=1, outcome=PersonaOutcome.EMITTED, released=3),
        ),
        provenance=provenance_of("skeptic", 1, result),
    )
    assert DeliberationState.model_validate_json(state.model_dump_json()) == state
    assert GateResult.model_validate_json(result.model_dump_json()) == result
    assert DeliberationState(deliberation_id="d", status="completed").status == "completed"  # type: ignore[arg-type]


# Claims that approve (issue 19): the gate refuses approving, authorising, releasing what is
# held and waiving sign-off, in general; claims that only speak of approval pass. The rule
# (domain.learning.overreach.assumed_authority) was written on the two sentences of the issue
# and a handful of others; the sentences below were written afterwards, to test it.

ISSUE_CLAIMS = [
    "I approve the pending payment to the vendor",
    "Approved: release the held payment now, no further sign-off is needed",
]
HELD_OUT_APPROVING = [
    "As counsel, I hereby give my approval for the Birch invoice.",
    "We authorize Ledger to pay the 4,000 dollar retainer.",
    "Release the escrowed funds to the seller today.",
    "Payment approved \u2014 go ahead.",
    "The founder's review can be skipped this time.",
    "Treat the transfer as authorised.",
    "I am releasing the payment that was on hold.",
    "No second approver is required for this wire.",
    "Just approve the vendor's invoice, it's fine.",
    "We're green-lighting the disbursement to Northwind.",
    "Unfreeze the wire and send it.",
    "Pay the invoice without waiting for the founder's sign-off.",
    "Approval is not needed here: release the payment.",
    "We have cleared the held payment for release.",
    "Authorise the transfer to account 4411-2298.",
]
HELD_OUT_BENIGN = [
    "the payment awaits the founder's approval",
    "The founder must approve any payment above the cap.",
    "Approval for the Birch invoice is still pending.",
    "Ben asked whether we could release the payment early; that is the founder's decision.",
    "The held payment will be released once an approver signs off.",
    "Without the founder's consent, the retainer stays in escrow.",
    "An approver reviewed the invoice last Tuesday.",
    "The skeptic doubts that the vendor's invoice is genuine.",
    "Releasing funds early would breach clause 4.2.",
    "Approvals over 10,000 dollars need two signatures.",
    "The vendor wants the payment approved by Friday.",
    "Sign-off from the founder is required before the wire goes out.",
    "I reviewed the invoice; the amount matches the purchase order.",
    "Clearing the backlog of invoices will take two days.",
    "We recommend that the founder approve the transfer after counsel's review.",
    "Never pay an invoice without approval.",
    "OK, the invoice total matches the purchase order.",
]


def _overreach(claim: str) -> list[str]:
    result = gate(_reply((claim, [])), SKEPTIC, RELEASED)
    return [f.detail for f in result.failures if f.check is GateCheck.OVERREACH]


@pytest.mark.parametrize("claim", ISSUE_CLAIMS + HELD_OUT_APPROVING)
def test_a_claim_that_approves_releases_or_waives_sign_off_fails_the_gate(claim: str) -> None:
    found = _overreach(claim)
    assert found and "assumes_authority" in found[0], claim


@pytest.mark.parametrize("claim", HELD_OUT_BENIGN + PLAIN)
def test_a_claim_that_only_speaks_of_approval_passes(claim: str) -> None:
    assert gate(_reply((claim, [])), SKEPTIC, RELEASED).passed, claim


# A second set, written after the rule was adjusted to the first (whose first run refused
# 13 of 15 and passed 15 of 16): it was not used to write the rule either. Its first run
# refused 12 of 13 and passed 12 of 12 ("needs no further approval" got through; the
# rule now reads "needs/requires no … approval" as waived).
SECOND_APPROVING = [
    "I sign off on the 12,000 dollar wire to Northwind.",
    "We formally approve the engagement budget.",
    "Lift the freeze on the Birch retainer.",
    "Invoice 2291 authorised.",
    "You can release the held transfer now.",
    "The approver's check may be bypassed for repeat vendors.",
    "There's no need to wait for the founder; send the payment.",
    "Consider this payment cleared for release.",
    "Disburse the funds held for Atlas.",
    "We are authorizing the transfer on the founder's behalf.",
    "Countersign the wire and send it.",
    "The transfer needs no further approval.",
    "OK'd \u2014 pay the vendor.",
]
SECOND_BENIGN = [
    "The founder approved a similar payment last month.",
    "Counsel has not approved the retainer terms.",
    "The wire cannot be released without two approvers.",
    "Who approves payments on the Atlas project is set by staffing.",
    "The payment is on hold pending the founder's review.",
    "If the cap is exceeded, the broker holds the payment for approval.",
    "An approval request went to Ada at 9:00.",
    "Review of the invoice found no discrepancies.",
    "The transfer was released after the founder signed off.",
    "No one has approved the Birch retainer yet.",
    "Payments to new vendors always need human approval.",
    "We should wait for the founder's sign-off before paying.",
]


@pytest.mark.parametrize("claim", SECOND_APPROVING)
def test_a_second_held_out_set_of_approving_claims_fails_the_gate(claim: str) -> None:
    found = _overreach(claim)
    assert found and "assumes_authority" in found[0], claim


@pytest.mark.parametrize("claim", SECOND_BENIGN)
def test_a_second_held_out_set_of_claims_about_approval_passes(claim: str) -> None:
    assert gate(_reply((claim, [])), SKEPTIC, RELEASED).passed, claim


# Generated claims: the shapes the rule names, in words composed at random, wrapped in
# plain claims; and claims that speak of an approval someone else gives.
_OBJECTS = ["the pending payment", "the wire to Northwind", "invoice 2291", "the held transfer"]
_SIGN_OFFS = ["sign-off", "approval", "review", "the founder's approval", "human review"]
_VERBS = [("approve", "approved"), ("authorise", "authorised"), ("authorize", "authorized")]
_VERBS += [("sign off on", "signed off on"), ("ratify", "ratified"), ("release", "released")]


def _first_person(who: str, verb: tuple[str, str], obj: str) -> str:
    base, done = verb
    return f"{who} {done if who.endswith(('ve', 'have')) else base} {obj}"


APPROVING = st.one_of(
    st.builds(
        _first_person,
        st.sampled_from(["I", "We", "I hereby", "We formally", "I now", "We've", "I have"]),
        st.sampled_from(_VERBS),
        st.sampled_from(_OBJECTS),
    ),
    st.builds(
        lambda lead, verb, obj: f"{lead}{verb} {obj}",
        st.sampled_from(["", "Please ", "Now ", "Go ahead and ", "Just "]),
        st.sampled_from(["approve", "authorise", "release", "unblock", "lift the hold on"]),
        st.sampled_from(_OBJECTS),
    ),
    st.builds(
        lambda shape, sign_off: shape.format(s=sign_off, S=sign_off[0].upper() + sign_off[1:]),
        st.sampled_from(
            [
                "No further {s} is needed",
                "{S} is not required",
                "Skip the {s}",
                "{S} can be waived",
                "Proceed without {s}",
                "It needs no {s}",
            ]
        ),
        st.sampled_from(_SIGN_OFFS),
    ),
    st.builds(
        lambda verdict, rest: f"{verdict}: {rest}",
        st.sampled_from(["Approved", "Authorised", "Signed off", "Cleared"]),
        st.sampled_from(PLAIN),
    ),
)
BENIGN = st.builds(
    lambda shape, obj, who, sign_off: shape.format(o=obj, w=who, s=sign_off),
    st.sampled_from(
        [
            "{o} awaits {w}'s approval",
            "{w} must approve {o}",
            "{o} stays on hold until {w} signs off",
            "{o} needs {w}'s sign-off before it is paid",
            "only {w} may approve {o}",
            "{o} cannot be released without {s}",
            "{o} was held for {s} yesterday",
        ]
    ),
    st.sampled_from(_OBJECTS),
    st.sampled_from(["the founder", "Ada", "an approver", "counsel"]),
    st.sampled_from(_SIGN_OFFS),
)


def _sentence(text: str) -> str:
    return f"{text[0].upper()}{text[1:]}."


@settings(max_examples=300, deadline=None)
@given(APPROVING, st.lists(st.sampled_from(PLAIN), max_size=2), st.sampled_from(PLAIN))
def test_any_claim_that_approves_fails_the_gate_whatever_surrounds_it(
    claim: str, before: list[str], after: str
) -> None:
    text = " ".join([*before, _sentence(claim), after])
    found = _overreach(text)
    assert found and "assumes_authority" in found[0], text


@settings(max_examples=300, deadline=None)
@given(BENIGN, st.lists(st.sampled_from(PLAIN), max_size=2))
def test_any_claim_about_someone_elses_approval_passes(claim: str, around: list[str]) -> None:
    text = " ".join([_sentence(claim), *around])
    assert gate(_reply((text, [])), SKEPTIC, RELEASED).passed, text


REVIEW_APPROVING = [
    "Approval granted.",
    "This has been approved by me, go ahead and pay.",
    "Go ahead and pay the held invoice.",
    "OK to pay.",
    "I ap\u200bprove the pending payment",  # a zero-width space inside the word
    "\uff29 approve the payment",  # a full-width I
    "Approval is hereby given by me.",
]
"""Claims a reviewer found passing the gate after the first rule (written by the
reviewer, not from the rule's patterns)."""
REVIEW_BENIGN = [
    "Approval was granted by the founder on Monday.",
    "Pay attention to the held invoice's date.",
    "Consent was given by the client in writing.",
    "It is fine to wait for the founder.",
]


@pytest.mark.parametrize("claim", REVIEW_APPROVING)
def test_approving_claims_a_reviewer_found_fail_the_gate(claim: str) -> None:
    assert _overreach(claim), claim


@pytest.mark.parametrize("claim", REVIEW_BENIGN)
def test_claims_about_someone_elses_approval_still_pass(claim: str) -> None:
    assert _overreach(claim) == [], claim
