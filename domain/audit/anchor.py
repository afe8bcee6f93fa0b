"""The anchor: every organization's newest checkpoint, kept where the database cannot
rewrite it (a long-running Temporal workflow's history, and an append-only file).

Each pass cuts a checkpoint of every chain that grew, checks that the new tree extends
the one anchored before (a consistency proof against the anchored root), and only then
anchors it. A database rolled back below, or rewritten under, what was anchored cannot
pass: its broker is poisoned, and every verification that is given the anchored
checkpoint says the same.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import Field

from domain.organization.contracts import Frozen

ANCHOR_SECONDS = 60
"""How often the anchor cuts and anchors checkpoints by default: what a rollback can
take back undetected is at most this much (or :data:`~domain.audit.tree.CHECKPOINT_EVERY`
entries, anchored at the next pass). A pass with nothing new costs one read per
organization and adds a few events to the workflow's history."""


class AnchorInput(Frozen):
    """What the anchor workflow carries across passes (and across continue-as-new)."""

    anchored: dict[str, str] = Field(default_factory=dict)
    """The newest anchored checkpoint (a signed note) of each organization."""
    every_seconds: int = ANCHOR_SECONDS


class AnchorReport(Frozen):
    """One pass: the checkpoints anchored now, and the chains that could not be."""

    anchored: dict[str, str] = Field(default_factory=dict)
    refused: dict[str, str] = Field(default_factory=dict)
    """Why each organization's new tree does not extend its anchored one."""


class AnchorReading(Frozen):
    """What the anchor holds for one organization, as a verification read it."""

    note: str | None = None
    """The newest anchored checkpoint (a signed note); None when there is none yet."""
    reached: bool = True
    """False when the anchor could not be asked (no anchor runs, or Temporal is out of
    reach): the verification then could not hold the chain to it, and says so."""


class AnchorGateway(Protocol):
    """Reads the anchor (outside the database) and nudges it to pass now."""

    async def anchored(self, org_id: str) -> AnchorReading:
        """The organization's newest anchored checkpoint, or why it could not be read."""
        ...

    async def nudge(self) -> None:
        """Ask the anchor to make a pass now rather than at its next interval."""
        ...
