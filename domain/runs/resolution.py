"""Step 1 of a run: may this agent run at all, with which version, budget and tools?"""

from __future__ import annotations

from datetime import datetime

from domain.fleet.registry import AgentPin, version_for
from domain.governance.broker import current_projects, effective_budget
from domain.organization.contracts import Frozen
from domain.organization.kinds import CharterStatus, PrincipalKind, PrincipalStatus, StaffRole
from domain.runs.ports import AgentProfile
from domain.runs.run import ResolvedAgent
from domain.tools import REGISTRY


class ResolveRefusal(Frozen):
    """Why an agent may not run."""

    rule: str
    reason: str


def resolve_agent(
    org_id: str, agent: AgentProfile | None, run_id: str, now: datetime
) -> ResolvedAgent | ResolveRefusal:
    """Active agent of this org; the version its rollout gives run ``run_id`` (published,
    and the definition it pins in the registry); budget, tools and projects of it."""
    principal = None if agent is None else agent.principal
    if agent is None or principal is None or principal.org_id != org_id:
        return ResolveRefusal(rule="unknown_principal", reason="no such agent in this organization")
    if principal.kind is not PrincipalKind.AGENT:
        return ResolveRefusal(rule="not_an_agent", reason=f"{principal.handle} is not an agent")
    if principal.status is not PrincipalStatus.ACTIVE:
        return ResolveRefusal(rule="principal_inactive", reason=f"{principal.handle} is not active")
    if agent.rollout is None:
        return ResolveRefusal(rule="charter_unpublished", reason="no published charter")
    version = version_for(agent.rollout, run_id)
    charter, definition = agent.version(version)
    if charter is None or charter.status is not CharterStatus.PUBLISHED:
        state = "missing" if charter is None else charter.status.value
        return ResolveRefusal(
            rule="charter_unpublished", reason=f"{principal.handle} v{version} is {state}"
        )
    if definition is None:
        return ResolveRefusal(
            rule="registry_pin_mismatch",
            reason=f"charter v{version} pins definition v{charter.definition_pin}, "
            "which the registry does not hold",
        )
    return ResolvedAgent(
        agent_id=principal.id,
        handle=principal.handle,
        budget_cents=effective_budget(definition, charter),
        tools=tuple(t for t in charter.tools if t in REGISTRY),
        projects=tuple(sorted(current_projects(agent.staffing, now, StaffRole.MEMBER))),
        pin=AgentPin(version=charter.version, definition=definition.version),
    )
