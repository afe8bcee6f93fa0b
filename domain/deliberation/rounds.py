"""Persona deliberation: personas (data, not code) propose claims in turn; a gate checks each.

A :class:`DeliberationPlan` names a sequence of :class:`Persona` s. Each persona reads the
question, the context released to it and the proposals of the personas before it, and
replies with one JSON object (:data:`PERSONA_REPLY_CONTRACT`). :func:`gate` checks the reply:
the schema (strict JSON, nothing repaired), citations (only ids released to that persona),
no policy overreach (:func:`domain.learning.validator.overreach`) and the persona's confidence
floor. A reply that fails re-enters with :func:`feedback`, at most ``max_rounds`` times.
:func:`provenance_of` records who claimed what, in which round, with which gate result;
:func:`synthesis_task` hands the emitted proposals to an ordinary agent run, whose actions
go through the broker as intents. Nothing here reads the meaning of a claim.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, ValidationError, model_validator

from domain.learning.validator import overreach
from domain.organization.contracts import Frozen, Slug
from domain.runs.run import RunState
from domain.strict_json import Refused, load

MAX_PERSONAS = 6
MAX_ROUNDS = 5
MAX_CONSTRAINTS = 10
MAX_CLAIMS = 8
MAX_CLAIM = 1000
"""The longest claim text (characters)."""
MAX_CITES = 20
"""The most record ids one claim may cite."""
MAX_REF = 200
"""The longest record id a claim may cite."""
MAX_FEEDBACK = 4000
"""The longest :func:`feedback` text (characters)."""
_SHOWN = 10
"""The most failures :func:`feedback` lists one by one."""
MAX_SYNTHESIS = 12_000
"""The longest :func:`synthesis_task` text (characters): question clipped to
:data:`MAX_QUESTION_SHOWN`, each claim line to an even share of what remains."""
MAX_QUESTION_SHOWN = 1000

PERSONA_REPLY_CONTRACT = (
    'Reply with exactly one JSON object: {"claims": [{"text": string, "cites": [record id, '
    '...]}, ...], "confidence": number}. 1 to 8 claims, each text 1 to 1000 characters; '
    "cite only record ids from the context released to you (an empty list when a claim "
    "rests on no record); confidence is a number from 0 to 1. No other keys, nothing "
    "before or after the object, and do not wrap it in anything."
)

_Constraint = Annotated[str, Field(min_length=1, max_length=500)]
_Unit = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class Persona(Frozen):
    """A role in a deliberation: data, so a plan can be loaded from a file."""

    name: Slug
    """Its key: unique within a plan, recorded in provenance."""
    role: str = Field(min_length=1, max_length=200)
    """What it is there to do, in one sentence."""
    constraints: tuple[_Constraint, ...] = Field(default=(), max_length=MAX_CONSTRAINTS)
    """What it must hold to when it reasons (shown in its system prompt)."""
    focus: str = Field(default="", max_length=200)
    """Extra words for the recall query of its context."""
    confidence_floor: _Unit = 0.5
    """The least confidence a proposal of this persona needs to pass the gate."""


class DeliberationPlan(Frozen):
    """Who deliberates, in order, and how many rounds each has to pass the gate."""

    personas: tuple[Persona, ...] = Field(min_length=1, max_length=MAX_PERSONAS)
    """In the order they speak; each reads the proposals of those before it."""
    max_rounds: int = Field(default=2, ge=1, le=MAX_ROUNDS)
    """Attempts a persona has to pass the gate before it counts as exhausted."""

    @model_validator(mode="after")
    def _unique_names(self) -> DeliberationPlan:
        seen: set[str] = set()
        for persona in self.personas:
            if persona.name == "synthesis":
                raise ValueError("'synthesis' names the synthesising run, not a persona")
            if persona.name in seen:
                raise ValueError(f"persona names must be unique: {persona.name!r} appears twice")
            seen.add(persona.name)
        return self


DEFAULT_PERSONAS: tuple[Persona, ...] = (
    Persona(
        name="analyst",
        role="Lays out what the released context establishes and what it implies.",
        constraints=(
            "State only what the released context supports, and cite it",
            "Separate facts from inferences",
            "Give figures and dates where the context has them",
        ),
        focus="figures dates facts",
    ),
    Persona(
        name="skeptic",
        role="Tests the analysis for weak assumptions, gaps and risks.",
        constraints=(
            "Name the weakest assumption",
            "Say what evidence would change the conclusion",
            "Do not restate claims you agree with",
        ),
        focus="risks issues delays",
    ),
    Persona(
        name="counsel",
        role="Reviews the matter for obligations, liabilities and binding terms.",
        constraints=(
            "Flag any term that would bind the firm",
            "Point out deadlines and confidentiality duties in the context",
            "Draw no legal conclusion the context does not support",
        ),
        focus="terms obligations confidentiality liability",
    ),
)


def _errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'plan'}: {e['msg']}" for e in exc.errors()
    )


def plan_from_json(text: str) -> DeliberationPlan:
    """The plan in ``text`` (``{"personas": [...], "max_rounds": n}``), strictly: no type
    is coerced. Raises :class:`ValueError` saying what is wrong."""
    try:
        load(text)  # duplicate keys, NaN, NUL, lone surrogates: refused by name
        return DeliberationPlan.model_validate_json(text, strict=True)
    except Refused as refused:
        raise ValueError(f"invalid deliberation plan: {refused.reason}") from None
    except ValidationError as exc:
        raise ValueError(f"invalid deliberation plan: {_errors(exc)}") from None
    except RecursionError:
        raise ValueError("invalid deliberation plan: nesting too deep") from None


class Claim(Frozen):
    """One claim of a proposal, with the record ids it rests on."""

    text: str = Field(min_length=1, max_length=MAX_CLAIM)
    cites: tuple[str, ...] = Field(default=(), max_length=MAX_CITES)


class Proposal(Frozen):
    """What a persona proposed in one round."""

    persona: str
    claims: tuple[Claim, ...] = Field(min_length=1, max_length=MAX_CLAIMS)
    confidence: _Unit


class GateCheck(StrEnum):
    """The checks of the gate."""

    SCHEMA = "schema"
    CITATION = "citation"
    OVERREACH = "overreach"
    CONFIDENCE = "confidence"


class GateFailure(Frozen):
    """One check a proposal failed, and why, in words the persona is shown."""

    check: GateCheck
    detail: str
    claim: int | None = None
    """The 1-based claim it concerns; None: the proposal as a whole."""


class GateResult(Frozen):
    """A reply, as the gate found it."""

    proposal: Proposal | None
    """None when the reply failed the schema."""
    failures: tuple[GateFailure, ...] = ()

    @property
    def passed(self) -> bool:
        """No check failed."""
        return not self.failures


def _parse(text: str, persona: str) -> Proposal:
    data = load(text)
    if not isinstance(data, dict) or set(data) != {"claims", "confidence"}:
        raise Refused("schema", 'the reply must be one object with "claims" and "confidence" only')
    raw, confidence = data["claims"], data["confidence"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_CLAIMS:
        raise Refused("schema", f"claims must be a list of 1 to {MAX_CLAIMS} claims")
    claims = []
    for i, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or set(item) != {"text", "cites"}:
            raise Refused("schema", f'claim {i} must be an object with "text" and "cites" only')
        body, cites = item["text"], item["cites"]
        if not isinstance(body, str) or not body.strip() or len(body) > MAX_CLAIM:
            raise Refused("schema", f"claim {i}: text must be 1 to {MAX_CLAIM} characters")
        if not isinstance(cites, list) or len(cites) > MAX_CITES:
            raise Refused("schema", f"claim {i}: cites must be a list of at most {MAX_CITES} ids")
        if not all(isinstance(c, str) and 0 < len(c) <= MAX_REF for c in cites):
            raise Refused("schema", f"claim {i}: each cite must be a record id (text)")
        claims.append(Claim(text=body, cites=tuple(cites)))
    number = isinstance(confidence, int | float) and not isinstance(confidence, bool)
    if not number or not 0 <= confidence <= 1 or not math.isfinite(confidence):  # NaN fails
        raise Refused("schema", "confidence must be a number from 0 to 1")
    return Proposal(persona=persona, claims=tuple(claims), confidence=float(confidence))


def gate(reply_text: str, persona: Persona, released_refs: Collection[str]) -> GateResult:
    """The gate's verdict on ``reply_text``: one schema failure (and nothing else), or
    every citation, overreach and confidence failure. Never raises."""
    try:
        proposal = _parse(reply_text, persona.name)
    except Refused as refused:
        return GateResult(proposal=None, failures=(_schema(refused.reason),))
    except (RecursionError, ValueError) as exc:  # deep nesting; a model refusing a value
        return GateResult(
            proposal=None, failures=(_schema(f"invalid reply: {type(exc).__name__}"),)
        )
    released = set(released_refs)
    failures: list[GateFailure] = []
    for i, claim in enumerate(proposal.claims, start=1):
        for ref in dict.fromkeys(claim.cites):
            if ref not in released:
                detail = f"claim {i} cites {ref!r}, which was not released to {persona.name}"
                failures.append(GateFailure(check=GateCheck.CITATION, detail=detail, claim=i))
        found = overreach(claim.text)
        if found is not None:
            rule, why = found
            detail = f"claim {i}: {why} ({rule})"
            failures.append(GateFailure(check=GateCheck.OVERREACH, detail=detail, claim=i))
    if proposal.confidence < persona.confidence_floor:
        detail = (
            f"confidence {proposal.confidence:g} is below {persona.name}'s floor "
            f"{persona.confidence_floor:g}"
        )
        failures.append(GateFailure(check=GateCheck.CONFIDENCE, detail=detail))
    return GateResult(proposal=proposal, failures=tuple(failures))


def _schema(detail: str) -> GateFailure:
    return GateFailure(check=GateCheck.SCHEMA, detail=detail)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _ids(refs: Collection[str], budget: int) -> str:
    """The ids, sorted and whole (a clipped id could not be cited), as many as fit."""
    allowed = sorted(set(refs))
    shown: list[str] = []
    used = 0
    for ref in allowed:
        used += len(ref) + 2
        if used > budget:
            return f"{', '.join(shown)} and {len(allowed) - len(shown)} more"
        shown.append(ref)
    return ", ".join(shown)


def feedback(result: GateResult, released_refs: Collection[str]) -> str:
    """What a persona reads when it re-enters reason: each failure (the first
    :data:`_SHOWN`), the ids it may cite (as many as fit). At most :data:`MAX_FEEDBACK`
    characters."""
    lines = [
        "Your previous reply failed the quality gate:",
        *(
            f"- {f.check.value}: {_clip(_one_line(f.detail), 200)}"
            for f in result.failures[:_SHOWN]
        ),
    ]
    if len(result.failures) > _SHOWN:
        lines.append(f"- and {len(result.failures) - _SHOWN} more failures")
    lines.append(
        f"You may cite only these record ids: {_ids(released_refs, 1600)}."
        if released_refs
        else "No record was released to you: cite nothing (empty cites lists)."
    )
    lines.append("Reason again and reply under the same contract.")
    return _clip("\n".join(lines), MAX_FEEDBACK)


def persona_system_prompt(persona: Persona) -> str:
    """Who the persona is, what it holds to and the contract of its reply."""
    return "\n".join(
        [
            f"You are the {persona.name} of a deliberation. Your role: {persona.role}",
            "Hold to these constraints:",
            *(f"- {c}" for c in persona.constraints),
            "You propose claims for a synthesis; you decide nothing. A claim that grants "
            "access, changes a policy, rule, cap or barrier, or approves anything is refused.",
            PERSONA_REPLY_CONTRACT,
        ]
    )


def _proposal_lines(proposal: Proposal, claim_limit: int) -> list[str]:
    lines = [f"Proposal of {proposal.persona} (confidence {proposal.confidence:.2f}):"]
    for claim in proposal.claims:
        cites = f" [cites: {', '.join(claim.cites)}]" if claim.cites else ""
        lines.append(_clip(f"- {_one_line(claim.text)}{cites}", claim_limit))
    return lines


def persona_prompt(
    question: str,
    persona: Persona,
    context: Sequence[tuple[str, str]],
    earlier: Sequence[Proposal],
    feedback_text: str | None,
) -> str:
    """The question, the context released to ``persona`` (record id, text), the proposals
    of earlier personas and, on a re-entry, the gate's feedback."""
    items = [json.dumps({"id": ref, "text": text}, ensure_ascii=False) for ref, text in context]
    lines = [
        f"Question: {question}",
        "Context released to you (one JSON object a line; cite its ids):",
        *(items or ["(none)"]),
        "Proposals of earlier personas:",
    ]
    earlier_lines = [line for p in earlier for line in _proposal_lines(p, MAX_CLAIM + 200)]
    lines += earlier_lines or ["(none)"]
    if feedback_text:
        lines += ["Gate feedback on your previous reply:", feedback_text]
    return "\n".join(lines)


def synthesis_task(question: str, emitted: Sequence[Proposal]) -> str:
    """The task of the synthesising agent run: deterministic (a replay provider's lookup
    key) and at most :data:`MAX_SYNTHESIS` characters (see there)."""
    head = [
        f"Synthesise the deliberation on: {_clip(_one_line(question), MAX_QUESTION_SHOWN)}",
        "Each proposal below passed the quality gate. Weigh them, resolve disagreements, "
        "and propose actions only through your tools: each becomes an intent the broker "
        "decides on. Propose none if none is warranted.",
    ]
    claims = sum(len(p.claims) for p in emitted)
    spare = MAX_SYNTHESIS - sum(len(x) + 1 for x in head) - 80 * len(emitted) - 100
    limit = max(spare // max(claims, 1), 40)
    body = [line for p in emitted for line in _proposal_lines(p, limit)]
    return _clip("\n".join([*head, *(body or ["(no persona emitted a proposal)"])]), MAX_SYNTHESIS)


class ProvenanceEntry(Frozen):
    """One claim of one round of one persona, and the gate's verdict on its proposal."""

    persona: str
    round: int = Field(ge=1)
    claim: str | None
    """None when the reply failed the schema (no claim could be read)."""
    cites: tuple[str, ...] = ()
    gate: Literal["passed", "failed"]
    failures: tuple[GateFailure, ...] = ()
    """The failures of this claim and those of the proposal as a whole."""


def provenance_of(persona: str, round: int, result: GateResult) -> tuple[ProvenanceEntry, ...]:
    """One entry per claim of ``result``; one with no claim when the schema failed."""
    verdict: Literal["passed", "failed"] = "passed" if result.passed else "failed"
    if result.proposal is None:
        return (
            ProvenanceEntry(
                persona=persona, round=round, claim=None, gate=verdict, failures=result.failures
            ),
        )
    return tuple(
        ProvenanceEntry(
            persona=persona,
            round=round,
            claim=claim.text,
            cites=claim.cites,
            gate=verdict,
            failures=tuple(f for f in result.failures if f.claim in (None, i)),
        )
        for i, claim in enumerate(result.proposal.claims, start=1)
    )


class PersonaOutcome(StrEnum):
    """How a persona's turn ended."""

    EMITTED = "emitted"
    EXHAUSTED = "exhausted"
    """It failed the gate in every round."""
    OVER_BUDGET = "over_budget"
    """The rounds before it spent the run's budget: it did not speak."""


class DeliberationStatus(StrEnum):
    """Where a deliberation stands."""

    RUNNING = "running"
    SYNTHESISING = "synthesising"
    NEEDS_HUMAN = "needs_human"
    """The synthesis run waits on a human's decision."""
    COMPLETED = "completed"
    FAILED = "failed"


class PersonaState(Frozen):
    """One persona's turn so far."""

    name: str
    rounds: int = Field(default=0, ge=0)
    outcome: PersonaOutcome | None = None
    """None while it has not finished its turn."""
    released: int = Field(default=0, ge=0)
    """How many memory records were released to it."""


class DeliberationState(Frozen):
    """What a deliberation workflow answers to a query."""

    deliberation_id: str
    org_id: str = ""
    run_id: str | None = None
    """The deliberation's run (recorded as it begins): its reach decides who reads this."""
    status: DeliberationStatus = DeliberationStatus.RUNNING
    personas: tuple[PersonaState, ...] = ()
    provenance: tuple[ProvenanceEntry, ...] = ()
    synthesis_run_id: str | None = None
    synthesis: RunState | None = None
    """The synthesising run's final state: its intents and the broker's decisions."""
    spent_cents: int = 0
    """What the personas' rounds cost (charged to the run; the synthesis adds its own)."""
    error: str | None = None
    """Why the deliberation failed, when it did."""


# The workflow's inputs and steps -------------------------------------------------------

SYNTHESIS = "synthesis"
"""The key of the synthesising run's reply among scripted replies."""
DELIBERATION_STAGE = "deliberation"
"""The stage of a round's audit entry."""
GATE_RULE = "quality_gate"


class DeliberationInput(Frozen):
    """Start a deliberation: a question, the personas' plan, and the agent whose memory
    gate releases the context and whose run synthesises (and proposes the actions)."""

    deliberation_id: str
    org_id: str
    agent_id: str
    question: str = Field(min_length=1, max_length=4000)
    plan: DeliberationPlan
    requested_by: str
    scripted_replies: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Persona name → its replies round by round, and ``synthesis`` → the synthesising
    run's reply; honoured only by the scripted and replay providers."""
    hold_timeout_seconds: int | None = None


class DeliberationBegun(Frozen):
    """The deliberation's run, recorded: its provenance is read as that run is."""

    run_id: str
    workflow_id: str
    handle: str
    projects: tuple[str, ...] = ()
    budget_cents: int = 0
    """The agent's effective budget: the rounds stop once their charges reach it."""


class PersonaRound(Frozen):
    """One round of one persona: ask the model, gate the reply, record the round."""

    deliberation_id: str
    org_id: str
    run_id: str
    agent_id: str
    handle: str
    question: str
    persona: Persona
    round: int = Field(ge=1)
    context: tuple[tuple[str, str], ...] = ()
    """(record id, text) released to the persona."""
    earlier: tuple[Proposal, ...] = ()
    feedback: str | None = None
    scripted_reply: str | None = None


class RoundOutcome(Frozen):
    """The gate's verdict on one round (already on the chain)."""

    result: GateResult
    feedback: str | None = None
    """What the persona reads next round, when the gate failed."""
    cents: int = 0
    """What the round's model call cost (charged to the deliberation's run)."""


def deliberation_workflow_id(deliberation_id: str) -> str:
    """A deliberation's workflow id: what a list in the Temporal UI shows."""
    return f"deliberation-{deliberation_id}"


def round_key(deliberation_id: str, persona: str, round: int) -> str:
    """A round's audit entry key: a retried round records nothing twice."""
    return f"deliberation:{deliberation_id}:{persona}:{round}"
