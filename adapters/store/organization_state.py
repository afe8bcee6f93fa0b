"""An organization's configuration as the database holds it, in the canonical form that
its ``configuration`` audit entries record (see :mod:`domain.audit.crosscheck`)."""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session, col

from adapters.store import convert
from adapters.store.tables import (
    AgentDefinitionRow,
    BarrierRow,
    CharterRow,
    CommitmentRow,
    DestinationRow,
    IdentityRow,
    OrgRow,
    PrincipalRow,
    ProjectRow,
    RolloutRow,
    StaffingRow,
)
from domain.audit.crosscheck import (
    ConfigRecord,
    Configured,
    config_record,
    link_config_record,
    memory_config_record,
    procedure_config_record,
)
from domain.memory.adapter import MemoryAdapter


def stored_configuration(s: Session, org_id: str, memory: MemoryAdapter) -> list[ConfigRecord]:
    """The organization's configuration as the database (and its memory stores) hold it,
    in the canonical form its ``configuration`` audit entries record."""
    items: list[Configured] = []
    org = s.get(OrgRow, org_id)
    if org is not None:
        items.append(convert.org(org))
    principals = list(
        s.execute(select(PrincipalRow).where(col(PrincipalRow.org_id) == org_id)).scalars()
    )
    items += [convert.principal(p) for p in principals]
    ids = [p.id for p in principals]
    items += [
        convert.definition(r)
        for r in s.execute(
            select(AgentDefinitionRow).where(col(AgentDefinitionRow.principal_id).in_(ids))
        ).scalars()
    ]
    items += [
        convert.charter(r)
        for r in s.execute(
            select(CharterRow).where(col(CharterRow.principal_id).in_(ids))
        ).scalars()
    ]
    items += [
        convert.rollout(r)
        for r in s.execute(select(RolloutRow).where(col(RolloutRow.org_id) == org_id)).scalars()
    ]
    for table, to_domain in (
        (IdentityRow, convert.identity),
        (ProjectRow, convert.project),
        (StaffingRow, convert.staffing),
        (BarrierRow, convert.barrier),
        (CommitmentRow, convert.commitment),
        (DestinationRow, convert.destination),
    ):
        rows = s.execute(select(table).where(col(table.org_id) == org_id)).scalars()
        items += [to_domain(r) for r in rows]
    records = [config_record(item) for item in items]
    stores = memory.joined(s.connection())
    records += [memory_config_record(node) for node in stores.nodes(org_id)]
    records += [link_config_record(link) for link in stores.links(org_id)]
    records += [procedure_config_record(p) for p in stores.procedures(org_id)]
    return records
