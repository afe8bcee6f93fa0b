"""Who reads: the :class:`~domain.memory.release.Reader` a read path hands the release
rule, resolved from the organization's directory as of one moment.

A read names its asker and, for a run a human started, the human it acts for. The
reader may read the projects the asker is staffed on that no barrier splits
(:func:`~domain.organization.visibility.gated_projects`), narrowed, when it acts for a
human, to what that human may read. Anyone who is not a principal of the organization
reads as a stranger: no organization, no projects, so the rule withholds everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from domain.memory.release import Reader
from domain.organization.contracts import Barrier, Organization, Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus
from domain.organization.visibility import gated_projects, on_behalf, readable_projects


class ReaderDirectory(Protocol):
    """What resolving a reader needs of an organization's configuration (the store's
    cached policy is one)."""

    @property
    def org(self) -> Organization | None: ...

    @property
    def principals(self) -> Mapping[str, Principal]: ...

    @property
    def staffing(self) -> Mapping[str, tuple[Staffing, ...]]:
        """Every staffing row (current or not), by principal."""
        ...

    @property
    def barriers(self) -> tuple[Barrier, ...]: ...


def stranger(asker: str) -> Reader:
    """A reader of no organization here: the release rule's own organization check
    withholds everything from it."""
    return Reader(principal_id=asker, org_id="", is_agent=True, projects=frozenset())


def reader_of(
    directory: ReaderDirectory | None,
    org_id: str,
    asker: str,
    on_behalf_of: str | None,
    now: datetime,
) -> Reader:
    """Who reads, and the projects they may read at ``now`` (nothing for a stranger,
    nothing for a suspended or offboarded reader, nothing when acting for someone who is
    not an active human of this organization)."""
    principal = None if directory is None else directory.principals.get(asker)
    if directory is None or principal is None:
        return stranger(asker)
    if principal.status is not PrincipalStatus.ACTIVE:
        return stranger(asker)  # suspended work reads nothing, whatever it kept running
    allowed = gated_projects(asker, directory.staffing.get(asker, ()), directory.barriers, now)
    if on_behalf_of is not None:
        human = directory.principals.get(on_behalf_of)
        if (
            directory.org is None
            or human is None
            or human.kind is not PrincipalKind.HUMAN
            or human.status is not PrincipalStatus.ACTIVE
        ):
            allowed = frozenset()  # acting for someone unknown or gone here: nothing
        else:
            staffing = directory.staffing.get(on_behalf_of, ())
            allowed = on_behalf(allowed, readable_projects(human, directory.org, staffing, now))
    return Reader(
        principal_id=asker,
        org_id=org_id,
        is_agent=principal.kind is PrincipalKind.AGENT,
        projects=allowed,
    )
