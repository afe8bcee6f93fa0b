"""Step 1 of a run: may this agent run at all, with what budget and tools?"""

from __future__ import annotations

from datetime import datetime

from domain.governance.broker import current_projects, effective_budget
from domain.model import (
    AgentDefinition,
    Charter,
    CharterStatus,
    Frozen,
    Principal,
    PrincipalKind,
    PrincipalStatus,
    Staffing,
    StaffRole,
)
from domain.runs import ResolvedAgent
from domain.tools import REGISTRY


class ResolveRefusal(Frozen):
    """Why an agent may not run."""

    rule: str
    reason: str


def resolve_agent(
    org_id: str,
    principal: Principal | None,
    definition: AgentDefinition | None,
    charter: Charter | None,
    staffing: list[Staffing],
    now: datetime,
) -> ResolvedAgent | ResolveRefusal:
    """Active agent of this org, published charter, matching registry pin; budget and tools."""
    if principal is None or principal.org_id != org_id:
        return ResolveRefusal(rule="unknown_principal", reason="no such agent in this organization")
    if principal.kind is not PrincipalKind.AGENT:
        return ResolveRefusal(rule="not_an_agent", reason=f"{principal.handle} is not an agent")
    if principal.status is not PrincipalStatus.ACTIVE:
        return ResolveRefusal(rule="principal_inactive", reason=f"{principal.handle} is not active")
    if charter is None or charter.status is not CharterStatus.PUBLISHED:
        return ResolveRefusal(rule="charter_unpublished", reason="no published charter")
    if definition is None or definition.version != charter.definition_pin:
        return ResolveRefusal(
            rule="registry_pin_mismatch",
            reason=f"charter pins v{charter.definition_pin}, registry has "
            f"v{definition.version if definition else 'none'}",
        )
    return ResolvedAgent(
        agent_id=principal.id,
        handle=principal.handle,
        budget_cents=effective_budget(definition, charter),
        tools=tuple(t for t in charter.tools if t in REGISTRY),
        projects=tuple(sorted(current_projects(tuple(staffing), now, StaffRole.MEMBER))),
    )
