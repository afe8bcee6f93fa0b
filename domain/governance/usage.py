"""What a model call costs, charged to the run that made it.

Token prices are settings (cents per million tokens, input and output apart); a call's
cost is rounded up to whole cents, so a run is never charged less than it spent. The
charge is on the audit chain (one entry per run's reasoning call) and the broker adds it
to what the run has spent before it decides an intent against the effective budget.
"""

from __future__ import annotations

import math

from pydantic import Field

from domain.audit.chain import AuditDraft
from domain.governance.records import RUN_STAGE
from domain.organization.contracts import Frozen

MODEL_USAGE = "model_usage"
"""The rule of a model call's charge entry."""


class TokenPrices(Frozen):
    """Cents per million tokens, read and written."""

    input_cents_per_mtok: float = Field(default=10.0, ge=0)
    output_cents_per_mtok: float = Field(default=40.0, ge=0)


def cost_cents(prices: TokenPrices, input_tokens: int | None, output_tokens: int | None) -> int:
    """The whole cents a call costs (rounded up; a provider that reports no usage: 0)."""
    exact = (
        (input_tokens or 0) * prices.input_cents_per_mtok
        + (output_tokens or 0) * prices.output_cents_per_mtok
    ) / 1_000_000
    return math.ceil(exact - 1e-9) if exact > 0 else 0


def usage_key(run_id: str, call: str | None = None) -> str:
    """The event key of a run's model charge: its reasoning call, or (``call``) another
    call made for the run, such as a persona's round of a deliberation. A run's charges
    are the entries keyed ``usage_key(run_id)`` and ``usage_key(run_id) + ":…"``."""
    return f"model-usage:{run_id}" if call is None else f"model-usage:{run_id}:{call}"


def usage_draft(
    run_id: str,
    agent_id: str,
    provider: str,
    model: str,
    input_tokens: int | None,
    output_tokens: int | None,
    cents: int,
    call: str | None = None,
) -> AuditDraft:
    """A run's model call, charged to it (``call`` names a call besides its reasoning)."""
    return AuditDraft(
        event_key=usage_key(run_id, call),
        actor=agent_id,
        decision="charged",
        stage=RUN_STAGE,
        rule=MODEL_USAGE,
        payload={
            "run_id": run_id,
            "provider": provider,
            "model": model,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cents": cents,
        },
    )
