"""The anchor's one activity: cut, check and anchor every organization's checkpoint."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from temporalio import activity

from activities.off_loop import in_thread
from domain.audit.anchor import AnchorInput, AnchorReport
from domain.audit.checkpoint import cosigned, parse_note
from domain.audit.ports import AnchoredLog, AuditError
from domain.audit.witness import WitnessClient, WitnessFailed
from domain.errors import NotFound
from domain.governance.ports import GovernanceStore
from usecases import governance

log = logging.getLogger("verletica.anchor")


class AnchorActivities:
    """Checkpoints every chain that grew and anchors it, once it extends the anchored."""

    def __init__(
        self,
        audit: AnchoredLog,
        governance_store: GovernanceStore,
        clock: Callable[[], datetime],
        file: Path | None,
        witness: WitnessClient | None = None,
    ) -> None:
        self._audit = audit
        self._witness = witness
        self._governance = governance_store
        self._clock = clock
        self._file = file

    def _append(self, notes: dict[str, str]) -> None:
        """Append the anchored notes to the anchor file, on disk before they count."""
        if self._file is None or not notes:
            return
        self._file.parent.mkdir(parents=True, exist_ok=True)
        with self._file.open("a", encoding="utf-8") as f:
            for note in notes.values():
                f.write(note + "\n")  # a note ends in a newline: a blank line between notes
            f.flush()
            os.fsync(f.fileno())

    def _pass(self, start: AnchorInput) -> AnchorReport:
        now = self._clock()
        anchored: dict[str, str] = {}
        refused: dict[str, str] = {}
        for org_id in self._audit.org_ids():
            before = start.anchored.get(org_id)
            try:
                self._audit.checkpoint(org_id, now)
            except AuditError as e:  # a chain that cannot be checkpointed is checked below
                log.warning("organization %s: no checkpoint cut: %s", org_id, e)
            newest = self._audit.newest_checkpoint(org_id)
            if newest is None and before is None:
                continue
            # Checked even when nothing is new: the database may have been rolled back
            # to the very checkpoint that was anchored, or rewritten under it.
            problem = self._audit.extends(org_id, before, newest or before or "")
            if problem is None and newest is not None:
                newest, problem = self._witnessed(org_id, before, newest)
            if problem is not None:
                refused[org_id] = problem
                self._poison(org_id, problem, now)
            elif newest is not None and newest != before:
                anchored[org_id] = newest
        self._append(anchored)
        return AnchorReport(anchored=anchored, refused=refused)

    def _witnessed(self, org_id: str, before: str | None, newest: str) -> tuple[str, str | None]:
        """``newest`` with the witness's cosignature (asked for once per checkpoint), and
        the problem when the witness says the chain misbehaved. A witness out of reach
        delays nothing: the checkpoint is anchored without it and offered again next pass."""
        witness = self._witness
        if witness is None:
            return newest, None
        note = parse_note(newest)
        if cosigned(note, witness.key) is not None:
            return newest, None
        old = 0 if before is None else parse_note(before).checkpoint().size
        size = note.checkpoint().size
        try:
            signed = witness.cosign(
                note, old, lambda since: self._audit.consistency_path(org_id, since, size)
            )
        except WitnessFailed as e:
            if e.misbehaved:
                return newest, str(e)
            log.warning("organization %s: not witnessed this pass: %s", org_id, e)
            return newest, None
        added = [line for line in signed.signatures if line not in note.signatures]
        self._audit.add_cosignature(org_id, size, added)
        return signed.render(), None

    def _poison(self, org_id: str, problem: str, now: datetime) -> None:
        words = f"the audit chain no longer holds what the anchor holds: {problem}"
        log.critical("organization %s: %s", org_id, words)
        try:
            governance.poison(self._governance, org_id, words, now)
        except NotFound:
            pass

    @activity.defn(name="audit_anchor")
    async def anchor(self, start: AnchorInput) -> AnchorReport:
        """One pass over every organization's chain."""
        return await in_thread(self._pass, start)
