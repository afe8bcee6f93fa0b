"""The governance unit of work in memory: :class:`FakeGovernance` is a
:class:`~domain.governance.ports.GovernanceStore` (and an
:class:`~domain.audit.ports.AuditReader`) over dictionaries, with what an organization
is configured with kept as domain values in a :class:`FakeOrganization`.

It does what :mod:`adapters.store.governance` does, row for row: one organization locked
per unit; what a unit writes is seen by its own reads at once and by everyone else only
when it ends without an error (a unit that raises leaves nothing behind); decisions and
audit entries are appended under the chain's rules (:func:`domain.audit.chain.link`,
signed, idempotent by event key). What a decision means comes from the domain, as with
SQL: this module only keeps rows. ``tests/contracts/test_governance_fake.py`` runs the
same scenarios here and on SQLite and compares the decisions and the chains.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from domain.audit.chain import (
    AuditDraft,
    AuditEntry,
    ChainHead,
    ChainKey,
    ChainKeys,
    ChainVerification,
    genesis,
    link,
    verify_chain,
)
from domain.errors import (
    BrokerPoisoned,
    Conflict,
    FoundationBroken,
    NotFound,
    StoreFailure,
    TokenRefused,
    UnknownOrganization,
)
from domain.fleet.registry import Rollout, initial_rollout
from domain.fleet.starter import STARTER_FLEET
from domain.governance import records
from domain.governance.addresses import domain_of, fold_account
from domain.governance.broker import known_reach, operation_key, spend_of, wildcard_key
from domain.governance.destinations import (
    Counterparties,
    colleagues_of,
    normalized,
    recipients_of,
)
from domain.governance.index import PolicyIndex
from domain.governance.intents import Decision, DispatchResult, DispatchToken, Intent, Outcome
from domain.governance.outbound import governs
from domain.governance.ports import ConnectorWrite
from domain.governance.spend import Spending, counted, paid_to, payee_of
from domain.governance.tokens import token_for, token_problem
from domain.governance.usage import usage_key
from domain.governance.values import (
    BrokerSnapshot,
    Effects,
    HoldState,
    InFlight,
    StoredIntent,
    in_flight_by_key,
)
from domain.organization import configuration as rules
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Constraint,
    Destination,
    Organization,
    Principal,
    Provenance,
    Staffing,
    StandingHold,
)
from domain.organization.kinds import (
    CharterStatus,
    DestinationKind,
    PrincipalKind,
    ReviewState,
    StaffRole,
)
from domain.tools import REGISTRY

FIRM_PAYEE = "Northwind Supplies"
"""The vendor the test firm pays (established on east and west, no bank details kept)."""
TEST_PAYEES = tuple(f"{FIRM_PAYEE} {i}" for i in range(32))
"""Vendors the test firm pays, established like :data:`FIRM_PAYEE`: the test helpers pay
them in turn, so that a test's payments add up against no one's approval threshold
(split payments) unless it names one payee on purpose."""
FIRM_DESTINATIONS: tuple[tuple[str, DestinationKind, str], ...] = (
    *(
        (project, DestinationKind.EMAIL_DOMAIN, domain)
        for project in ("east", "west")
        for domain in ("client.example", "atlas.example", "acme.example", "example.com")
    ),
    ("east", DestinationKind.EMAIL_DOMAIN, "atlas-client.example"),
    ("west", DestinationKind.EMAIL_DOMAIN, "birch-holdings.example"),
    *(
        (project, DestinationKind.PAYEE, payee)
        for project in ("east", "west")
        for payee in (FIRM_PAYEE, *TEST_PAYEES)
    ),
)
"""What the test firm (``tests.support.Firm`` and its fake) has established: its
clients' domains on both sides and one vendor. Anything else is a new destination."""

FAKE_KEYS = ChainKeys(current=ChainKey(bytes(range(32))))
"""The audit key of the fakes (the same bytes as ``tests.support.TEST_KEYS``)."""
SPENDING = (Outcome.ALLOW, Outcome.APPROVED)
LOCK_WAIT = 5.0
"""Seconds a unit waits for its organization's lock before it fails as a busy database
would (a unit opened inside another of the same organization would wait forever)."""


def _new_id() -> str:
    return str(uuid.uuid4())


def _utc(now: datetime) -> datetime:
    return now.astimezone(UTC)


# --- what an organization is configured with -------------------------------------------


@dataclass
class FakeOrganization:
    """An organization's configuration as domain values: what the SQL store's tables of
    principals, charters, projects, staffing, barriers, commitments, memory records and
    standing holds hold. Built through the same rules the configuration use cases check
    (:mod:`domain.organization.configuration`), so a fake firm cannot be configured into
    a state the real one refuses."""

    org: Organization
    principals: dict[str, Principal] = field(default_factory=dict)
    definitions: dict[str, dict[int, AgentDefinition]] = field(default_factory=dict)
    charters: dict[str, dict[int, Charter]] = field(default_factory=dict)
    rollouts: dict[str, Rollout] = field(default_factory=dict)
    projects: set[str] = field(default_factory=set)
    staffing: list[Staffing] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    commitments: list[Commitment] = field(default_factory=list)
    records: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Memory records by reference: their projects (what the broker's scope stage reads)."""
    standing_holds: list[StandingHold] = field(default_factory=list)
    destinations: list[Destination] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.org.id

    @classmethod
    def found(
        cls, name: str, founder_email: str, now: datetime, founder_name: str | None = None
    ) -> FakeOrganization:
        """A new organization, its founder and the starter fleet (as onboarding makes
        them: version 1 of each agent's definition and charter, published)."""
        org_id = _new_id()
        handle = rules.handle_for(founder_email, taken=(), fallback="founder")
        if handle in {spec.handle for spec in STARTER_FLEET}:
            handle = f"{handle}-founder"
        founder = Principal(
            id=_new_id(),
            org_id=org_id,
            kind=PrincipalKind.HUMAN,
            handle=handle,
            display_name=founder_name or founder_email.rpartition("@")[0],
            email=founder_email,
        )
        org = cls(Organization(id=org_id, name=name, founder_id=founder.id))
        org.principals[founder.id] = founder
        for spec in STARTER_FLEET:
            agent = Principal(
                id=_new_id(),
                org_id=org_id,
                kind=PrincipalKind.AGENT,
                handle=spec.handle,
                display_name=spec.display_name,
                agent_kind=spec.agent_kind,
            )
            org.principals[agent.id] = agent
            org.definitions[agent.id] = {
                1: AgentDefinition(
                    principal_id=agent.id,
                    version=1,
                    instructions=spec.instructions,
                    budget_cents=spec.budget_cents,
                )
            }
            org.charters[agent.id] = {
                1: Charter(
                    principal_id=agent.id,
                    version=1,
                    status=CharterStatus.PUBLISHED,
                    role=spec.role,
                    purpose=spec.purpose,
                    tools=spec.tools,
                    budget_ceiling_cents=spec.ceiling_cents,
                    definition_pin=1,
                )
            }
        return org

    def agent(self, handle: str) -> str:
        """The id of the principal with ``handle``."""
        return next(p.id for p in self.principals.values() if p.handle == handle)

    def add_project(self, slug: str, now: datetime) -> None:
        """A project, with the founder staffed on it as approver (as the use case does)."""
        if slug in self.projects:
            raise Conflict(f"project {slug!r} exists")
        self.projects.add(slug)
        self.staffing.append(
            Staffing(
                id=_new_id(),
                principal_id=self.org.founder_id,
                project=slug,
                role=StaffRole.APPROVER,
                valid_from=now,
            )
        )

    def add_human(self, email: str, display_name: str) -> Principal:
        taken = [p.handle for p in self.principals.values()]
        human = Principal(
            id=_new_id(),
            org_id=self.id,
            kind=PrincipalKind.HUMAN,
            handle=rules.handle_for(email, taken),
            display_name=display_name,
            email=email,
        )
        self.principals[human.id] = human
        return human

    def staff(self, principal_id: str, project: str, role: StaffRole, now: datetime) -> Staffing:
        if project not in self.projects:
            raise NotFound(f"no project {project!r}")
        who = self.principals[principal_id]
        mine = [s for s in self.staffing if s.principal_id == principal_id]
        problem = rules.staffing_problem(who, project, role, mine, self.barriers, now)
        if problem is not None:
            raise ValueError(problem) if role is StaffRole.APPROVER else Conflict(problem)
        row = Staffing(
            id=_new_id(), principal_id=principal_id, project=project, role=role, valid_from=now
        )
        self.staffing.append(row)
        return row

    def establish(
        self,
        project: str,
        kind: DestinationKind,
        value: str,
        now: datetime,
        account: str | None = None,
    ) -> Destination:
        """An established destination of ``project`` (as the use case folds it)."""
        if project not in self.projects:
            raise NotFound(f"no project {project!r}")
        kept = Destination(
            id=_new_id(),
            project=project,
            kind=kind,
            value=normalized(kind, value),
            account=None if account is None else fold_account(account),
            established_by=self.org.founder_id,
            established_at=now,
        )
        self.destinations.append(kept)
        return kept

    def counterparties(self, now: datetime) -> Counterparties:
        by_project: dict[str, list[Destination]] = {}
        for d in self.destinations:
            by_project.setdefault(d.project, []).append(d)
        rows: dict[str, list[Staffing]] = {}
        for row in self.staffing:
            rows.setdefault(row.principal_id, []).append(row)
        colleagues = colleagues_of(self.principals.values(), rows)
        return Counterparties(
            {k: tuple(v) for k, v in by_project.items()},
            colleagues,
            frozenset(domain_of(a) for a in colleagues),
            now,
        )

    def unstaff(self, staffing_id: str, now: datetime) -> None:
        """End a staffing now (its history stays)."""
        for i, row in enumerate(self.staffing):
            if row.id == staffing_id:
                self.staffing[i] = row.model_copy(update={"valid_until": now})
                return
        raise NotFound(f"no staffing {staffing_id}")

    def add_barrier(self, name: str, groups: list[list[str]], now: datetime) -> Barrier:
        """A wall, the founder staying approver on every side (``founder_side=None``)."""
        barrier = Barrier(
            id=_new_id(), org_id=self.id, name=name, groups=tuple(tuple(g) for g in groups)
        )
        agents = {p.id: p.handle for p in self.principals.values() if p.kind is PrincipalKind.AGENT}
        problem = rules.barrier_problem(barrier, agents, self.staffing, self.records, now)
        if problem is not None:
            raise Conflict(problem)
        self.barriers.append(barrier)
        return barrier

    def add_commitment(
        self,
        title: str,
        constraint: Constraint,
        projects: tuple[str, ...],
        now: datetime,
        *,
        confirmed: bool = True,
        valid_until: datetime | None = None,
    ) -> Commitment:
        """A commitment recorded by the founder, confirmed by them unless told."""
        founder = self.org.founder_id
        commitment = Commitment(
            id=_new_id(),
            org_id=self.id,
            title=title,
            constraint=constraint,
            provenance=Provenance(source="letter", recorded_by=founder),
            state=ReviewState.CONFIRMED if confirmed else ReviewState.EXTRACTED,
            projects=projects,
            valid_from=now,
            valid_until=valid_until,
            confirmed_by=founder if confirmed else None,
            confirmed_at=now if confirmed else None,
        )
        self.commitments.append(commitment)
        return commitment

    def remember(self, ref: str, projects: tuple[str, ...]) -> None:
        """A memory record (only where it lies, which is all the broker reads of it)."""
        problem = rules.record_problem(projects, self.barriers)
        if problem is not None:
            raise Conflict(problem)
        self.records[ref] = projects

    def place_standing_hold(self, projects: tuple[str, ...], reason: str, now: datetime) -> str:
        """An open standing hold on spending in ``projects`` (all of the organization's
        for none); its id."""
        hold = StandingHold(
            id=_new_id(),
            org_id=self.id,
            subject="spending",
            projects=projects,
            reason=reason,
            placed_by=self.org.founder_id,
            placed_at=now,
        )
        self.standing_holds.append(hold)
        return hold.id

    def pinned(self, intent: Intent) -> tuple[Charter | None, AgentDefinition | None]:
        """The charter and definition ``intent`` is decided under: its run's pinned
        version, or the agent's stable one (its rollout's, the newest published without)."""
        charters = self.charters.get(intent.principal_id, {})
        definitions = self.definitions.get(intent.principal_id, {})
        if intent.pin is not None:
            return charters.get(intent.pin.version), definitions.get(intent.pin.definition)
        rollout = self.rollouts.get(intent.principal_id) or initial_rollout(
            intent.principal_id, charters
        )
        charter = None if rollout is None else charters.get(rollout.stable)
        if charter is None:
            return None, None
        return charter, definitions.get(charter.definition_pin)


# --- the rows a unit keeps ---------------------------------------------------------------


@dataclass(frozen=True)
class IntentRecord:
    """An intent as stored (the SQL ``intents`` row)."""

    intent: Intent
    status: Outcome
    reach: tuple[str, ...]
    spend_cents: int
    op_key: str | None
    created_at: datetime
    dispatched: bool = False


@dataclass(frozen=True)
class _Hold:
    state: HoldState
    release: tuple[str, ...]
    resolved_by: str | None = None
    resolved_at: datetime | None = None


@dataclass(frozen=True)
class _Claim:
    intent_id: str
    claimed_at: datetime


@dataclass
class _Book:
    """One organization's governance rows. Every value is immutable: a unit works on a
    copy of the containers and the copy replaces the book when the unit commits."""

    head: ChainHead
    entries: list[AuditEntry] = field(default_factory=list)
    by_key: dict[str, AuditEntry] = field(default_factory=dict)
    poisoned: str | None = None
    intents: dict[str, IntentRecord] = field(default_factory=dict)
    decisions: dict[str, tuple[Decision, ...]] = field(default_factory=dict)
    holds: dict[str, _Hold] = field(default_factory=dict)
    claims: dict[str, _Claim] = field(default_factory=dict)
    """Operation keys held, by key (one holder a key: the SQL primary key)."""
    written: dict[str, DispatchResult] = field(default_factory=dict)
    """What connectors wrote, by intent (the connectors' tables)."""

    def copy(self) -> _Book:
        return _Book(
            head=self.head,
            entries=list(self.entries),
            by_key=dict(self.by_key),
            poisoned=self.poisoned,
            intents=dict(self.intents),
            decisions=dict(self.decisions),
            holds=dict(self.holds),
            claims=dict(self.claims),
            written=dict(self.written),
        )

    def append(self, org_id: str, draft: AuditDraft, now: datetime, keys: ChainKeys) -> AuditEntry:
        """Link ``draft`` after the head (no idempotency check: see :meth:`FakeUnit.append`)."""
        if draft.event_key in self.by_key:  # the (org, event key) unique constraint
            raise StoreFailure(
                "UNIQUE constraint failed: audit_entries.org_id, audit_entries.event_key"
            )
        at = now.isoformat(timespec="microseconds")
        entry, self.head = link(org_id, self.head, draft, at, keys)
        self.entries.append(entry)
        self.by_key[entry.event_key] = entry
        return entry

    def release_claims(self, intent_id: str) -> None:
        for key in [k for k, c in self.claims.items() if c.intent_id == intent_id]:
            del self.claims[key]


# --- the unit of work ----------------------------------------------------------------------


def _op_key(intent: Intent) -> str | None:
    tool = REGISTRY.get(intent.tool)
    return None if tool is None else operation_key(tool, intent.payload)


class FakeUnit:
    """:class:`~domain.governance.ports.GovernanceUnit` over one organization's book."""

    def __init__(
        self,
        store: FakeGovernance,
        org: FakeOrganization,
        book: _Book,
        now: datetime,
    ) -> None:
        self._store = store
        self._org = org
        self._book = book
        self._now = now
        self.org_id = org.id
        self._poisoned = book.poisoned

    def poisoned(self) -> str | None:
        return self._poisoned

    def latest(self, intent_id: str) -> Decision | None:
        found = self._book.decisions.get(intent_id)
        return found[-1] if found else None

    def stored(self, intent_id: str) -> StoredIntent | None:
        row = self._book.intents.get(intent_id)
        latest = self.latest(intent_id)
        if row is None or latest is None:
            return None
        hold = self._book.holds.get(intent_id)
        return StoredIntent(
            intent=row.intent,
            run_id=row.intent.run_id,
            status=row.status,
            dispatched=row.dispatched,
            hold=None if hold is None else hold.state,
            latest=latest,
            reach=row.reach,
        )

    def principal(self, principal_id: str) -> tuple[Principal | None, tuple[Staffing, ...]]:
        for org in (self._org, *self._store.organizations()):
            found = org.principals.get(principal_id)
            if found is not None:
                return found, tuple(s for s in org.staffing if s.principal_id == principal_id)
        return None, ()

    def project_names(self) -> Mapping[str, str]:
        return {}  # the fake's projects have slugs alone

    def recorded(self, event_key: str) -> AuditEntry | None:
        return self._book.by_key.get(event_key)

    def append(self, draft: AuditDraft) -> AuditEntry:
        existing = self._book.by_key.get(draft.event_key)
        if existing is not None:
            return existing
        return self._book.append(self.org_id, draft, self._now, self._store.keys)

    # reading what the broker reads

    def snapshot(self, intent: Intent) -> BrokerSnapshot:
        org = self._org
        tool = REGISTRY.get(intent.tool)
        spends = tool is not None and spend_of(intent, tool) > 0
        refs = (*intent.references, *intent.read_refs)
        found = {ref: org.records[ref] for ref in refs if ref in org.records}
        index = PolicyIndex.of(tuple(org.barriers), tuple(org.commitments))
        run_spent, committed, (paid, payments) = (
            self._spend(intent, index, found) if spends else (0, {}, (0, ()))
        )
        run_spent += self._model_spend(intent.run_id)
        charter, definition = org.pinned(intent)
        return BrokerSnapshot(
            now=self._now,
            principal=org.principals.get(intent.principal_id),
            definition=definition,
            charter=charter,
            projects=frozenset(org.projects),
            staffing=tuple(s for s in org.staffing if s.principal_id == intent.principal_id),
            requester=org.principals.get(intent.requested_by or ""),
            requester_staffing=tuple(
                s for s in org.staffing if s.principal_id == intent.requested_by
            ),
            barriers=tuple(org.barriers),
            commitments=tuple(org.commitments),
            index=index,
            records=found,
            run_spent_cents=run_spent,
            committed_spend=committed,
            paid_to_payee=paid,
            payee_payments=payments,
            standing_holds=(
                tuple(h for h in org.standing_holds if h.released_at is None) if spends else ()
            ),
            in_flight=self._in_flight(intent),
            completed=self._completed(intent),
            counterparties=org.counterparties(self._now) if governs(tool) else None,
            run_recipients=frozenset(
                address
                for r in self._book.intents.values()
                if r.intent.run_id == intent.run_id
                and r.intent.id != intent.id
                and r.status in (Outcome.ALLOW, Outcome.APPROVED, Outcome.HOLD)
                for address in recipients_of(REGISTRY.get(r.intent.tool), r.intent.payload)
            )
            if governs(tool)
            else frozenset(),
            tools=REGISTRY,
        )

    def _spend(
        self, intent: Intent, index: PolicyIndex, found: dict[str, tuple[str, ...]]
    ) -> tuple[int, dict[str, int], tuple[int, tuple[str, ...]]]:
        reach = known_reach(intent, found)
        spending = [
            Spending(
                r.intent.id,
                r.intent.run_id,
                frozenset(r.reach),
                r.spend_cents,
                r.created_at,
                payee_of(REGISTRY.get(r.intent.tool), r.intent.payload),
                self._let_through(r.intent.id),
            )
            for r in self._book.intents.values()
            if r.status in SPENDING and r.spend_cents > 0 and r.intent.id != intent.id
        ]
        run_spent, committed = counted(index.caps(reach), spending, intent.run_id, self._now)
        payee = payee_of(REGISTRY.get(intent.tool), intent.payload)
        return run_spent, committed, paid_to(spending, payee, self._now)

    def _let_through(self, intent_id: str) -> datetime | None:
        """When the intent was let through (its newest allow or approval), as the SQL
        store reads it from the decisions."""
        times = [
            d.decided_at
            for d in self._book.decisions.get(intent_id, ())
            if d.outcome in SPENDING and d.decided_at is not None
        ]
        return max(times, default=None)

    def _model_spend(self, run_id: str) -> int:
        key = usage_key(run_id)
        return sum(
            cents
            for e in self._book.entries
            if (e.event_key == key or e.event_key.startswith(f"{key}:"))
            and isinstance(cents := e.payload.get("cents"), int)
        )

    def _in_flight(self, intent: Intent) -> dict[str, tuple[InFlight, ...]]:
        tool = REGISTRY.get(intent.tool)
        if tool is None:
            return {}
        key, wildcard = _op_key(intent), wildcard_key(tool)
        if key is not None:
            held = [(k, c) for k, c in self._book.claims.items() if k in (key, wildcard)]
        else:
            held = [(k, c) for k, c in self._book.claims.items() if k.startswith(wildcard[:-1])]
        held.sort(key=lambda kc: kc[1].claimed_at)
        return in_flight_by_key(
            InFlight(key=k, intent_id=c.intent_id, status=self._book.intents[c.intent_id].status)
            for k, c in held
        )

    def _completed(self, intent: Intent) -> dict[str, tuple[str, ...]]:
        tool = REGISTRY.get(intent.tool)
        key = _op_key(intent)
        if tool is None or tool.repeatable or key is None:
            return {}
        done = tuple(
            r.intent.id for r in self._book.intents.values() if r.op_key == key and r.dispatched
        )
        return {key: done} if done else {}

    # writing

    def record(
        self, intent: Intent, decision: Decision, effects: Effects, draft: AuditDraft
    ) -> Decision:
        book, now = self._book, self._now
        new = intent.id not in book.intents
        if new:
            # A first decision's entry is written without looking its key up (the SQL
            # unit knows it has none); a duplicate key fails as the unique index would.
            entry = book.append(self.org_id, draft, now, self._store.keys)
            self._insert(intent, decision, effects)
        else:
            self._update(intent.id, effects)
            entry = self.append(draft)
        recorded = decision.model_copy(
            update={
                "audit_seq": entry.seq,
                "entry_hash": entry.entry_hash,
                "intent_digest": intent.digest,
            }
        )
        # the decision row keeps the unit's time, as the SQL row's decided_at does
        stored = recorded.model_copy(update={"decided_at": _utc(now)})
        book.decisions[intent.id] = (*book.decisions.get(intent.id, ()), stored)
        return recorded

    def _insert(self, intent: Intent, decision: Decision, effects: Effects) -> None:
        book, now = self._book, _utc(self._now)
        tool = REGISTRY.get(intent.tool)
        book.intents[intent.id] = IntentRecord(
            intent=intent,
            status=effects.status,
            reach=tuple(decision.reach or intent.projects),
            spend_cents=0 if tool is None else spend_of(intent, tool),
            op_key=_op_key(intent),
            created_at=now,
        )
        if effects.claim is not None:
            if effects.claim in book.claims:  # the (org, key) primary key
                raise StoreFailure("UNIQUE constraint failed: claims.org_id, claims.key")
            book.claims[effects.claim] = _Claim(intent.id, now)
        if effects.hold is HoldState.OPEN:
            book.holds[intent.id] = _Hold(HoldState.OPEN, effects.release_conditions)

    def _update(self, intent_id: str, effects: Effects) -> None:
        """Apply ``effects`` to a recorded intent: its status, its keys, its hold."""
        book, now = self._book, _utc(self._now)
        row = book.intents[intent_id]
        book.intents[intent_id] = replace(row, status=effects.status)
        if effects.release:
            book.release_claims(intent_id)
        if effects.claim is not None and effects.claim not in book.claims:
            book.claims[effects.claim] = _Claim(intent_id, now)
        hold = book.holds.get(intent_id)
        if effects.hold is HoldState.OPEN:
            if hold is not None:
                book.holds[intent_id] = replace(hold, release=effects.release_conditions)
            else:
                book.holds[intent_id] = _Hold(HoldState.OPEN, effects.release_conditions)
        elif effects.hold is not None and hold is not None and hold.state is HoldState.OPEN:
            book.holds[intent_id] = replace(
                hold, state=effects.hold, resolved_by=effects.resolved_by, resolved_at=now
            )

    def poison(self, draft: AuditDraft, reason: str) -> None:
        self._book.poisoned = reason[:2000]
        self.append(draft)
        self._poisoned = reason

    def unpoison(self, draft: AuditDraft) -> None:
        self._book.poisoned = None
        self.append(draft)
        self._poisoned = None

    def dispatched(self, result: DispatchResult) -> AuditEntry:
        """Record a connector's write (``adapters.store.governance.record_dispatch``): the
        intent marked dispatched, its keys released, the ``dispatched`` entry appended."""
        row = self._book.intents[result.intent_id]
        self._book.intents[result.intent_id] = replace(row, dispatched=True)
        self._book.release_claims(result.intent_id)
        return self.append(records.dispatch_draft(result))


# --- the store --------------------------------------------------------------------------------


class FakeGovernance:
    """:class:`~domain.governance.ports.GovernanceStore` in memory, and the
    :class:`~domain.audit.ports.AuditReader` of its chains."""

    def __init__(self, keys: ChainKeys = FAKE_KEYS) -> None:
        self.keys = keys
        self._orgs: dict[str, FakeOrganization] = {}
        self._books: dict[str, _Book] = {}
        self._locks: dict[str, threading.Lock] = {}

    def add(self, org: FakeOrganization) -> FakeOrganization:
        """Keep ``org``, with an empty chain (its signed genesis head)."""
        self._orgs[org.id] = org
        self._books[org.id] = _Book(head=genesis(org.id, self.keys))
        self._locks[org.id] = threading.Lock()
        return org

    def organizations(self) -> list[FakeOrganization]:
        return list(self._orgs.values())

    @contextmanager
    def locked(self, org_id: str, now: datetime) -> Iterator[FakeUnit]:
        """:meth:`unit`, typed as the fake (for the fake connector and the tests)."""
        lock = self._locks.get(org_id)
        if lock is None:
            raise UnknownOrganization(f"no organization {org_id}")
        if not lock.acquire(timeout=LOCK_WAIT):
            raise StoreFailure("database is locked")
        try:
            book = self._books[org_id].copy()
            yield FakeUnit(self, self._orgs[org_id], book, now)
            self._books[org_id] = book  # commit: only a unit that ended without an error
        finally:
            lock.release()

    def unit(self, org_id: str, now: datetime) -> AbstractContextManager[FakeUnit]:
        """Lock ``org_id`` and open a unit whose appends carry ``now``."""
        return self.locked(org_id, now)

    def token_for(self, org_id: str, decision: Decision) -> tuple[Intent, DispatchToken]:
        book = self._books.get(org_id)
        row = None if book is None else book.intents.get(decision.intent_id)
        if row is None:
            raise FoundationBroken(f"intent {decision.intent_id} is not recorded")
        return row.intent, token_for(row.intent, decision)

    # reading, as the audit reader and the tests do

    def entries(self, org_id: str, after_seq: int = 0) -> list[AuditEntry]:
        return [e for e in self._books[org_id].entries if e.seq > after_seq]

    def of_intent(self, org_id: str, intent_id: str) -> list[AuditEntry]:
        return [e for e in self._books[org_id].entries if e.intent_id == intent_id]

    def head(self, org_id: str) -> ChainHead | None:
        book = self._books.get(org_id)
        return None if book is None else book.head

    def verify(self, org_id: str) -> ChainVerification:
        return verify_chain(org_id, self.entries(org_id), self.head(org_id), self.keys)

    def verified_entries(self, org_id: str) -> tuple[ChainVerification, list[AuditEntry]]:
        return self.verify(org_id), self.entries(org_id)

    def intents(self, org_id: str) -> list[IntentRecord]:
        """The organization's intents as stored, oldest first."""
        return list(self._books[org_id].intents.values())

    def open_holds(self, org_id: str) -> list[str]:
        """Ids of the intents whose hold is open."""
        return [i for i, h in self._books[org_id].holds.items() if h.state is HoldState.OPEN]

    def claims(self, org_id: str) -> dict[str, str]:
        """The operation keys held: key → intent id."""
        return {k: c.intent_id for k, c in self._books[org_id].claims.items()}

    def tamper(self, org_id: str, seq: int, **changes: object) -> None:
        """Change entry ``seq`` behind the chain's back (a test of what a broken record
        does)."""
        book = self._books[org_id]
        entry = book.entries[seq - 1].model_copy(update=changes)
        book.entries[seq - 1] = entry
        book.by_key[entry.event_key] = entry


class FakeConnector:
    """A connector whose outside world is a dictionary: checks the token in the write's
    own unit exactly as ``adapters.connectors.base.TableConnector`` does (the same
    :func:`~domain.governance.tokens.token_problem`), writes once per intent, and records
    the write in the same commit."""

    def __init__(
        self, store: FakeGovernance, system: str, action: str, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self.system = system
        self._action = action
        self._clock = clock

    @property
    def actions(self) -> frozenset[str]:
        return frozenset({self._action})

    def write(self, write: ConnectorWrite) -> DispatchResult:
        if (write.tool.system, write.tool.action) != (self.system, self._action):
            raise TokenRefused(f"{write.tool.name} is not {self.system}.{self._action}")
        with self._store.locked(write.intent.org_id, self._clock()) as unit:
            if unit.poisoned() is not None:
                raise BrokerPoisoned(unit.poisoned() or "")
            book = unit._book
            self._check(write, book)
            result = DispatchResult(
                intent_id=write.intent.id,
                system=self.system,
                action=self._action,
                external_id=f"{self.system}:{write.intent.id}",
                duplicate=write.intent.id in book.written,
            )
            book.written.setdefault(write.intent.id, result)
            unit.dispatched(result)
        return result

    def _check(self, write: ConnectorWrite, book: _Book) -> None:
        token, intent = write.token, write.intent
        if intent.tool != write.tool.name:
            raise TokenRefused(f"the intent is for {intent.tool}, not {write.tool.name}")
        entries = {
            e.seq: e for e in book.entries if e.seq in (token.audit_seq - 1, token.audit_seq)
        }
        entry = entries.get(token.audit_seq)
        row = book.intents.get(intent.id)
        problem = token_problem(
            token,
            intent,
            entry,
            self._store.keys,
            None if row is None else row.status,
            row is not None and row.dispatched,
        )
        if problem is not None:
            raise TokenRefused(problem.reason, foundation=problem.foundation)
        if token.audit_seq > 1:
            prev = entries.get(token.audit_seq - 1)
            assert entry is not None
            if prev is None or prev.entry_hash != entry.prev_hash:
                raise TokenRefused(
                    f"audit entry {token.audit_seq} is not linked to its predecessor",
                    foundation=True,
                )


# --- time and a firm -------------------------------------------------------------------------


class Clock:
    """A clock that moves only when told (``tick`` a step on every reading, if given)."""

    def __init__(self, start: datetime | None = None, tick: timedelta = timedelta(0)) -> None:
        self.now = start or datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
        self._tick = tick

    def __call__(self) -> datetime:
        now = self.now
        self.now += self._tick
        return now

    def advance(self, by: timedelta) -> datetime:
        self.now += by
        return self.now


class FakeFirm:
    """``tests.support.Firm`` in memory: Harbor & Vale, projects east and west behind a
    wall, orion and ledger on east, vega on west, Ben an associate (member) on east, the
    founder Ada approver on both, a record on each side."""

    def __init__(
        self, store: FakeGovernance | None = None, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.store = store or FakeGovernance()
        self.clock = clock or Clock()
        now = self.clock()
        self.organization = org = FakeOrganization.found(
            "Harbor & Vale", "ada@hv.example", now, "Ada"
        )
        self.store.add(org)
        self.org = org.id
        self.founder = org.org.founder_id
        self.agents = {
            p.handle: p.id for p in org.principals.values() if p.kind is PrincipalKind.AGENT
        }
        org.add_project("east", now)
        org.add_project("west", now)
        org.add_barrier("wall", [["east"], ["west"]], now)
        self.associate = org.add_human("ben@hv.example", "Ben").id
        for who, project in (("orion", "east"), ("vega", "west"), ("ledger", "east")):
            org.staff(self.agents[who], project, StaffRole.MEMBER, now)
        org.staff(self.associate, "east", StaffRole.MEMBER, now)
        org.remember("birch-cim", ("west",))
        org.remember("atlas-kickoff", ("east",))
        for project, kind, value in FIRM_DESTINATIONS:
            org.establish(project, kind, value, now)

    def connectors(self) -> dict[tuple[str, str], FakeConnector]:
        """A fake connector for every tool of the registry."""
        systems = {(t.system, t.action) for t in REGISTRY.values()}
        return {
            (system, action): FakeConnector(self.store, system, action, self.clock)
            for system, action in systems
        }
