"""The project index answers exactly as a scan of every barrier and commitment would."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from domain.governance.index import PolicyIndex
from domain.organization.contracts import Barrier, Commitment, Obligation, Provenance, SpendCap
from domain.organization.kinds import ReviewState

PROJECTS = [f"p{i}" for i in range(8)]
SINCE = datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def barriers(draw: st.DrawFn) -> Barrier:
    chosen = draw(st.lists(st.sampled_from(PROJECTS), min_size=2, max_size=6, unique=True))
    cut = draw(st.integers(1, len(chosen) - 1))
    groups = [chosen[:cut], chosen[cut:]]
    if len(groups[1]) > 1 and draw(st.booleans()):  # sometimes three groups
        groups = [groups[0], groups[1][:1], groups[1][1:]]
    return Barrier(
        id=f"b{draw(st.integers(0, 10**6))}",
        org_id="o",
        name="wall",
        groups=tuple(tuple(g) for g in groups),
    )


@st.composite
def commitments(draw: st.DrawFn) -> Commitment:
    cap = draw(st.booleans())
    return Commitment(
        id=f"c{draw(st.integers(0, 10**6))}",
        org_id="o",
        title="t",
        constraint=SpendCap(limit_cents=100) if cap else Obligation(text="deliver"),
        provenance=Provenance(source="s", recorded_by="p"),
        state=draw(st.sampled_from(ReviewState)),
        projects=tuple(draw(st.lists(st.sampled_from(PROJECTS), max_size=3))),
        valid_from=SINCE,
    )


def scan_crossed(
    all_barriers: list[Barrier], reach: frozenset[str]
) -> tuple[str, list[int]] | None:
    for barrier in all_barriers:
        touched = barrier.groups_touched(reach)
        if len(touched) > 1:
            return barrier.id, touched
    return None


@given(
    st.lists(barriers(), max_size=6),
    st.lists(commitments(), max_size=12),
    st.frozensets(st.sampled_from(PROJECTS)),
)
def test_the_index_answers_as_a_scan_would(
    all_barriers: list[Barrier], all_commitments: list[Commitment], reach: frozenset[str]
) -> None:
    index = PolicyIndex.of(all_barriers, all_commitments)

    crossed = index.crossed(reach)
    expected = scan_crossed(all_barriers, reach)
    assert (None if crossed is None else (crossed[0].id, crossed[1])) == expected

    covering = [
        c for c in all_commitments if isinstance(c.constraint, SpendCap) and c.covers(reach)
    ]
    assert [id(c) for c in index.caps(reach)] == [id(c) for c in covering]


def test_a_cap_that_names_a_project_twice_is_counted_once() -> None:
    cap = Commitment(
        id="c",
        org_id="o",
        title="t",
        constraint=SpendCap(limit_cents=1),
        provenance=Provenance(source="s", recorded_by="p"),
        projects=("p1", "p1", "p2"),
        valid_from=SINCE,
    )
    assert PolicyIndex.of((), [cap]).caps({"p1", "p2"}) == [cap]
