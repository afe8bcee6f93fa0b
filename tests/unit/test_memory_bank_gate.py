"""The MemoryBank use case over in-memory units (tests/fakes/memory.py): who reads
(``domain.memory.readers.reader_of``), what each read path releases across a wall, that
a leaky backend's hits are still put to the release rule, that a stranger touches no
store, and that every read is logged once (a failed one on its own, never half)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from domain.memory.adapter import DERIVED_FROM, MemoryLink, Procedure
from domain.memory.readers import reader_of
from domain.memory.release import Release, Span, StoredNode
from domain.organization.contracts import Barrier, Organization, Principal, Staffing
from domain.organization.kinds import PrincipalKind, StaffRole
from tests.fakes.memory import (
    FakeDirectory,
    FakeMemoryUnits,
    FakeStores,
    StoreDown,
    WordsEmbedder,
)
from usecases.memory_bank import MemoryBank

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
ORG = "org-1"
PROJECTS = ("east", "west", "north")


def _person(pid: str, kind: PrincipalKind = PrincipalKind.HUMAN, org: str = ORG) -> Principal:
    return Principal(id=pid, org_id=org, kind=kind, handle=pid, display_name=pid.title())


def _staff(pid: str, project: str, until: datetime | None = None) -> Staffing:
    return Staffing(
        id=f"{pid}-{project}",
        principal_id=pid,
        project=project,
        role=StaffRole.MEMBER,
        valid_from=NOW - timedelta(days=1),
        valid_until=until,
    )


WALL = Barrier(id="wall", org_id=ORG, name="wall", groups=(("east",), ("west",)))
FIRM = Organization(id=ORG, name="Firm", founder_id="ada")
PEOPLE = [
    _person("ada"),
    _person("ben"),
    _person("cy"),
    _person("orion", PrincipalKind.AGENT),
    _person("vega", PrincipalKind.AGENT),
]
STAFFING = [
    _staff("ben", "east"),
    _staff("cy", "west"),
    _staff("orion", "east"),
    _staff("orion", "north"),
    _staff("vega", "west"),
    _staff("ada", "east"),
    _staff("ada", "west"),
]


def _bank(stores: FakeStores | None = None) -> tuple[MemoryBank, FakeMemoryUnits, FakeStores]:
    embedder = WordsEmbedder()
    stores = stores or FakeStores()
    for ref, projects, text in (
        ("atlas", ("east",), "atlas kickoff agenda and budget"),
        ("birch", ("west",), "birch kickoff agenda and projections"),
        ("north", ("north",), "north office lease kickoff"),
    ):
        stores.keep(StoredNode(org_id=ORG, ref=ref, projects=projects, text=text), embedder)
    units = FakeMemoryUnits(
        directories={ORG: FakeDirectory.of(FIRM, PEOPLE, STAFFING, [WALL])}, stores={ORG: stores}
    )
    return MemoryBank(units, embedder), units, stores


def test_a_query_releases_only_the_readers_side_and_logs_it_once() -> None:
    bank, units, _ = _bank()
    found = bank.query(asker_principal_id="ben", org_id=ORG, text="kickoff agenda", now=NOW)
    assert [h.view.ref for h in found.hits] == ["atlas"]
    assert found.withheld == 2
    (read,) = units.reads(ORG)
    assert (read.path, read.released, read.withheld, read.outcome) == (
        "similarity",
        ("atlas",),
        2,
        "released",
    )


def test_a_leaky_backends_hits_are_still_put_to_the_release_rule() -> None:
    """The backend's mask is not trusted: a search that ignores it releases nothing more."""
    bank, _, _ = _bank(FakeStores(leaky=True))
    found = bank.query(asker_principal_id="ben", org_id=ORG, text="kickoff agenda", now=NOW)
    assert [h.view.ref for h in found.hits] == ["atlas"]
    recalled = bank.recall(asker_principal_id="vega", org_id=ORG, query="kickoff agenda", now=NOW)
    assert recalled.released_refs == ("birch",)


def test_a_run_for_a_human_recalls_what_both_may_read() -> None:
    bank, _, _ = _bank()
    alone = bank.recall(asker_principal_id="orion", org_id=ORG, query="kickoff", now=NOW)
    assert set(alone.released_refs) == {"atlas", "north"}
    for_ben = bank.recall(
        asker_principal_id="orion", org_id=ORG, query="kickoff", now=NOW, on_behalf_of="ben"
    )
    assert for_ben.released_refs == ("atlas",)
    for_an_agent = bank.recall(
        asker_principal_id="orion", org_id=ORG, query="kickoff", now=NOW, on_behalf_of="vega"
    )
    assert for_an_agent.released_refs == ()


def test_a_founder_on_both_sides_of_the_wall_reads_neither() -> None:
    bank, _, _ = _bank()
    assert bank.get(asker_principal_id="ada", org_id=ORG, ref="atlas", now=NOW).ref is None
    assert bank.get(asker_principal_id="ben", org_id=ORG, ref="atlas", now=NOW).ref == "atlas"


def test_a_stranger_touches_no_store_and_learns_no_count() -> None:
    bank, units, stores = _bank()
    units.directories["org-2"] = FakeDirectory.of(
        Organization(id="org-2", name="Other", founder_id="zed"), [_person("zed", org="org-2")], []
    )
    before = stores.calls
    for asker in ("zed", "nobody"):
        view = bank.get(asker_principal_id=asker, org_id=ORG, ref="atlas", now=NOW)
        assert view.release is Release.WITHHELD
        found = bank.query(asker_principal_id=asker, org_id=ORG, text="atlas", now=NOW)
        assert (found.hits, found.withheld) == ((), 0)
    assert stores.calls == before
    assert [r.outcome for r in units.reads(ORG)] == ["empty"] * 4
    assert all(r.withheld == 0 for r in units.reads(ORG))


def test_an_unknown_organization_reads_as_a_stranger() -> None:
    bank, units, _ = _bank()
    view = bank.get(asker_principal_id="ben", org_id="org-404", ref="atlas", now=NOW)
    assert view.release is Release.WITHHELD
    assert [r.outcome for r in units.reads("org-404")] == ["empty"]


@pytest.mark.parametrize("failing", ["retrieve", "search", "links", "procedures"])
def test_a_read_that_fails_in_the_store_is_logged_once_as_failed(failing: str) -> None:
    bank, units, stores = _bank()
    stores.fail_on = failing
    reads: dict[str, Callable[[], object]] = {
        "retrieve": lambda: bank.get(asker_principal_id="ben", org_id=ORG, ref="atlas", now=NOW),
        "search": lambda: bank.query(asker_principal_id="ben", org_id=ORG, text="x", now=NOW),
        "links": lambda: bank.neighbours(
            asker_principal_id="ben", org_id=ORG, ref="atlas", now=NOW
        ),
        "procedures": lambda: bank.procedure(
            asker_principal_id="ben", org_id=ORG, name="close", now=NOW
        ),
    }
    with pytest.raises(StoreDown):
        reads[failing]()
    assert [(r.outcome, r.released) for r in units.reads(ORG)] == [("failed", ())]


def test_an_explanation_stops_at_a_step_the_reader_may_not_see() -> None:
    stores = FakeStores()
    bank, _, _ = _bank(stores)
    stores.edges += [
        MemoryLink(id="l1", src="atlas", dst="birch", kind=DERIVED_FROM, span_start=0, span_end=5),
        MemoryLink(id="l2", src="birch", dst="north", kind=DERIVED_FROM),
    ]
    told = bank.explain(asker_principal_id="ben", org_id=ORG, ref="atlas", now=NOW)
    assert told.redacted
    assert [(s.depth, s.view.release, s.source) for s in told.steps] == [
        (1, Release.WITHHELD, None)
    ]


def test_an_agent_reads_a_redacted_view_and_a_procedure_only_on_its_side() -> None:
    stores = FakeStores()
    bank, _, _ = _bank(stores)
    stores.nodes["atlas"] = stores.nodes["atlas"].model_copy(
        update={"spans": (Span(start=0, end=5, kind="person"),)}
    )
    stores.versions += [
        Procedure(name="close", version=1, projects=("east",), steps=("count", "sign")),
        Procedure(name="close", version=2, projects=("west",), steps=("count",)),
    ]
    view = bank.get(asker_principal_id="orion", org_id=ORG, ref="atlas", now=NOW)
    assert view.release is Release.REDACTED and "atlas" not in (view.text or "")
    newest = bank.procedure(asker_principal_id="ben", org_id=ORG, name="close", now=NOW)
    assert newest.view.release is Release.WITHHELD  # version 2 is West's
    first = bank.procedure(asker_principal_id="ben", org_id=ORG, name="close", now=NOW, version=1)
    assert first.steps == ("count", "sign")


# --- who reads, as a property ---------------------------------------------------------------

ids = st.sampled_from(["ada", "ben", "cy", "orion", "vega", "stranger"])
staffings = st.lists(
    st.tuples(
        st.sampled_from(["ada", "ben", "cy", "orion", "vega"]),
        st.sampled_from(PROJECTS),
        st.booleans(),
    ),
    max_size=10,
)


@settings(max_examples=200, deadline=None)
@given(staffings, st.booleans(), ids, st.one_of(st.none(), ids))
# An agent staffed where the human it acts for is not: the narrowing's own case, pinned
# because random draws rarely line up an agent, a non-founder human and a lone project.
@example(rows=[("orion", "east", False)], walled=False, asker="orion", for_whom="ben")
def test_a_reader_never_reads_beyond_its_staffing_nor_beyond_whom_it_acts_for(
    rows: list[tuple[str, str, bool]], walled: bool, asker: str, for_whom: str | None
) -> None:
    staffing = [
        _staff(pid, project, until=NOW - timedelta(hours=1) if ended else None)
        for pid, project, ended in rows
    ]
    directory = FakeDirectory.of(FIRM, PEOPLE, staffing, [WALL] if walled else [])
    reader = reader_of(directory, ORG, asker, for_whom, NOW)
    current = {s.project for s in staffing if s.principal_id == asker and s.active_at(NOW)}
    assert reader.projects <= current
    if asker == "stranger":
        assert (reader.org_id, reader.projects) == ("", frozenset())
    if walled:
        assert not {"east", "west"} <= reader.projects  # the wall is never spanned
    if for_whom is not None:
        human = directory.principals.get(for_whom)
        if human is None or human.kind is not PrincipalKind.HUMAN:
            assert reader.projects == frozenset()
        elif for_whom != FIRM.founder_id:
            theirs = {
                s.project for s in staffing if s.principal_id == for_whom and s.active_at(NOW)
            }
            assert reader.projects <= theirs
    assert reader_of(None, ORG, asker, for_whom, NOW).projects == frozenset()
