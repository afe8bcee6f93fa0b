"""Budgets charged as they are spent, on the real dev server: the worker asks a local
server speaking Gemini's REST shape, its reported token usage is charged to the run
(on the chain), shows in the run's state, and counts against the agent's effective
budget when the broker decides what the run proposes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from temporalio.testing import WorkflowEnvironment

from adapters.models.gemini import GeminiAccess, GeminiProvider
from adapters.store.store import Store
from domain.deliberation.plan import DEFAULT_PERSONAS, DeliberationPlan
from domain.governance.intents import Outcome, Stage
from domain.governance.usage import TokenPrices, cost_cents
from domain.runs.run import RunStatus
from tests.integration.test_gemini_provider import API_KEY, MODEL, GeminiStub, ok_body
from tests.integration.test_gemini_provider import gemini_stub as gemini_stub  # noqa: F401
from tests.support import TEST_KEYS, Firm, make_settings, utc_now, wire
from usecases import deliberation, runs
from usecases.context import Ports
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal

EMAIL = json.dumps(
    {
        "summary": "Tell the CFO.",
        "actions": [
            {
                "tool": "email.send",
                "projects": ["east"],
                "payload": {"to": "cfo@atlas.example", "subject": "Kickoff", "body": "Friday."},
                "cost_cents": 0,
                "justification": "the date moved",
            }
        ],
    }
)


class Budgeted:
    def __init__(self, temporal: WorkflowEnvironment, store: Store, svc: Ports) -> None:
        self.temporal, self.store, self.svc = temporal, store, svc
        self.firm = Firm(svc)


@pytest.fixture
async def budgeted(temporal_env: WorkflowEnvironment, sqlite_url: str) -> AsyncIterator[Budgeted]:
    # A cent a token read, nothing for tokens written: the arithmetic is plain to see.
    settings = make_settings(
        database_url=sqlite_url,
        model_input_cents_per_mtok=1_000_000.0,
        model_output_cents_per_mtok=0.0,
    )
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    yield Budgeted(temporal_env, store, wire(store, temporal_env.client, settings, utc_now))
    store.close()


def _usage(tokens: int) -> dict[str, object]:
    return ok_body(
        EMAIL,
        usageMetadata={
            "promptTokenCount": tokens,
            "candidatesTokenCount": 7,
            "totalTokenCount": tokens + 7,
        },
    )


async def test_model_tokens_are_charged_to_the_run_and_count_against_its_budget(
    budgeted: Budgeted,
    gemini_stub: GeminiStub,  # noqa: F811
) -> None:
    svc, firm, store = budgeted.svc, budgeted.firm, budgeted.store
    gemini = GeminiProvider(GeminiAccess(api_key=API_KEY, base_url=gemini_stub.base_url), MODEL)
    orion = firm.agents["orion"]  # effective budget: min(10,000, ceiling 5,000) = 5,000 cents
    async with build_worker(budgeted.temporal.client, svc.settings, store, model=gemini):
        gemini_stub.answer(200, _usage(120))
        cheap = await runs.start_run(
            svc, firm.org, firm.founder, runs.StartRun(orion, "Tell the CFO.")
        )
        first = await asyncio.wait_for(runs.wait_run(svc, cheap.run_id, firm.founder), 60)
        gemini_stub.answer(200, _usage(6_000))
        dear = await runs.start_run(
            svc, firm.org, firm.founder, runs.StartRun(orion, "Tell the CFO again.")
        )
        second = await asyncio.wait_for(runs.wait_run(svc, dear.run_id, firm.founder), 60)

    assert first.status is RunStatus.COMPLETED
    assert (first.model_cents, first.spent_cents) == (120, 120)
    assert first.intents[0].decision.outcome is Outcome.ALLOW
    # The model call alone took 6,000 of the 5,000 cents: what it proposes is refused at
    # identity & charter, and nothing is sent.
    (refused,) = second.intents
    assert (refused.decision.outcome, refused.decision.stage, refused.decision.rule) == (
        Outcome.REJECT,
        Stage.IDENTITY,
        "budget_exceeded",
    )
    assert "$60.00" in refused.decision.reason and "$50.00" in refused.decision.reason
    assert (second.model_cents, second.spent_cents) == (6_000, 6_000)
    charges = [e for e in store.audit.entries(firm.org) if e.rule == "model_usage"]
    assert [
        (e.payload["run_id"], e.payload["input_tokens"], e.payload["cents"]) for e in charges
    ] == [
        (cheap.run_id, 120, 120),
        (dear.run_id, 6_000, 6_000),
    ]
    assert {e.payload["model"] for e in charges} == {"gemini-test-001"}
    assert store.audit.verify(firm.org).ok


def test_a_calls_cost_is_rounded_up_to_whole_cents() -> None:
    prices = TokenPrices(input_cents_per_mtok=10.0, output_cents_per_mtok=40.0)
    assert cost_cents(prices, None, None) == 0
    assert cost_cents(prices, 0, 0) == 0
    assert cost_cents(prices, 1, 0) == 1  # a thousandth of a cent is still charged
    assert cost_cents(prices, 1_000_000, 0) == 10
    assert cost_cents(prices, 1_000_000, 1_000_000) == 50
    assert cost_cents(prices, 1_000_001, 0) == 11


async def test_a_deliberations_persona_rounds_are_charged_to_its_run(
    budgeted: Budgeted,
    gemini_stub: GeminiStub,  # noqa: F811
) -> None:
    """Each persona's round is charged to the deliberation's run as it is spent; what
    the synthesis then proposes is decided against what is left of the budget."""
    svc, firm, store = budgeted.svc, budgeted.firm, budgeted.store
    gemini = GeminiProvider(GeminiAccess(api_key=API_KEY, base_url=gemini_stub.base_url), MODEL)
    claims = json.dumps(
        {"claims": [{"text": "The CFO is waiting.", "cites": []}], "confidence": 0.9}
    )

    def usage(text: str, tokens: int) -> dict[str, object]:
        return ok_body(text, usageMetadata={"promptTokenCount": tokens, "candidatesTokenCount": 0})

    plan = DeliberationPlan(personas=DEFAULT_PERSONAS[:2], max_rounds=1)
    # Two persona rounds of 2,000 and 2,500 cents; the synthesis call itself costs 600:
    # 5,100 of Orion's 5,000 cents are gone before the email is decided.
    gemini_stub.answer_in_turn(usage(claims, 2_000), usage(claims, 2_500), usage(EMAIL, 600))
    async with build_worker(budgeted.temporal.client, svc.settings, store, model=gemini):
        started = await deliberation.start_deliberation(
            svc,
            firm.org,
            firm.founder,
            deliberation.StartDeliberation("orion", "Tell the CFO?", plan=plan),
        )
        final = await asyncio.wait_for(
            deliberation.wait_deliberation(svc, started.deliberation_id, firm.founder), 60
        )
    assert final.synthesis is not None
    (refused,) = final.synthesis.intents
    assert (refused.decision.outcome, refused.decision.rule) == (Outcome.REJECT, "budget_exceeded")
    assert "$51.00" in refused.decision.reason
    charges = [e for e in store.audit.entries(firm.org) if e.rule == "model_usage"]
    assert sorted(e.payload["cents"] for e in charges) == [600, 2_000, 2_500]
    assert {e.payload["run_id"] for e in charges} == {final.run_id}
    assert store.audit.verify(firm.org).ok
