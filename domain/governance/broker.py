"""The broker: one ordered, total path from a proposed intent to a decision.

Stages run in DESIGN order. A stage either passes, rejects (the path ends there)
or asks for a human (the path goes on; the holds are gathered). The functions are
pure over a :class:`~domain.governance.values.BrokerSnapshot` loaded under the
organization's lock; the operation key the intent comes to hold is part of the
:class:`~domain.governance.values.Verdict`, and the unit of work registers it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from domain.governance.addresses import domain_of, within
from domain.governance.destinations import (
    MAX_RECIPIENTS,
    Counterparties,
    Found,
    first_seen,
    new_destinations,
    relayed,
    unknown_senders,
)
from domain.governance.index import PolicyIndex
from domain.governance.intents import REPEAT_RULE, Decision, Intent, Outcome, Stage
from domain.governance.outbound import Outbound, outbound
from domain.governance.spend import SPLIT_WINDOW
from domain.governance.standing import DIAGNOSTIC, DIAGNOSTIC_KIND, Standing, is_schedule, scheduled
from domain.governance.values import BrokerMode, BrokerSnapshot, Verdict
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Delivery,
    SpendCap,
    Staffing,
    ToolSpec,
    payload_problem,
)
from domain.organization.kinds import CharterStatus, PrincipalKind, PrincipalStatus, StaffRole
from domain.words import (
    about,
    already_done,
    doing_words,
    moment,
    money,
    projects_named,
    this_action,
    tool_words,
)

UNBOUNDED_SPEND = 10**15
"""What a malformed amount counts as: more than any budget or cap."""
DELIVERING_TOOLS = frozenset({"email.send"})
"""Tools through which something reaches a counterparty: the ways a delivery is made."""


@dataclass(frozen=True)
class Reject:
    """A stage said no: the path ends."""

    rule: str
    reason: str


@dataclass(frozen=True)
class Hold:
    """A stage wants a human, or time: the path goes on, the hold is gathered."""

    rule: str
    reason: str
    release: tuple[str, ...]
    by_human: bool = True
    """False when no human may release it (a collision: only the other intents'
    completing does)."""
    parts: tuple[tuple[str, str], ...] = ()
    """For a hold of several causes (``reason`` joins them): each cause's rule and
    reason."""


@dataclass(slots=True)
class _Path:
    intent: Intent
    snap: BrokerSnapshot
    tool: ToolSpec | None = None
    reach: frozenset[str] = frozenset()
    holds: list[tuple[Stage, Hold]] = field(default_factory=list)
    digest: str = ""
    evidence: tuple[str, ...] = ()
    claim: str | None = None

    spend: int = 0
    """Money the intent moves (set by the identity stage)."""
    out: Outbound | None = None
    """What the intent carries out of the firm, when read before the lock (else the egress
    stage reads it)."""
    _policy: PolicyIndex | None = None
    _staffed: set[str] | None = None

    # Computed on first use, without functools.cached_property: its lock costs more
    # than the computation on this path.
    @property
    def policy(self) -> PolicyIndex:
        if self._policy is None:
            self._policy = self.snap.policy()
        return self._policy

    @property
    def staffed(self) -> set[str]:
        """Projects the acting agent is staffed on now, as a member or approver."""
        if self._staffed is None:
            self._staffed = current_projects(
                self.snap.staffing, self.snap.now, StaffRole.MEMBER, self.intent.principal_id
            )
        return self._staffed


StageFn = Callable[[_Path], Reject | Hold | None]


def effective_budget(definition: AgentDefinition, charter: Charter) -> int:
    """The tighter of the definition's budget and the charter's ceiling."""
    return min(definition.budget_cents, charter.budget_ceiling_cents)


def spend_of(intent: Intent, tool: ToolSpec) -> int:
    """Money an intent moves: the larger of its money parameter and its declared cost.

    A money parameter that is not an integer cannot be trusted to be small: it
    counts as unbounded (the identity stage rejects such a payload anyway).
    """
    if tool.money_param is None:
        return intent.cost_cents
    amount = intent.payload.get(tool.money_param)
    if not isinstance(amount, int) or isinstance(amount, bool):
        return UNBOUNDED_SPEND
    return max(amount, intent.cost_cents)


def operation_key(tool: ToolSpec, payload: Mapping[str, object]) -> str | None:
    """``system.action:resource``; None when the payload does not name its resource."""
    resource = payload.get(tool.resource_param)
    if not isinstance(resource, str) or not resource.strip():
        return None
    return f"{tool.system}.{tool.action}:{resource.strip().lower()}"


def wildcard_key(tool: ToolSpec) -> str:
    """``system.action:*``: the key of an intent that names no resource. It collides with
    every in-flight intent of the operation, and they with it."""
    return f"{tool.system}.{tool.action}:*"


_APPROVER_ROLES = frozenset({StaffRole.APPROVER})
_ANY_ROLE = frozenset(StaffRole)


def current_projects(
    staffing: tuple[Staffing, ...], now: datetime, role: StaffRole, principal_id: str | None = None
) -> set[str]:
    """Projects in which ``staffing`` grants ``role`` (approver implies member) at ``now``,
    counting only rows of ``principal_id`` when given."""
    wanted = _APPROVER_ROLES if role is StaffRole.APPROVER else _ANY_ROLE
    return {
        s.project
        for s in staffing
        if s.active_at(now)
        and s.role in wanted
        and (principal_id is None or s.principal_id == principal_id)
    }


def _identity(p: _Path) -> Reject | None:
    s, intent = p.snap, p.intent
    if s.principal is None:
        return Reject("unknown_principal", "the acting principal is not in the directory")
    if s.principal.kind is not PrincipalKind.AGENT:
        return Reject("not_an_agent", "only agent principals propose intents")
    if s.principal.status is not PrincipalStatus.ACTIVE:
        return Reject("principal_inactive", f"{s.principal.handle} is {s.principal.status}")
    pin = intent.pin
    if s.charter is None:
        which = "no published charter" if pin is None else f"no version {pin.version}"
        return Reject("charter_unpublished", f"{s.principal.handle} has {which}")
    if s.charter.status is not CharterStatus.PUBLISHED:
        return Reject(
            "charter_unpublished",
            f"{s.principal.handle} v{s.charter.version} is {s.charter.status.value}; "
            "the run was pinned to it",
        )
    wanted = s.charter.definition_pin
    if pin is not None and pin.definition != wanted:
        return Reject(
            "registry_pin_mismatch",
            f"charter v{s.charter.version} pins definition v{wanted}, "
            f"the run was prompted with v{pin.definition}",
        )
    if s.definition is None or s.definition.version != wanted:
        return Reject(
            "registry_pin_mismatch",
            f"charter v{s.charter.version} pins definition v{wanted}, "
            f"registry has v{s.definition.version if s.definition else 'none'}",
        )
    if intent.tool not in s.charter.tools:
        return Reject(
            "tool_outside_charter", f"the agent's charter does not allow {tool_words(intent.tool)}"
        )
    p.tool = s.tools.get(intent.tool)
    if p.tool is None:
        return Reject("unknown_tool", f"{intent.tool} is not a published tool")
    problem = payload_problem(p.tool, intent.payload)
    if problem is not None:
        return Reject("invalid_payload", problem)
    budget = effective_budget(s.definition, s.charter)
    spend = p.spend = spend_of(intent, p.tool)
    if s.run_spent_cents + spend > budget:
        return Reject(
            "budget_exceeded",
            f"the run would spend {money(s.run_spent_cents + spend)}; its budget is "
            f"{money(budget)}",
        )
    if s.principal.agent_kind == DIAGNOSTIC_KIND:
        beyond = _beyond(DIAGNOSTIC, intent.tool, spend)
        if beyond is not None:
            return Reject("diagnostic_standing", f"{s.principal.handle} is {beyond}")
    return None


def _beyond(standing: Standing, tool: str, spend: int) -> str | None:
    """What ``standing`` does not cover of an intent (its tool, its money), in words that
    follow its name; None when it covers it."""
    if tool not in standing.tools:
        return f"{standing.words}: it may only {standing.what()}, not {tool_words(tool)}"
    if spend > 0:
        return f"{standing.words}: it moves no money"
    return None


def _staffing(p: _Path) -> Reject | None:
    declared = set(p.intent.projects)
    if not declared:
        return Reject("no_target_project", "the agent named no project for it")
    unknown = declared - p.snap.projects
    if unknown:
        return Reject("unknown_project", f"the firm has no project {_listed(p, unknown)}")
    missing = declared - p.staffed
    if missing:
        return Reject("not_staffed", f"the agent is not staffed on {_listed(p, missing)} now")
    return None


def known_reach(intent: Intent, records: Mapping[str, tuple[str, ...]]) -> set[str]:
    """What ``intent`` reaches as far as ``records`` (projects by reference) knows: its
    declared projects, the projects of what its run read (and of each record it read),
    and of the records it cites.
    (A snapshot's loader asks it which spend caps may cover the intent.)"""
    cited = (p for ref in (*intent.references, *intent.read_refs) for p in records.get(ref, ()))
    return {*intent.projects, *intent.read_reach, *cited}


def _scope(p: _Path) -> Reject | Hold | None:
    reach = {*p.intent.projects, *p.intent.read_reach}
    for ref in p.intent.references:
        projects = p.snap.records.get(ref)
        if projects is None:
            return Reject("unknown_reference", f"record {ref!r} is unknown; reach cannot be known")
        reach.update(projects)
    for ref in p.intent.read_refs:  # each record the run read: its projects, whatever else
        reach.update(p.snap.records.get(ref, ()))
    p.reach = frozenset(reach)
    crossed = p.policy.crossed(p.reach)
    if crossed is not None:
        barrier, touched = crossed
        across = {s for i in touched for s in barrier.groups[i] if s in p.reach}
        return Reject(
            "barrier_crossed",
            f"it reaches {_listed(p, across)}, on different sides of the wall {barrier.name}",
        )
    staffed = p.staffed
    # Configuration never staffs an agent across a wall; should the store say otherwise,
    # the agent acts on neither side rather than carry one side's work to the other.
    straddled = p.policy.crossed(staffed)
    if straddled is not None:
        return Reject(
            "staffing_straddles_barrier",
            f"the agent is staffed on both sides of {straddled[0].name}; it may act on neither",
        )
    outside = p.reach - staffed
    if outside:
        return Reject(
            "reach_outside_staffing",
            f"what it cites or its run read reaches {_listed(p, outside)}, "
            "where the agent is not staffed",
        )
    return _requester(p)


def _requester(p: _Path) -> Reject | Hold | None:
    """The run acts for the human who asked for it: its agent may act only where that
    human has standing. Staffed (as member or approver) on every project of the reach,
    and on the same side of every wall; an approver there for an intent that moves
    money, or a human approver decides it. The founder stands where they are staffed,
    like anyone (on every project unless they chose a side when a wall went up). Work
    nobody asked for acts on the standing of the schedule that started it
    (:mod:`domain.governance.standing`); an intent recorded before intents named who
    asked (None) on the agent's own."""
    asked = p.intent.requested_by
    if asked is None:
        return None
    if is_schedule(asked):
        return _scheduled(p, asked)
    human = p.snap.requester
    if human is None or human.id != asked:
        return Reject(
            "requester_unknown", f"the run acts for {asked!r}, who is not in the directory"
        )
    who = human.display_name or human.handle
    if human.kind is not PrincipalKind.HUMAN:
        return Reject(
            "requester_not_human", f"the run acts for {who}, who is not a human; only a human asks"
        )
    if human.status is not PrincipalStatus.ACTIVE:
        return Reject(
            "requester_inactive", f"{who} asked for this run and is {human.status.value} now"
        )
    now, rows = p.snap.now, p.snap.requester_staffing
    standing = current_projects(rows, now, StaffRole.MEMBER, human.id)
    beyond = p.reach - standing
    if beyond:
        wall = _wall_between(p.policy.barriers, frozenset(beyond), frozenset(standing))
        if wall is not None:
            return Reject(
                "barrier_crossed",
                f"{who} asked for this from {_listed(p, standing)}; it reaches "
                f"{_listed(p, beyond)}, on the other side of the wall {wall.name}",
            )
        return Reject(
            "requester_not_staffed",
            f"{who} asked for this and is not staffed on {_listed(p, beyond)}",
        )
    if p.spend > 0:
        short = p.reach - current_projects(rows, now, StaffRole.APPROVER, human.id)
        if short:
            return Hold(
                "requester_not_approver",
                f"{who} asked for this and does not approve spending on {_listed(p, short)}",
                (_approver_approves(p),),
            )
    return None


def _scheduled(p: _Path, asked: str) -> Reject | None:
    """Work a schedule started stands on the schedule's written standing alone: its tools,
    no money, and no message at all unless it may write (then only inside, checked at
    egress)."""
    standing = scheduled(asked)
    if standing is None:
        return Reject("requester_unknown", f"the run was started by {asked}, which has no standing")
    beyond = _beyond(standing, p.intent.tool, p.spend)
    if beyond is not None:
        return Reject("schedule_standing", f"the run was started by {beyond}")
    return None


def _approver_approves(p: _Path, doing: str = "") -> str:
    """What releases most holds: a human approver on the reach approves this intent (its
    exact content: the approval is bound to the intent's digest, which the decision's
    record carries for the curious)."""
    what = this_action(p.tool.name if p.tool else p.intent.tool)
    return f"someone who approves for {_listed(p, p.reach)} approves {doing or what}"


def _wall_between(
    barriers: Sequence[Barrier], beyond: frozenset[str], standing: frozenset[str]
) -> Barrier | None:
    """The first barrier with a side that ``beyond`` touches and ``standing`` does not,
    while ``standing`` touches another: what stands between a human and the work."""
    for barrier in barriers:
        theirs = set(barrier.groups_touched(standing))
        if theirs and set(barrier.groups_touched(beyond)) - theirs:
            return barrier
    return None


def _listed(p: _Path, projects: Iterable[str]) -> str:
    """``projects`` as an owner reads them: by name (:func:`~domain.words.projects_named`)."""
    return projects_named(projects, p.snap.project_names)


RECORD = "record:"
"""How a decision's evidence names a memory record the run read (``record:inv-0412``),
beside the intents it names by id. The record is within the intent's reach (its
projects count in it), so a reader who may read the decision may read that it exists."""


def _egress(p: _Path) -> Reject | Hold | None:
    """Hold an action that sends or pays somewhere its projects have not established (a
    new recipient, a new payee, changed bank details, a link to an unknown site), naming
    the record the run read where it first appears; a message to someone outside the firm
    that copies outside content or draws on an unknown sender's words; and a mailing. A
    hijacked model words an ordinary email; it cannot make its destination established."""
    assert p.tool is not None
    out = (
        p.out if p.out is not None and p.out.tool is p.tool else outbound(p.tool, p.intent.payload)
    )
    if out is None:
        return None
    known = p.snap.counterparties or Counterparties({}, {}, frozenset(), p.snap.now)
    narrow = _narrow_standing(p)
    if narrow is not None:
        outsider = _outsider(out, known)
        if outsider is not None:
            return Reject(
                "diagnostic_standing" if narrow is DIAGNOSTIC else "schedule_standing",
                f"{narrow.words} writes only to the firm's own people; {outsider} is not one",
            )
    found = new_destinations(out, sorted(p.reach), known)
    cited: list[str] = []
    held = [("new_destination", _new(p, f, cited)) for f in found]
    held += _drawn_on_outside(p, out, known, cited)
    many = _many_recipients(p, out, known)
    if many is not None:
        held.append(("many_recipients", many))
    if not held:
        return None
    p.evidence = tuple(dict.fromkeys((*p.evidence, *cited)))
    release = [_approver_approves(p)]
    for f in found:
        if f.establish is not None:
            release.append(
                f"or the founder establishes {f.what} for {_listed(p, f.projects)} "
                "(approving may establish it), and the agent asks again"
            )
    rule = "+".join(dict.fromkeys(rule for rule, _ in held))
    return Hold(
        rule,
        "; ".join(reason for _, reason in held),
        tuple(dict.fromkeys(release)),
        parts=tuple(held) if len(held) > 1 else (),
    )


def _narrow_standing(p: _Path) -> Standing | None:
    """The written standing an intent acts on when a person's does not apply: its
    agent's, when a diagnostic agent; else the schedule's that started its run."""
    principal = p.snap.principal
    if principal is not None and principal.agent_kind == DIAGNOSTIC_KIND:
        return DIAGNOSTIC
    return scheduled(p.intent.requested_by)


def _outsider(out: Outbound, known: Counterparties) -> str | None:
    """The first recipient of an intent who is not one of the firm's people, by their own
    address (a domain is no person: a colleague's may be a public mail provider's); a
    field that does not parse is one."""
    if out.recipients_raw is None:
        return None
    if out.recipients is None:
        return repr(" ".join(out.recipients_raw.split())[:200])
    return next((a for a in out.recipients if a not in known.colleagues), None)


def _drawn_on_outside(
    p: _Path, out: Outbound, known: Counterparties, cited: list[str]
) -> list[tuple[str, str]]:
    """A message to someone outside the firm that copies a passage of outside content the
    run read (a relay is not a reply), or that draws on the words of a sender the reach
    has not established. What a colleague is told stays inside."""
    reach = sorted(p.reach)
    mine = out.recipients or ()
    if mine and all(a in known.colleagues or within(domain_of(a), known.own_domains) for a in mine):
        return []  # (a field that does not parse is no one inside)
    if not p.snap.sources:
        return []
    copied = relayed(out.shingles, p.snap.sources)
    if copied is not None:
        cited.append(RECORD + copied.ref)
        return [("relays_outside_text", f"its text copies a passage of {copied.words()}")]
    strangers = unknown_senders(p.snap.sources, reach, known, out.words)
    if not strangers:
        return []
    cited.extend(RECORD + s.ref for s in strangers)
    named = ", ".join(s.words() for s in strangers[:2])
    return [
        (
            "unknown_sender",
            f"it draws on {named}, from a sender not established for {_listed(p, reach)}: "
            "what it says may be that sender's words",
        )
    ]


def _many_recipients(p: _Path, out: Outbound, known: Counterparties) -> str | None:
    """More than :data:`MAX_RECIPIENTS` distinct outside recipients in one run (its other
    messages, let through or held, and this one): a mailing waits for a person."""
    mine = frozenset(out.recipients or ())
    if not mine or len(p.snap.run_recipients) + len(mine) <= MAX_RECIPIENTS:
        return None  # (however many of them are outside, not a mailing)
    outside = {
        a for a in p.snap.run_recipients | mine if not within(domain_of(a), known.own_domains)
    }
    if len(outside) <= MAX_RECIPIENTS:
        return None
    return (
        f"the run would write to {len(outside)} different outside recipients; more than "
        f"{MAX_RECIPIENTS} in one run is a mailing"
    )


def _new(p: _Path, found: Found, cited: list[str]) -> str:
    """One new destination in an owner's words, with where it came from when outside
    content the run read holds it."""
    sources = p.snap.sources
    said = f"{found.what} is not established for {_listed(p, found.projects)}"
    origin = first_seen(found.value, sources)
    if origin is not None:
        cited.append(RECORD + origin.ref)
        return f"{said}; it first appears in {origin.words()}"
    outside = [s for s in sources if s.outside]
    if outside:
        cited.extend(RECORD + s.ref for s in outside)
        read = ", ".join(s.words() for s in outside[:2])
        return f"{said}; the agent read content from outside the firm: {read}"
    return said


def _commitments(p: _Path) -> Hold | None:
    return _spend_caps(p) or _deliveries(p) or _standing_holds(p)


def _standing_holds(p: _Path) -> Hold | None:
    """Hold an intent that moves money on a project under an open standing hold (placed
    through the broker, by Sentinel when a spend cap expired): a human approver on the
    reach decides it, or releases the standing hold first."""
    if p.spend == 0:
        return None
    for h in p.snap.standing_holds:
        if h.holds(p.reach):
            where = _listed(p, h.projects) if h.projects else "the whole firm"
            return Hold(
                "standing_hold",
                f"spending on {where} is on hold since {moment(h.placed_at)}: {h.reason}",
                (
                    _approver_approves(p),
                    "or a person releases that hold on spending, and the agent asks again",
                ),
            )
    return None


def _spend_caps(p: _Path) -> Hold | None:
    assert p.tool is not None
    spend = p.spend
    if spend == 0:
        return None
    for c in p.policy.caps(p.reach):
        if not (isinstance(c.constraint, SpendCap) and c.binds(p.snap.now)):
            continue
        spent = p.snap.committed_spend.get(c.id, 0)
        currency = p.intent.payload.get("currency", c.constraint.currency)
        if currency != c.constraint.currency:
            return Hold(
                "spend_cap_currency",
                f"'{c.title}' counts {c.constraint.currency}; {this_action(p.tool.name)} is "
                f"in {currency}",
                (_approver_approves(p),),
            )
        if spent + spend > c.constraint.limit_cents:
            remaining = max(c.constraint.limit_cents - spent, 0)
            cur, limit = c.constraint.currency, c.constraint.limit_cents
            return Hold(
                "spend_cap",
                f"{money(spend, cur)} would bring '{c.title}' to {money(spent + spend, cur)} "
                f"of its {money(limit, cur)} cap ({money(spent, cur)} already committed)",
                (
                    _approver_approves(p),
                    f"or the agent asks again for at most {money(remaining, cur)}"
                    if remaining
                    else f"or the cap is raised: nothing is left under '{c.title}'",
                ),
            )
    return None


def _deliveries(p: _Path) -> Hold | None:
    """Hold an intent that would break a confirmed delivery obligation.

    For the broker, an intent breaks a delivery obligation when it would make the
    delivery late: it uses a delivering tool (:data:`DELIVERING_TOOLS`), is addressed to
    the obligation's recipient (any address, when the obligation names none: whatever
    goes out on the engagement may be the delivery), reaches one of the obligation's
    projects (any, for one that binds the whole organization), and is decided at or
    after the due moment while the obligation binds (confirmed, in its validity window).
    Before the due moment nothing is held: delivering early keeps the promise. Whether
    the message really is the deliverable no rule can tell, so a human approver on the
    reach decides: the late delivery then goes out knowingly, or not at all.
    """
    assert p.tool is not None
    if p.tool.name not in DELIVERING_TOOLS:
        return None
    now = p.snap.now
    for c in p.policy.deliveries:
        d = c.constraint
        if not (isinstance(d, Delivery) and c.binds(now) and c.covers(p.reach)) or now < d.due:
            continue
        if d.recipient is not None:
            to = p.intent.payload.get(p.tool.resource_param)
            if not isinstance(to, str) or to.strip().lower() != d.recipient.strip().lower():
                continue
        return Hold(
            "delivery_overdue",
            f"'{c.title}': {d.deliverable} was due {moment(d.due)}; "
            f"{this_action(p.tool.name)} now would deliver it late",
            (_approver_approves(p),),
        )
    return None


def _collisions(p: _Path) -> Hold | None:
    assert p.tool is not None
    key = operation_key(p.tool, p.intent.payload)
    wildcard = wildcard_key(p.tool)
    # Another intent in flight on the same resource, on the operation's wildcard, or (for
    # an intent that names no resource) on any resource of the operation: wait for them.
    in_flight = p.snap.in_flight
    if key is not None:
        claims = [*in_flight.get(key, ()), *in_flight.get(wildcard, ())]
    else:  # no resource named: every key of the operation (the wildcard's prefix)
        prefix = wildcard[:-1]
        claims = [f for k, group in in_flight.items() if k.startswith(prefix) for f in group]
    others = tuple(f for f in claims if f.intent_id != p.intent.id)
    if others:
        # The reason names only this intent's own operation: the others may lie beyond
        # what a reader of this one may read (an intent that names no invoice collides
        # with every payment in flight), so they are named in the evidence alone, which
        # every read path shows only as far as its reader may read.
        p.evidence = tuple(dict.fromkeys(f.intent_id for f in others))
        what = this_action(p.tool.name).removeprefix("this ")
        on = p.intent.payload.get(p.tool.resource_param or "")
        target = f" {about(p.tool.name)} {' '.join(str(on).split())[:80]}" if on is not None else ""
        return Hold(
            "collision",
            f"another {what}{target} is being decided or done at the same time",
            ("the other one finishes or is closed: this one is then decided again, by itself",),
            by_human=False,
        )
    # The intent holds its key from here on, held or not: a human's approval of a repeat
    # or of a large payment must not let a second write to the resource start beside it.
    p.claim = key or wildcard
    done = (
        () if key is None else tuple(i for i in p.snap.completed.get(key, ()) if i != p.intent.id)
    )
    if done:
        p.evidence = done
        return Hold(
            REPEAT_RULE,
            f"{already_done(p.tool.name, p.intent.payload)}, and "
            f"{tool_words(p.tool.name)} is not repeated silently",
            (_approver_approves(p, f"{doing_words(p.tool.name)} it a second time"),),
        )
    return None


def _approval(p: _Path) -> Hold | None:
    assert p.tool is not None
    threshold = p.tool.approval_over_cents
    spend = p.spend
    if threshold is None or spend == 0:
        return None
    approves = (_approver_approves(p),)
    if spend > threshold:
        return Hold(
            "money_over_threshold",
            f"{tool_words(p.tool.name)} of {money(spend, _currency(p))} is over the "
            f"{money(threshold, _currency(p))} approval threshold",
            approves,
        )
    paid = p.snap.paid_to_payee
    if paid and paid + spend > threshold:
        # Each payment under the threshold, together over it: an approver sees them all.
        p.evidence = tuple(dict.fromkeys((*p.evidence, *p.snap.payee_payments)))
        # The reason names no other payment nor their total: they may lie beyond what a
        # reader of this one may read (another project's); the evidence names them, and
        # every read path shows it only as far as its reader may read.
        payee = p.intent.payload.get(p.tool.payee_param or "")
        return Hold(
            "split_payments",
            f"{money(spend, _currency(p))} to {payee}, with what {payee} was paid in the last "
            f"{SPLIT_WINDOW.days} days, passes the {money(threshold, _currency(p))} approval "
            "threshold",
            approves,
        )
    return None


def _currency(p: _Path) -> str:
    """The currency an intent's amounts are in (its payload says; US dollars if not)."""
    given = p.intent.payload.get("currency")
    return given if isinstance(given, str) and given else "USD"


STAGES: tuple[tuple[Stage, StageFn], ...] = (
    (Stage.IDENTITY, _identity),
    (Stage.STAFFING, _staffing),
    (Stage.SCOPE, _scope),
    (Stage.EGRESS, _egress),
    (Stage.COMMITMENTS, _commitments),
    (Stage.COLLISIONS, _collisions),
    (Stage.APPROVAL, _approval),
)


def _verdict(path: _Path, stages: Sequence[tuple[Stage, StageFn]]) -> tuple[Stage, Reject | None]:
    """Run the stages in order: the rejecting stage, or (last stage, None) when none rejects."""
    stage = Stage.IDENTITY
    try:
        path.digest = path.intent.digest  # an intent with no canonical form is rejected here
        for stage, run in stages:
            verdict = run(path)
            if isinstance(verdict, Reject):
                return stage, verdict
            if isinstance(verdict, Hold):
                path.holds.append((stage, verdict))
    except Exception as exc:  # the broker is total: an exception is a recorded rejection
        return stage, Reject("broker_error", f"{type(exc).__name__}: {exc}")
    return Stage.AUDIT, None


def evaluate(
    intent: Intent,
    snap: BrokerSnapshot,
    stages: Sequence[tuple[Stage, StageFn]] = STAGES,
    out: Outbound | None = None,
) -> Verdict:
    """Run every stage in order; always return a verdict (an exception is a rejection).

    ``stages`` is a seam for tests that inject faults; production uses :data:`STAGES`.
    ``out`` is what the intent carries out of the firm (:func:`outbound` of it), when the
    caller read it before taking the lock; otherwise the egress stage reads it.
    """
    path = _Path(intent=intent, snap=snap, out=out)
    stage, rejection = _verdict(path, stages)
    # A rejection before the scope stage reaches what is known of the intent all the same:
    # its recorded reach says who may read it.
    reach = tuple(sorted(path.reach or known_reach(intent, snap.records)))
    release: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()
    if rejection is not None:
        outcome, rule, reason = Outcome.REJECT, rejection.rule, rejection.reason
    elif path.holds:
        stage = path.holds[0][0]
        outcome = Outcome.HOLD
        rule = "+".join(h.rule for _, h in path.holds)
        reason = "; ".join(h.reason for _, h in path.holds)
        causes = tuple(c for _, h in path.holds for c in (h.parts or ((h.rule, h.reason),)))
        reasons = causes if len(causes) > 1 else ()
        release = tuple(dict.fromkeys(r for _, h in path.holds for r in h.release))
        evidence = path.evidence
    else:
        outcome, rule, reason = Outcome.ALLOW, "all_stages_passed", "every stage passed"
    decision = Decision(
        intent_id=intent.id,
        outcome=outcome,
        stage=stage,
        rule=rule,
        reason=reason,
        reasons=reasons,
        release=release,
        reach=reach,
        evidence=evidence,
        intent_digest=path.digest,
        decided_at=snap.now,
    )
    return Verdict(decision=decision, claim=path.claim if rejection is None else None)


@dataclass(frozen=True)
class Unenforced:
    """Every stage's verdict on an intent with enforcement off (none stops the path),
    and what the stages worked out on the way: the real reach and the money moved."""

    verdicts: tuple[tuple[Stage, Reject | Hold | None], ...]
    """Each stage that could run, in order: its rejection, its hold, or None (passed)."""
    skipped: tuple[tuple[Stage, str], ...]
    """Stages that could not run (an earlier stage found nothing to judge), and why."""
    reach: frozenset[str]
    spend: int
    tool: ToolSpec | None


def unenforced(intent: Intent, snap: BrokerSnapshot) -> Unenforced:
    """Run every stage in order without letting any stop the path: what each would have
    said. Nothing is claimed or recorded (the counterfactual's reading of a decision)."""
    path = _Path(intent=intent, snap=snap)
    verdicts: list[tuple[Stage, Reject | Hold | None]] = []
    skipped: list[tuple[Stage, str]] = []
    for stage, run in STAGES:
        try:
            verdicts.append((stage, run(path)))
        except Exception as exc:  # a stage that needs what an earlier one could not find
            why = f"{type(exc).__name__}: {exc}" if str(exc) else "an earlier stage found no tool"
            skipped.append((stage, why))
    reach = path.reach or frozenset(known_reach(intent, snap.records))
    return Unenforced(tuple(verdicts), tuple(skipped), reach, path.spend, path.tool)


def decide(intent: Intent, snap: BrokerSnapshot) -> Decision:
    """The broker's decision on ``intent`` (see :func:`evaluate`)."""
    return evaluate(intent, snap).decision


def observed(decision: Decision) -> Decision:
    """``decision`` as observe mode makes it: a rejection or a hold lets the intent
    through, and says what enforcement would have done."""
    if decision.outcome not in (Outcome.REJECT, Outcome.HOLD):
        return decision.model_copy(update={"mode": BrokerMode.OBSERVE})
    return decision.model_copy(
        update={
            "outcome": Outcome.ALLOW,
            "mode": BrokerMode.OBSERVE,
            "enforced": decision.outcome,
            "reason": f"observe mode lets it through; enforcement would {decision.outcome}: "
            f"{decision.reason}",
        }
    )
