"""Established destinations: where a project's outbound work may go without a human.

The founder establishes a project's counterparties (a client's email domain, an address,
a payee and the bank details the firm pays them at), retires them, and may establish
what a held intent would reach while approving it. Each change is configuration, on the
chain. The broker holds any action whose destination its projects have not established
(:mod:`domain.governance.destinations`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from domain.errors import Forbidden, NotFound
from domain.governance.addresses import domain_of, fold_account, registrable
from domain.governance.destinations import (
    Counterparties,
    colleagues_of,
    new_destinations,
    normalized,
)
from domain.governance.intents import Intent
from domain.governance.outbound import outbound
from domain.organization.contracts import Destination, Staffing, is_slug
from domain.organization.kinds import DestinationKind
from domain.organization.ports import OrgChange
from domain.tools import REGISTRY
from usecases.access import founder, member, readable
from usecases.context import Ports, new_id


@dataclass(frozen=True)
class Establish:
    """A destination to establish for ``project``: a domain, an address or a payee (with
    the bank details the firm pays them at, for a payee)."""

    project: str
    kind: DestinationKind
    value: str
    account: str | None = None
    label: str = ""


def establish(ports: Ports, org_id: str, actor_id: str, command: Establish) -> Destination:
    """Establish a destination for a project (the founder's to do). Establishing one the
    project has already is a no-op that returns it; a payee established again with other
    bank details replaces the old ones (the old are retired in the same change)."""
    (kept,) = establish_all(ports, org_id, actor_id, [command])
    return kept


def establish_all(
    ports: Ports, org_id: str, actor_id: str, commands: Sequence[Establish]
) -> list[Destination]:
    """Establish several destinations in one change (all or none): onboarding's seeds, a
    held intent's new recipients and payee."""
    founder(ports, org_id, actor_id)
    checked = [_checked(c) for c in commands]
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        projects = change.project_slugs()
        return [_establish(change, actor_id, c, projects) for c in checked]


def _checked(command: Establish) -> Establish:
    """``command`` with its value and bank details folded; a malformed one is refused."""
    value = normalized(command.kind, command.value)
    if command.kind is DestinationKind.EMAIL and not value:
        raise ValueError(
            f"{command.value!r} is not plainly an email address (like cfo@atlas.example)"
        )
    if command.kind is DestinationKind.EMAIL_DOMAIN and not registrable(value):
        raise ValueError(
            f"{command.value!r} is not a domain that stands for one organisation "
            "(like atlas.example; not co.uk)"
        )
    if not value:
        raise ValueError("a payee needs a name")
    account = fold_account(command.account) if command.account else None
    if command.account is not None and not account:
        raise ValueError("bank details need letters or digits")
    if account is not None and command.kind is not DestinationKind.PAYEE:
        raise ValueError("only a payee has bank details")
    if not is_slug(command.project):
        raise NotFound(f"no project {command.project}")
    return Establish(command.project, command.kind, value, account, command.label.strip()[:200])


def _establish(
    change: OrgChange, actor_id: str, command: Establish, projects: set[str]
) -> Destination:
    if command.project not in projects:
        raise NotFound(f"no project {command.project}")
    wanted = (command.project, command.kind, command.value)
    for kept in change.destinations():
        if (kept.project, kept.kind, kept.value) != wanted or not kept.current(change.now):
            continue
        if kept.account == command.account:
            return kept
        change.retire_destination(kept.id)
    return change.establish(
        Destination(
            id=new_id(),
            project=command.project,
            kind=command.kind,
            value=command.value,
            account=command.account,
            label=command.label,
            established_by=actor_id,
            established_at=change.now,
        )
    )


def retire(ports: Ports, org_id: str, actor_id: str, destination_id: str) -> Destination:
    """Retire an established destination: from now on, work to it is held again."""
    founder(ports, org_id, actor_id)
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        return change.retire_destination(destination_id)


def destinations(
    ports: Ports, org_id: str, actor_id: str, *, current: bool = True
) -> list[Destination]:
    """The destinations of the projects the actor may read (the founder: all), current
    ones only unless ``current`` is False; by project, then kind and value."""
    org, actor = member(ports, org_id, actor_id)
    projects = readable(ports, org, actor)
    now = ports.clock()
    found = [
        d
        for d in ports.directory.destinations(org_id)
        if (projects is None or d.project in projects) and (not current or d.current(now))
    ]
    return sorted(found, key=lambda d: (d.project, d.kind.value, d.value, d.established_at))


def counterparties(ports: Ports, org_id: str) -> Counterparties:
    """The destinations and colleagues the broker checks an action against, now."""
    by_project: dict[str, list[Destination]] = defaultdict(list)
    for d in ports.directory.destinations(org_id):
        by_project[d.project].append(d)
    staffing: dict[str, list[Staffing]] = defaultdict(list)
    for row in ports.directory.staffing(org_id):
        staffing[row.principal_id].append(row)
    colleagues = colleagues_of(ports.directory.principals(org_id), staffing)
    return Counterparties(
        {k: tuple(v) for k, v in by_project.items()},
        colleagues,
        frozenset(domain_of(a) for a in colleagues),
        ports.clock(),
    )


def to_establish(ports: Ports, intent: Intent, reach: tuple[str, ...]) -> list[Establish]:
    """What establishing would release ``intent``'s hold on where it goes: each new
    destination it names, for each project of ``reach`` that lacks it."""
    tool = REGISTRY.get(intent.tool)
    if tool is None:
        return []
    out = outbound(tool, intent.payload)
    if out is None:
        return []
    found = new_destinations(out, sorted(reach), counterparties(ports, intent.org_id))
    wanted: list[Establish] = []
    account = intent.payload.get(tool.account_param or "")
    for f in found:
        if f.establish is None:
            continue
        kind, value = f.establish
        for project in f.projects:
            wanted.append(
                Establish(
                    project,
                    kind,
                    value,
                    account=account
                    if kind is DestinationKind.PAYEE
                    and isinstance(account, str)
                    and account.strip()
                    else None,
                    label=f"established approving intent {intent.id[:12]}",
                )
            )
    return list({(e.project, e.kind, e.value): e for e in wanted}.values())


def establish_for(
    ports: Ports, org_id: str, actor_id: str, intent: Intent, reach: tuple[str, ...]
) -> list[Destination]:
    """Establish what ``intent`` would reach that its projects lack (the founder's to do,
    while approving it): its new recipients, payee and bank details, as its hold names
    them (links are approved once, never trusted in one click: a site is established by
    hand, as a domain)."""
    org = founder(ports, org_id, actor_id)
    if org.id != intent.org_id:
        raise Forbidden("the intent belongs to another organization")
    return establish_all(ports, org_id, actor_id, to_establish(ports, intent, reach))
