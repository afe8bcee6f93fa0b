"""Row ↔ domain conversions. A row is an ORM object or a Core row of the same table's
columns (the hot paths read those)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row

from adapters.store.db import utc, utc_or_none
from adapters.store.tables import (
    AgentDefinitionRow,
    AuditEntryRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    DecisionRow,
    DestinationRow,
    IdentityRow,
    IntentRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    RolloutRow,
    StaffingRow,
)
from domain.audit.chain import AuditEntry
from domain.fleet.registry import Rollout
from domain.governance.intents import BrokerMode, Decision, Intent, Outcome, Stage
from domain.governance.spend import Spending, payee_of
from domain.organization.contracts import (
    AgentDefinition,
    Barrier,
    Charter,
    Commitment,
    Destination,
    Identity,
    Organization,
    Principal,
    Project,
    Provenance,
    Skill,
    Staffing,
    StandingHold,
)
from domain.organization.kinds import (
    CharterStatus,
    DestinationKind,
    IdentityKind,
    PrincipalKind,
    PrincipalStatus,
    ReviewState,
    StaffRole,
)
from domain.tools import REGISTRY


def org(row: OrgRow) -> Organization:
    return Organization(id=row.id, name=row.name, founder_id=row.founder_id)


def identity(row: IdentityRow) -> Identity:
    return Identity(
        org_id=row.org_id,
        kind=IdentityKind(row.kind),
        external_id=row.external_id,
        principal_id=row.principal_id,
        linked_by=row.linked_by,
    )


def principal(row: PrincipalRow | Row[Any]) -> Principal:
    return Principal(
        id=row.id,
        org_id=row.org_id,
        kind=PrincipalKind(row.kind),
        handle=row.handle,
        display_name=row.display_name,
        email=row.email,
        agent_kind=row.agent_kind,
        status=PrincipalStatus(row.status),
        status_since=row.status_since,
        status_reason=row.status_reason,
    )


def definition(row: AgentDefinitionRow) -> AgentDefinition:
    return AgentDefinition(
        principal_id=row.principal_id,
        version=row.version,
        instructions=row.instructions,
        budget_cents=row.budget_cents,
    )


def charter(row: CharterRow) -> Charter:
    return Charter(
        principal_id=row.principal_id,
        version=row.version,
        status=CharterStatus(row.status),
        role=row.role,
        purpose=row.purpose,
        tools=tuple(row.tools),
        budget_ceiling_cents=row.budget_ceiling_cents,
        definition_pin=row.definition_pin,
        skills=tuple(Skill.model_validate(k) for k in row.skills or ()),
    )


def rollout(row: RolloutRow) -> Rollout:
    return Rollout(
        principal_id=row.principal_id,
        stable=row.stable,
        candidate=row.candidate,
        share=row.share,
        previous=row.previous,
        rolled_back=tuple(row.rolled_back or ()),
    )


def project(row: ProjectRow) -> Project:
    return Project(org_id=row.org_id, slug=row.slug, name=row.name)


def staffing(row: StaffingRow | Row[Any]) -> Staffing:
    return Staffing(
        id=row.id,
        principal_id=row.principal_id,
        project=row.project,
        role=StaffRole(row.role),
        valid_from=utc(row.valid_from),
        valid_until=utc_or_none(row.valid_until),
    )


def barrier(row: BarrierRow) -> Barrier:
    return Barrier(
        id=row.id, org_id=row.org_id, name=row.name, groups=tuple(tuple(g) for g in row.groups)
    )


def destination(row: DestinationRow) -> Destination:
    return Destination(
        id=row.id,
        project=row.project,
        kind=DestinationKind(row.kind),
        value=row.value,
        account=row.account,
        label=row.label,
        established_by=row.established_by,
        established_at=utc(row.established_at),
        retired_at=utc_or_none(row.retired_at),
    )


def commitment(row: CommitmentRow) -> Commitment:
    return Commitment.model_validate(
        {
            "id": row.id,
            "org_id": row.org_id,
            "title": row.title,
            "constraint": row.constraint,
            "provenance": Provenance.model_validate(row.provenance),
            "state": ReviewState(row.state),
            "projects": tuple(row.projects),
            "valid_from": utc(row.valid_from),
            "valid_until": utc_or_none(row.valid_until),
            "confirmed_by": row.confirmed_by,
            "confirmed_at": utc_or_none(row.confirmed_at),
            "rejected_by": row.rejected_by,
            "rejected_at": utc_or_none(row.rejected_at),
            "rejection_reason": row.rejection_reason,
            "fulfilled_by": row.fulfilled_by,
            "fulfilled_at": utc_or_none(row.fulfilled_at),
            "fulfilment_note": row.fulfilment_note,
        }
    )


def intent(row: IntentRow | Row[Any]) -> Intent:
    return Intent.model_validate(row.body)


def spending(row: Any, paid_at: datetime | None) -> Spending:
    """A stored spending intent (an ``IntentRow``, or a row of its columns with ``tool``
    and ``body``) as the broker counts it, let through at ``paid_at``."""
    return Spending(
        row.id,
        row.run_id,
        frozenset(row.reach),
        row.spend_cents,
        utc(row.created_at),
        payee_of(REGISTRY.get(row.tool), row.body.get("payload") or {}),
        None if paid_at is None else utc(paid_at),
    )


def decision(row: DecisionRow | Row[Any]) -> Decision:
    return Decision(
        intent_id=row.intent_id,
        outcome=Outcome(row.outcome),
        stage=Stage(row.stage),
        rule=row.rule,
        reason=row.reason,
        reasons=tuple((str(c[0]), str(c[1])) for c in row.reasons or ()),
        release=tuple(row.release),
        reach=tuple(row.reach),
        evidence=tuple(row.evidence),
        mode=BrokerMode(row.mode),
        enforced=None if row.enforced is None else Outcome(row.enforced),
        intent_digest=row.intent_digest,
        audit_seq=row.audit_seq,
        entry_hash=row.entry_hash,
        decided_at=utc(row.decided_at),
    )


def audit_entry(row: AuditEntryRow | Row[Any]) -> AuditEntry:
    return AuditEntry(
        org_id=row.org_id,
        seq=row.seq,
        at=row.at,
        event_key=row.event_key,
        actor=row.actor,
        intent_id=row.intent_id,
        decision=row.decision,
        stage=row.stage,
        rule=row.rule,
        payload=row.payload,
        prev_hash=row.prev_hash,
        entry_hash=row.entry_hash,
        signature=row.signature,
    )


def standing_hold(r: Any) -> StandingHold:
    """A ``standing_holds`` row (ORM or core) as the domain's value."""
    return StandingHold(
        id=r.intent_id,
        org_id=r.org_id,
        subject=r.subject,
        projects=tuple(r.projects),
        cites=r.cites,
        reason=r.reason,
        placed_by=r.placed_by,
        placed_at=utc(r.created_at),
        released_by=r.released_by,
        released_at=None if r.released_at is None else utc(r.released_at),
        release_reason=r.release_reason or "",
    )
