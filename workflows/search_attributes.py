"""Search attributes that make runs findable in the Temporal UI and CLI."""

from __future__ import annotations

from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

ORG = SearchAttributeKey.for_keyword("VerleticaOrg")
AGENT = SearchAttributeKey.for_keyword("VerleticaAgent")
PROJECTS = SearchAttributeKey.for_keyword_list("VerleticaProjects")
NEEDS_HUMAN = SearchAttributeKey.for_bool("VerleticaNeedsHuman")

ALL = (ORG, AGENT, PROJECTS, NEEDS_HUMAN)
"""Registered by ``temporal-dev/start`` and by the test environment."""


def for_run(
    org_id: str, agent_handle: str, projects: tuple[str, ...] = ()
) -> TypedSearchAttributes:
    """A run's attributes as it starts: its org, its agent, not (yet) waiting on a human,
    and the agent's projects when it has any."""
    return TypedSearchAttributes(
        [
            SearchAttributePair(ORG, org_id),
            SearchAttributePair(AGENT, agent_handle),
            SearchAttributePair(NEEDS_HUMAN, False),
            *([SearchAttributePair(PROJECTS, list(projects))] if projects else []),
        ]
    )
