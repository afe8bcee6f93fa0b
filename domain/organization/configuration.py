"""Configuration rules: who may be staffed where, which barriers may be raised, which
memory records may exist. Pure functions; the use cases call them inside one
transaction under the organization's lock, so that a check and the write it allows
cannot be separated by a concurrent change."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from datetime import datetime

from domain.organization.contracts import Barrier, Principal, Staffing
from domain.organization.kinds import PrincipalKind, PrincipalStatus, StaffRole
from domain.words import projects_named


def straddled(barriers: Iterable[Barrier], projects: Iterable[str]) -> list[str]:
    """Names of the barriers whose two or more groups ``projects`` touch."""
    reach = frozenset(projects)
    return [b.name for b in barriers if len(b.groups_touched(reach)) > 1]


def _not_ended(staffing: Staffing, now: datetime) -> bool:
    """Active now or later: the rules look past ``now`` so that neither a staffing that
    starts later nor clocks that differ between processes can slip past them."""
    return staffing.valid_until is None or staffing.valid_until > now


def active_projects(staffing: Iterable[Staffing], principal_id: str, now: datetime) -> set[str]:
    """Projects ``principal_id`` is staffed on at ``now`` or later, in any role."""
    return {s.project for s in staffing if s.principal_id == principal_id and _not_ended(s, now)}


def staffing_problem(
    who: Principal,
    project: str,
    role: StaffRole,
    staffing: Iterable[Staffing],
    barriers: Iterable[Barrier],
    now: datetime,
) -> str | None:
    """Why ``who`` may not be staffed on ``project`` as ``role`` now, or None.

    Only a human may approve. An agent is never active on two sides of a barrier;
    a human may be (and then reads neither side through the memory gate).
    """
    if role is StaffRole.APPROVER and who.kind is not PrincipalKind.HUMAN:
        return "only a human may be staffed as approver"
    if who.kind is PrincipalKind.AGENT:
        crossed = straddled(barriers, active_projects(staffing, who.id, now) | {project})
        if crossed:
            return f"{who.handle} would be staffed on both sides of {', '.join(crossed)}"
    return None


def barrier_problem(
    barrier: Barrier,
    agents: Mapping[str, str],
    staffing: Iterable[Staffing],
    records: Mapping[str, tuple[str, ...]],
    now: datetime,
) -> str | None:
    """Why ``barrier`` may not be raised now, or None.

    ``agents`` maps agent ids to handles; ``records`` maps what is in memory (records,
    links, procedures, by label) to their projects. A new wall may not split an agent's
    current staffing nor anything stored in memory.
    """
    by_agent: dict[str, set[str]] = {}
    for s in staffing:
        if s.principal_id in agents and _not_ended(s, now):
            by_agent.setdefault(agents[s.principal_id], set()).add(s.project)
    split = sorted(h for h, projects in by_agent.items() if straddled([barrier], projects))
    if split:
        return f"the barrier would split the staffing of {', '.join(split)}"
    spanned = sorted(ref for ref, projects in records.items() if straddled([barrier], projects))
    if spanned:
        return f"the barrier would split the memory record(s) {', '.join(spanned)}"
    return None


def founder_leaves(barrier: Barrier, side: str | None) -> frozenset[str]:
    """The projects the founder leaves when ``barrier`` goes up, by the founder's choice:
    ``side`` names a project of the group the founder stays on (reading its memory and
    approving there; the other groups' staffing ends), or None to stay approver on every
    side, reading the memory of none (the memory gate reads nothing for anyone staffed on
    both sides of a wall). Raises ValueError when ``side`` is not one of its projects."""
    if side is None:
        return frozenset()
    staying = [g for g in barrier.groups if side in g]
    if not staying:
        raise ValueError(f"the founder's side must be a project of the wall, not {side[:64]!r}")
    return frozenset(p for g in barrier.groups if g is not staying[0] for p in g)


def founder_standing(
    barrier: Barrier,
    founder: str,
    projects: Iterable[str],
    names: Mapping[str, str] | None = None,
) -> str:
    """What the founder reads and approves across ``barrier``, in the owner's words, given
    the projects the founder is staffed on now and the projects' ``names`` (said on
    screen, so that reading nothing behind a wall is never a surprise)."""
    mine = frozenset(projects)
    sides = [projects_named(g, names or {}) for g in barrier.groups]
    touched = barrier.groups_touched(mine)
    if len(touched) > 1:
        return (
            f"{founder} approves on every side of {barrier.name} ({' | '.join(sides)}) and so "
            "reads the memory of none of them: a person on both sides of a wall reads neither"
        )
    if not touched:
        return f"{founder} is on no side of {barrier.name}: reads and approves on none of them"
    (kept,) = touched
    others = [s for i, s in enumerate(sides) if i != kept]
    return (
        f"{founder} stays on {sides[kept]} of {barrier.name} (reads its memory, approves "
        f"there); on {' and '.join(others)}, {founder} neither reads nor approves: staff "
        "an approver there"
    )


def record_problem(projects: Iterable[str], barriers: Iterable[Barrier]) -> str | None:
    """Why a memory record may not belong to ``projects``, or None."""
    crossed = straddled(barriers, projects)
    if crossed:
        return f"a record may not belong to both sides of {', '.join(crossed)}"
    return None


LINK_KINDS = frozenset({"relates", "supersedes", "mentions", "derived_from"})
"""Relations between records, and ``derived_from``: a derivation with its source span."""


def link_problem(
    kind: str,
    src: tuple[str, ...] | None,
    dst: tuple[str, ...] | None,
    dst_length: int,
    span: tuple[int, int] | None,
    barriers: Iterable[Barrier],
) -> str | None:
    """Why two records (their projects; None: no such record) may not be linked, or None.
    A link may not join two sides of a barrier: the link itself would tell one side about
    the other."""
    if kind not in LINK_KINDS:
        return f"unknown link kind {kind!r}; one of {', '.join(sorted(LINK_KINDS))}"
    if src is None or dst is None:
        return "both records must exist"
    crossed = straddled(barriers, (*src, *dst))
    if crossed:
        return f"a link may not join both sides of {', '.join(crossed)}"
    if span is not None:
        start, end = span
        if not 0 <= start < end <= dst_length:
            return f"the source span must lie within the source text (0–{dst_length})"
    elif kind == "derived_from":
        return "a derivation names the source span it drew on"
    return None


def handle_for(email: str, taken: Iterable[str], fallback: str = "member") -> str:
    """A free handle derived from an email's local part: ASCII, lower case, dashes.

    ``josé@…`` becomes ``jose``; a local part with nothing ASCII in it falls back to
    ``fallback``; a taken handle gets the first free numeric suffix (``sam-2``).
    """
    local = unicodedata.normalize("NFKD", email.rpartition("@")[0] or email)
    ascii_only = local.encode("ascii", "ignore").decode("ascii").lower()
    base = "-".join("".join(c if c.isalnum() else " " for c in ascii_only).split())[:40]
    base = base.strip("-") or fallback
    used = set(taken)
    if base not in used:
        return base
    n = 2
    while f"{base}-{n}" in used:
        n += 1
    return f"{base}-{n}"


STANDING_RULES = {
    PrincipalStatus.SUSPENDED: "principal_suspended",
    PrincipalStatus.ACTIVE: "principal_reactivated",
    PrincipalStatus.OFFBOARDED: "principal_offboarded",
}
"""The audit rule that records a principal's move to each status."""


def standing_problem(who: Principal, to: PrincipalStatus, founder_id: str) -> str | None:
    """Why ``who`` may not move to ``to`` (None: it may). The founder answers for the
    firm and never leaves it this way; an offboarded principal has left for good (add
    them again); a move to where one already is says so."""
    name = who.display_name or who.handle
    if who.id == founder_id:
        return "the founder cannot be suspended or offboarded: they answer for the firm"
    if who.status is PrincipalStatus.OFFBOARDED:
        return f"{name} was offboarded for good: add them again"
    if who.status is to:
        return f"{name} is already {'active' if to is PrincipalStatus.ACTIVE else to.value}"
    return None
