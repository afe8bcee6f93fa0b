"""Search attributes that make runs findable in the Temporal UI and CLI."""

from __future__ import annotations

from temporalio.common import SearchAttributeKey

ORG = SearchAttributeKey.for_keyword("VerleticaOrg")
AGENT = SearchAttributeKey.for_keyword("VerleticaAgent")
PROJECTS = SearchAttributeKey.for_keyword_list("VerleticaProjects")
NEEDS_HUMAN = SearchAttributeKey.for_bool("VerleticaNeedsHuman")

ALL = (ORG, AGENT, PROJECTS, NEEDS_HUMAN)
"""Registered by ``temporal-dev/start`` and by the test environment."""
