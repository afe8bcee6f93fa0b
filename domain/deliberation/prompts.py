"""What each persona is told (its system prompt, the question, the claims so far, the
gate's feedback), and the synthesis task."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from domain.deliberation.gate import MAX_CLAIM, GateResult, Proposal
from domain.deliberation.plan import Persona

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
