"""The starter fleet every new organization gets: named agents with distinct kinds,
charters and roles. Pure data; onboarding turns it into principals."""

from __future__ import annotations

from domain.organization.contracts import Frozen


class StarterAgent(Frozen):
    """One agent of the starter pack."""

    handle: str
    display_name: str
    agent_kind: str
    role: str
    purpose: str
    instructions: str
    tools: tuple[str, ...]
    budget_cents: int
    ceiling_cents: int


STARTER_FLEET: tuple[StarterAgent, ...] = (
    StarterAgent(
        handle="orion",
        display_name="Orion",
        agent_kind="planner",
        role="engagement planner",
        purpose="Plans and coordinates the work of the engagements it is staffed on.",
        instructions="Keep clients informed; never reach into an engagement you are not on.",
        tools=("email.send",),
        budget_cents=10_000,
        ceiling_cents=5_000,
    ),
    StarterAgent(
        handle="vega",
        display_name="Vega",
        agent_kind="planner",
        role="engagement planner",
        purpose="Plans and coordinates the work of the engagements it is staffed on.",
        instructions="Keep clients informed; never reach into an engagement you are not on.",
        tools=("email.send",),
        budget_cents=10_000,
        ceiling_cents=5_000,
    ),
    StarterAgent(
        handle="ledger",
        display_name="Ledger",
        agent_kind="finance",
        role="finance operations",
        purpose="Pays approved vendors and keeps engagement spend inside its commitments.",
        instructions="Pay only invoices that belong to an engagement you are staffed on.",
        tools=("payments.pay", "email.send", "webhook.post"),
        budget_cents=2_000_000,
        ceiling_cents=1_500_000,
    ),
    StarterAgent(
        handle="sentinel",
        display_name="Sentinel",
        agent_kind="diagnostic",
        role="diagnostics",
        purpose="Watches commitments, holds and findings, and reports what needs a human.",
        instructions="Report findings; never act on them yourself (a hold only narrows).",
        # Filing findings, closing what ended runs left open and holding spending whose
        # cap expired: the heartbeat's proposals.
        tools=("email.send", "findings.file", "keys.close", "holds.place"),
        budget_cents=0,
        ceiling_cents=0,
    ),
    StarterAgent(
        handle="scout",
        display_name="Scout",
        agent_kind="research",
        role="research analyst",
        purpose="Gathers and summarises material for the engagements it is staffed on.",
        instructions="Cite the records you use; stay inside your engagements.",
        tools=("email.send",),
        budget_cents=1_000,
        ceiling_cents=1_000,
    ),
)
