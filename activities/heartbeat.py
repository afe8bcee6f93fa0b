"""Activities of the heartbeat: list organizations, gather a snapshot (asking Temporal
which runs have ended) and run the checks, keep the HeartbeatRun. Sentinel's proposals
are decided and dispatched by the broker's own activities."""

from __future__ import annotations

import time

from temporalio import activity

from activities.off_loop import in_thread
from domain.heartbeat.checks import (
    HeartbeatInput,
    HeartbeatRun,
    Inspection,
    InspectRequest,
    OrgList,
    run_checks,
)
from domain.heartbeat.ports import HeartbeatStore, RunStatuses


class HeartbeatActivities:
    """The heartbeat's reads and its one write (its own record), over its ports."""

    def __init__(self, store: HeartbeatStore, statuses: RunStatuses) -> None:
        self._store = store
        self._statuses = statuses

    @activity.defn(name="heartbeat_orgs")
    async def orgs(self, start: HeartbeatInput) -> OrgList:
        """The organization asked for, or every one."""
        if start.org_id is not None:
            return OrgList(org_ids=(start.org_id,))
        return OrgList(org_ids=tuple(await in_thread(self._store.orgs)))

    @activity.defn(name="heartbeat_inspect")
    async def inspect(self, request: InspectRequest) -> Inspection:
        """Gather the snapshot, ask Temporal about the runs holding something open, run
        every check, and record the run with its findings before anything is proposed."""
        started = time.perf_counter()
        snap = await in_thread(self._store.snapshot, request.org_id, request.now)
        workflows = sorted({o.workflow_id for o in snap.open_intents if o.workflow_id})
        statuses = {w: await self._statuses.status(w) for w in workflows}
        snap = snap.model_copy(
            update={
                "open_intents": tuple(
                    o.model_copy(update={"workflow_status": statuses.get(o.workflow_id or "")})
                    for o in snap.open_intents
                )
            }
        )
        gather_ms = (time.perf_counter() - started) * 1000
        findings, checks = run_checks(snap, request.now, time.perf_counter)
        run = HeartbeatRun(
            id=request.run_id,
            org_id=request.org_id,
            workflow_id=request.workflow_id,
            started_at=request.now,
            checks=tuple(checks),
            findings=tuple(findings),
            gather_ms=gather_ms,
            error=None if snap.sentinel_id else "the organization has no active diagnostic agent",
        )
        await in_thread(self._store.record, run)
        # The workflow needs only what Sentinel's proposals read: the snapshot goes into
        # its history, so it carries no commitment or intent, and only the filings of
        # subjects found now (a large organization must not make a large history).
        subjects = {f.subject for f in findings}
        lean = snap.model_copy(
            update={
                "commitments": (),
                "open_intents": (),
                "findings": tuple(f for f in snap.findings if f.subject in subjects),
                "recently_proposed": tuple(s for s in snap.recently_proposed if s in subjects),
            }
        )
        return Inspection(snapshot=lean, run=run)

    @activity.defn(name="heartbeat_record")
    async def record(self, run: HeartbeatRun) -> None:
        """Keep the finished run: what became of each of Sentinel's proposals."""
        await in_thread(self._store.record, run)
