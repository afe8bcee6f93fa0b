"""The console's router: every group of pages under ``/console``, out of the API's schema.

Each group is a module along its capability's stem (what every page shares is
:mod:`api.console.pages`): :mod:`~api.console.ingress` (signing in and out),
:mod:`~api.console.organization` (onboarding, the workspace), :mod:`~api.console.needs_you`
(the queue, its actions, the autonomy metrics), :mod:`~api.console.decided` (what you
decided), :mod:`~api.console.governance` (a held
intent), :mod:`~api.console.runs`, :mod:`~api.console.agents` and :mod:`~api.console.audit`.
"""

from __future__ import annotations

from fastapi import APIRouter

from api.console import (
    agents,
    audit,
    decided,
    deliberation,
    governance,
    ingress,
    memory,
    needs_you,
    organization,
    runs,
    work_graph,
)

router = APIRouter(prefix="/console", include_in_schema=False)
for group in (
    ingress,
    organization,
    needs_you,
    decided,
    governance,
    runs,
    work_graph,
    deliberation,
    agents,
    memory,
    audit,
):
    router.include_router(group.router)
