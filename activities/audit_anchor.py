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
from domain.audit.checkpoint import NoteError, cosigned, parse_note, split_notes
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
        held = dict(start.anchored)
        if not held:  # a fresh anchor: what this host's file holds, until the state has it
            held = self._from_file()
        # An organization the anchor holds is checked even when its chain is gone.
        for org_id in sorted(set(self._audit.org_ids()) | set(held)):
            try:
                note, problem = self._one(org_id, held.get(org_id), now)
            except (AuditError, ValueError) as e:  # this chain only: the others go on
                note, problem = None, f"its chain cannot be checkpointed: {e}"
            if problem is not None:
                refused[org_id] = problem
                self._poison(org_id, problem, now)
                if org_id not in start.anchored and org_id in held:
                    anchored[org_id] = held[org_id]  # read from the file: kept from now on
            elif note is not None and note != start.anchored.get(org_id):
                anchored[org_id] = note
        self._append(anchored)
        return AnchorReport(anchored=anchored, refused=refused)

    def _one(self, org_id: str, before: str | None, now: datetime) -> tuple[str | None, str | None]:
        """One organization: its newest checkpoint to anchor, or why its chain no longer
        extends what was anchored. Checked before a checkpoint is cut (a rolled-back or
        rewritten chain gets no new signature), and again after."""
        if before is not None:
            problem = self._audit.extends(org_id, before, before)
            if problem is not None:
                return None, problem
        self._audit.checkpoint(org_id, now)
        newest = self._audit.newest_checkpoint(org_id)
        if newest is None:
            return None, None
        problem = self._audit.extends(org_id, before, newest)
        if problem is not None:
            return None, problem
        return self._witnessed(org_id, before, newest)

    def _from_file(self) -> dict[str, str]:
        """The newest note per organization in the anchor file: what a fresh anchor (its
        workflow's state lost) still holds on this host."""
        if self._file is None or not self._file.exists():
            return {}
        newest: dict[str, tuple[int, str]] = {}
        for note in split_notes(self._file.read_text(encoding="utf-8")):
            try:
                checkpoint = parse_note(note).checkpoint()
            except NoteError:
                continue
            org_id = checkpoint.origin.rpartition("/")[2]
            if checkpoint.size >= newest.get(org_id, (0, ""))[0]:
                newest[org_id] = (checkpoint.size, note)
        return {org: note for org, (_, note) in newest.items()}

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
        except NotFound:  # no head row: nothing can be decided for it anyway
            pass
        except Exception:  # one organization's ruin does not stop the pass for the others
            log.exception("organization %s could not be poisoned", org_id)

    @activity.defn(name="audit_anchor")
    async def anchor(self, start: AnchorInput) -> AnchorReport:
        """One pass over every organization's chain."""
        return await in_thread(self._pass, start)
