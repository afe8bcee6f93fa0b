"""A deliberation's plan: the personas (data, not code) in the order they speak."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, ValidationError, model_validator

from domain.organization.contracts import Frozen, Slug
from domain.strict_json import Refused, load

MAX_PERSONAS = 6


MAX_ROUNDS = 5


MAX_CONSTRAINTS = 10


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
