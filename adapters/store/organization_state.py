"""An organization's configuration as the database holds it, in the canonical form that
its ``configuration`` audit entries record (see :mod:`domain.audit.crosscheck`)."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, Row, select
from sqlmodel import Session, SQLModel, col

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
    table_of,
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


def _plain(s: Session, table: type[SQLModel], where: ColumnElement[bool]) -> list[Row[Any]]:
    """The rows of ``table`` that ``where`` keeps, as plain rows (their columns by name,
    as the ORM's instances have them): the whole configuration is read on every
    verification, and building ORM instances was a third of it."""
    return list(s.execute(select(*table_of(table).columns).where(where)))


def stored_configuration(s: Session, org_id: str, memory: MemoryAdapter) -> list[ConfigRecord]:
    """The organization's configuration as the database (and its memory stores) hold it,
    in the canonical form its ``configuration`` audit entries record."""
    items: list[Configured] = []
    org = s.get(OrgRow, org_id)
    if org is not None:
        items.append(convert.org(org))
    # A plain row has the columns an ORM row has, by the same names: the converters read
    # nothing else (the cast says so to the type checker).
    principals = _plain(s, PrincipalRow, col(PrincipalRow.org_id) == org_id)
    items += [convert.principal(cast(PrincipalRow, p)) for p in principals]
    ids = [p.id for p in principals]
    items += [
        convert.definition(cast(AgentDefinitionRow, r))
        for r in _plain(s, AgentDefinitionRow, col(AgentDefinitionRow.principal_id).in_(ids))
    ]
    items += [
        convert.charter(cast(CharterRow, r))
        for r in _plain(s, CharterRow, col(CharterRow.principal_id).in_(ids))
    ]
    items += [
        convert.rollout(cast(RolloutRow, r))
        for r in _plain(s, RolloutRow, col(RolloutRow.org_id) == org_id)
    ]
    for table, to_domain in (
        (IdentityRow, convert.identity),
        (ProjectRow, convert.project),
        (StaffingRow, convert.staffing),
        (BarrierRow, convert.barrier),
        (CommitmentRow, convert.commitment),
        (DestinationRow, convert.destination),
    ):
        rows = _plain(s, table, col(table.org_id) == org_id)
        items += [to_domain(cast(Any, r)) for r in rows]
    records = [config_record(item) for item in items]
    stores = memory.joined(s.connection())
    records += [memory_config_record(node) for node in stores.nodes(org_id)]
    records += [link_config_record(link) for link in stores.links(org_id)]
    records += [procedure_config_record(p) for p in stores.procedures(org_id)]
    return records
