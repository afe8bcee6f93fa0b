"""Compaction through the memory gate (SQLite and PostgreSQL): two East records, read
as East's planner reads them, become one compact record linked back to each, holding no
detail the planner could not see; a record withheld from the reading agent, a member's
request and a human named as the reader are refused; the chain verifies."""

from __future__ import annotations

import pytest

from domain.errors import Forbidden, NotFound
from tests.support import Firm, utc_now
from usecases import memory
from usecases.context import Ports


def _notes(svc: Ports, firm: Firm) -> None:
    """Two East notes (Orion, East's planner, reads them)."""
    memory.remember(
        svc,
        firm.org,
        firm.founder,
        memory.Remember(
            "atlas-call-1",
            ("east",),
            "Atlas kickoff moved to Friday. Dana Reyes (dana@atlas.example) chairs it. "
            "The agenda covers scope and the data room.",
        ),
    )
    memory.remember(
        svc,
        firm.org,
        firm.founder,
        memory.Remember(
            "atlas-call-2",
            ("east",),
            "Atlas data room opens Monday. Northwind hosts the data room.",
        ),
    )


def test_records_are_compacted_into_one_linked_back_and_screened_again(
    services: Ports, firm: Firm
) -> None:
    _notes(services, firm)
    orion = firm.agents["orion"]
    done = memory.compact(
        services,
        firm.org,
        firm.founder,
        memory.Compact(orion, ["atlas-call-1", "atlas-call-2"], "atlas-calls", max_chars=300),
    )
    assert (done.engine, done.sources, done.projects) == (
        "extractive",
        ["atlas-call-1", "atlas-call-2"],
        ["east"],
    )
    record = services.memory.get(
        asker_principal_id=orion, org_id=firm.org, ref="atlas-calls", now=utc_now()
    )
    assert record.text is not None and "Atlas kickoff moved to Friday." in record.text
    assert "Atlas data room opens Monday." in record.text and len(record.text) <= 300
    # Read through Orion's gate, the summary never held Dana's address: only its mask.
    assert "dana@" not in record.text
    # Ben, a member of East, reads it and where it came from.
    links = memory.neighbours(services, firm.org, firm.associate, "atlas-calls")
    derived = sorted(
        str(n.view.ref) for n in links.neighbours if n.kind == "derived_from" and n.outgoing
    )
    assert derived == ["atlas-call-1", "atlas-call-2"]
    explained = memory.explain(services, firm.org, firm.associate, "atlas-calls")
    assert {s.view.ref for s in explained.steps} == {"atlas-call-1", "atlas-call-2"}
    assert services.audit.verify(firm.org).ok  # type: ignore[attr-defined]


def test_compaction_reads_only_what_its_agent_may_and_is_the_founders(
    services: Ports, firm: Firm
) -> None:
    _notes(services, firm)
    orion, vega = firm.agents["orion"], firm.agents["vega"]
    # Orion (East) may not read Birch's CIM: it is withheld, as if unknown.
    with pytest.raises(NotFound):
        memory.compact(
            services,
            firm.org,
            firm.founder,
            memory.Compact(orion, ["atlas-call-1", "birch-cim"], "mixed"),
        )
    # Vega (West) may not read East's notes either.
    with pytest.raises(NotFound):
        memory.compact(
            services, firm.org, firm.founder, memory.Compact(vega, ["atlas-call-1"], "west-copy")
        )
    with pytest.raises(Forbidden):
        memory.compact(
            services,
            firm.org,
            firm.associate,
            memory.Compact(orion, ["atlas-call-1"], "ben-summary"),
        )
    with pytest.raises(ValueError):
        memory.compact(
            services, firm.org, firm.founder, memory.Compact(firm.associate, ["atlas-call-1"], "x")
        )
    with pytest.raises(NotFound):
        memory.compact(
            services, firm.org, firm.founder, memory.Compact(orion, ["no-such-record"], "ghost")
        )
    assert services.audit.verify(firm.org).ok  # type: ignore[attr-defined]
