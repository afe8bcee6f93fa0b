"""The console's router: every group of pages under ``/console``, out of the API's schema.

Each group is a module along its capability's stem (what every page shares is
:mod:`api.console.pages`): :mod:`~api.console.ingress` (signing in and out),
:mod:`~api.console.organization` (onboarding, the workspace), :mod:`~api.console.needs_you`
(the queue, its actions, the autonomy metrics) and :mod:`~api.console.needs_you_decided`
(what you decided), :mod:`~api.console.governance` (a held intent),
:mod:`~api.console.runs` (the runs, starting one, a run live), :mod:`~api.console.work_graph`
and :mod:`~api.console.deliberation`, :mod:`~api.console.fleet` (the agents),
:mod:`~api.console.memory` and :mod:`~api.console.audit`.
"""

from __future__ import annotations

from fastapi import APIRouter

from api.console import (
    audit,
    deliberation,
    fleet,
    governance,
    ingress,
    memory,
    needs_you,
    needs_you_decided,
    organization,
    runs,
    work_graph,
)

router = APIRouter(prefix="/console", include_in_schema=False)
for group in (
    ingress,
    organization,
    needs_you,
    needs_you_decided,
    governance,
    runs,
    work_graph,
    deliberation,
    fleet,
    memory,
    audit,
):
    router.include_router(group.router)
