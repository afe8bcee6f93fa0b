"""The quality gate every persona's reply passes: strict JSON, citations of released
records only, no policy overreach. Nothing here reads the meaning of a claim."""

from __future__ import annotations

import math
from collections.abc import Collection
from enum import StrEnum
from typing import Literal

from pydantic import Field

from domain.deliberation.plan import Persona, _Unit
from domain.learning.overreach import overreach
from domain.organization.contracts import Frozen
from domain.strict_json import Refused, load

MAX_CLAIMS = 8


MAX_CLAIM = 1000
"""The longest claim text (characters)."""


MAX_CITES = 20
"""The most record ids one claim may cite."""


MAX_REF = 200
"""The longest record id a claim may cite."""


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


GATE_RULE = "quality_gate"
