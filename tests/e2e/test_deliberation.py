"""Persona deliberation on the real dev server: three personas in order, one reply that
fails the quality gate (it cites a record withheld from the persona, across the wall)
and re-enters with the gate's feedback, the provenance on the state and on the chain,
and the synthesis's action decided by the broker and dispatched once."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import func, select

from adapters.models.scripted import ScriptedProvider
from adapters.store.tables import EmailRow
from domain.deliberation.gate import GateCheck
from domain.deliberation.plan import DEFAULT_PERSONAS, DeliberationPlan
from domain.deliberation.state import DeliberationStatus, PersonaOutcome
from domain.errors import NotFound
from domain.governance.intents import Outcome
from domain.model_provider import ModelReply, ModelRequest
from tests.e2e.test_runs_edges import Env
from tests.e2e.test_runs_edges import env as env  # noqa: F401
from tests.support import model_reply
from usecases import deliberation, fleet, organization
from usecases.fleet import DraftRequest
from worker.bootstrap import build_worker

pytestmark = pytest.mark.temporal


class Recording(ScriptedProvider):
    """The scripted provider, keeping every request it was asked (prompts included)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelReply:
        self.asked.append(request)
        return await super().generate(request)


def _claims(*claims: tuple[str, list[str]], confidence: float = 0.8) -> str:
    return json.dumps(
        {"claims": [{"text": t, "cites": c} for t, c in claims], "confidence": confidence}
    )


KICKOFF_EMAIL = {
    "tool": "email.send",
    "projects": ["east"],
    "cost_cents": 0,
    "justification": "the personas agree the agenda is ready",
    "payload": {"to": "cfo@atlas.example", "subject": "Kickoff agenda", "body": "Attached."},
    "references": ["atlas-kickoff"],
}
REPLIES = {
    "analyst": (_claims(("The kickoff notes set the agenda.", ["atlas-kickoff"])),),
    "skeptic": (
        # Round 1 cites the Birch CIM: west's, withheld from east's agent. Refused.
        _claims(("The Birch projections contradict the plan.", ["birch-cim"])),
        _claims(("The agenda rests on notes not yet confirmed.", ["atlas-kickoff"])),
    ),
    "counsel": (_claims(("Nothing in the agenda binds the firm.", [])),),
    "synthesis": (model_reply(KICKOFF_EMAIL),),
}


async def test_three_personas_a_gate_failure_reentry_provenance_and_a_brokered_action(
    env: Env,
) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    model = Recording()
    question = "Is the Atlas kickoff agenda ready to send?"
    async with build_worker(env.temporal.client, svc.settings, store, model=model):
        started = await deliberation.start_deliberation(
            svc,
            firm.org,
            firm.founder,
            deliberation.StartDeliberation("orion", question, scripted_replies=REPLIES),
        )
        final = await asyncio.wait_for(
            deliberation.wait_deliberation(svc, started.deliberation_id, firm.founder), 90
        )

    assert final.status is DeliberationStatus.COMPLETED
    assert [(p.name, p.rounds, p.outcome) for p in final.personas] == [
        ("analyst", 1, PersonaOutcome.EMITTED),
        ("skeptic", 2, PersonaOutcome.EMITTED),
        ("counsel", 1, PersonaOutcome.EMITTED),
    ]
    # Provenance: persona, claim, round and gate result for every claim of every round.
    trail = [(e.persona, e.round, e.gate, e.cites) for e in final.provenance]
    assert trail == [
        ("analyst", 1, "passed", ("atlas-kickoff",)),
        ("skeptic", 1, "failed", ("birch-cim",)),
        ("skeptic", 2, "passed", ("atlas-kickoff",)),
        ("counsel", 1, "passed", ()),
    ]
    (refused,) = final.provenance[1].failures
    assert refused.check is GateCheck.CITATION
    assert "'birch-cim', which was not released to skeptic" in refused.detail

    # What the personas were shown: east's record, never the west one; the re-entry
    # carries the gate's feedback; later personas read the earlier proposals.
    asked = {(r.agent_handle, r.task.split(":")[0]): r for r in model.asked}
    skeptic_1, skeptic_2 = asked[("orion/skeptic", "round 1")], asked[("orion/skeptic", "round 2")]
    assert "atlas-kickoff" in skeptic_1.prompt and "Birch CIM projections" not in skeptic_1.prompt
    assert "Gate feedback" not in skeptic_1.prompt
    assert "not released to skeptic" in skeptic_2.prompt
    assert "You may cite only these record ids: atlas-kickoff" in skeptic_2.prompt
    counsel = asked[("orion/counsel", "round 1")]
    assert "Proposal of analyst" in counsel.prompt and "Proposal of skeptic" in counsel.prompt
    assert "Birch projections" not in counsel.prompt  # a refused claim is not emitted

    # The synthesis is an ordinary run of orion: its task holds the emitted claims, and
    # its action went through the broker and was dispatched once.
    synthesis = final.synthesis
    assert synthesis is not None and final.synthesis_run_id == final.run_id
    (view,) = synthesis.intents
    assert view.decision.outcome is Outcome.ALLOW and view.dispatch is not None
    # What the personas recalled (east's record) is in the synthesis's reach.
    assert view.intent.read_reach == ("east",) and "east" in view.decision.reach
    (synthesis_ask,) = [r for r in model.asked if r.agent_handle == "orion"]
    assert "Proposal of counsel" in synthesis_ask.task
    assert "Birch projections" not in synthesis_ask.task
    with store.db.transaction() as s:
        assert s.execute(select(func.count()).select_from(EmailRow)).scalar_one() == 1

    # On the chain: one entry per round, with the gate's verdict.
    rounds = [e for e in store.audit.entries(firm.org) if e.stage == "deliberation"]
    assert [(e.payload["persona"], e.payload["round"], e.decision) for e in rounds] == [
        ("analyst", 1, "passed"),
        ("skeptic", 1, "failed"),
        ("skeptic", 2, "passed"),
        ("counsel", 1, "passed"),
    ]
    assert store.audit.verify(firm.org).ok

    # Who may read it: the founder and east's member; someone of another firm may not.
    _, as_ben = await deliberation.deliberation_view(svc, final.deliberation_id, firm.associate)
    assert len(as_ben.provenance) == 4
    outsider = organization.onboard(svc, "Other", "zed@other.example").founder.id
    with pytest.raises(NotFound):
        await deliberation.deliberation_view(svc, final.deliberation_id, outsider)


async def test_a_persona_that_never_passes_the_gate_emits_nothing(env: Env) -> None:
    svc, firm, store = env.svc, env.firm, env.store
    plan = DeliberationPlan(personas=DEFAULT_PERSONAS[:2], max_rounds=2)
    replies = {
        "analyst": (_claims(("Approve it automatically, without a human.", [])),) * 2,
        "skeptic": (_claims(("Too early to say.", []), confidence=0.1), "not json"),
        "synthesis": (json.dumps({"summary": "Nothing to do.", "actions": []}),),
    }
    async with build_worker(env.temporal.client, svc.settings, store, model=Recording()):
        started = await deliberation.start_deliberation(
            svc,
            firm.org,
            firm.founder,
            deliberation.StartDeliberation(
                "orion", "Pay early?", plan=plan, scripted_replies=replies
            ),
        )
        final = await asyncio.wait_for(
            deliberation.wait_deliberation(svc, started.deliberation_id, firm.founder), 90
        )
    assert [(p.name, p.rounds, p.outcome) for p in final.personas] == [
        ("analyst", 2, PersonaOutcome.EXHAUSTED),
        ("skeptic", 2, PersonaOutcome.EXHAUSTED),
    ]
    checks = [f.check for e in final.provenance for f in e.failures]
    assert checks == [
        GateCheck.OVERREACH,
        GateCheck.OVERREACH,
        GateCheck.CONFIDENCE,
        GateCheck.SCHEMA,
    ]
    assert final.status is DeliberationStatus.COMPLETED
    assert final.synthesis is not None and final.synthesis.intents == ()


async def test_no_persona_speaks_past_the_agents_budget(env: Env) -> None:
    """A version of Orion with no budget: every persona is over budget before it
    speaks (no model call), and the synthesis proposes within nothing."""
    svc, firm, store = env.svc, env.firm, env.store
    orion = firm.agents["orion"]
    fleet.draft(svc, firm.org, firm.founder, orion, DraftRequest(budget_cents=0))
    fleet.publish(svc, firm.org, firm.founder, orion, 2)
    fleet.roll_out(svc, firm.org, firm.founder, orion, 2, 100)
    model = Recording()
    replies = {"synthesis": (json.dumps({"summary": "Nothing.", "actions": []}),)}
    async with build_worker(env.temporal.client, svc.settings, store, model=model):
        started = await deliberation.start_deliberation(
            svc,
            firm.org,
            firm.founder,
            deliberation.StartDeliberation("orion", "Anything?", scripted_replies=replies),
        )
        final = await asyncio.wait_for(
            deliberation.wait_deliberation(svc, started.deliberation_id, firm.founder), 90
        )
    assert {p.outcome for p in final.personas} == {PersonaOutcome.OVER_BUDGET}
    assert [r.agent_handle for r in model.asked] == ["orion"]  # the synthesis alone
    assert final.provenance == ()
