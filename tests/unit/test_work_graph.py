"""Work graphs' rules: a graph is acyclic with known steps; layers in dependency order;
outputs released only within what the next reader may read; a step is done only when
its run did its work."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.runs.run import RunState, RunStatus
from domain.work_graph.graph import (
    GraphStatus,
    GraphStep,
    PreparedStep,
    StepOutput,
    StepStatus,
    WorkGraph,
    graph_status,
    layers,
    output_of,
    released,
    step_task,
)


def _graph(*edges: tuple[str, tuple[str, ...]]) -> WorkGraph:
    return WorkGraph(
        name="g", steps=tuple(GraphStep(id=i, agent="orion", task="t", after=a) for i, a in edges)
    )


def test_layers_run_side_by_side_and_fan_in_after_both() -> None:
    g = _graph(("a", ()), ("b", ("a",)), ("c", ("a",)), ("d", ("b", "c")))
    assert layers(g) == [["a"], ["b", "c"], ["d"]]


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        ((("a", ("b",)), ("b", ("a",))), "cycle"),
        ((("a", ("a",)),), "itself"),
        ((("a", ("z",)),), "unknown steps"),
        ((("a", ()), ("a", ())), "repeat"),
    ],
)
def test_a_graph_that_cannot_run_is_refused(
    edges: tuple[tuple[str, tuple[str, ...]], ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _graph(*edges)


@given(st.integers(2, 12), st.data())
def test_every_acyclic_graph_is_layered_with_each_step_after_its_dependencies(
    n: int, data: st.DataObject
) -> None:
    ids = [f"s{i}" for i in range(n)]
    edges = []
    for i, step in enumerate(ids):
        deps = data.draw(st.lists(st.sampled_from(ids[:i]), unique=True)) if i else []
        edges.append((step, tuple(deps)))
    g = _graph(*edges)
    where = {step: depth for depth, layer in enumerate(layers(g)) for step in layer}
    assert sorted(where) == sorted(ids)
    for step, deps in edges:
        assert all(where[d] < where[step] for d in deps)


def _out(step: str, *projects: str) -> StepOutput:
    return StepOutput(step_id=step, run_id="r", summary=f"{step} done", projects=projects)


@given(
    st.lists(st.sets(st.sampled_from(["east", "west", "ops"])), max_size=5),
    st.sets(st.sampled_from(["east", "west", "ops"])),
)
def test_an_output_is_released_only_within_what_the_reader_may_read(
    reaches: list[set[str]], readable: set[str]
) -> None:
    outputs = [_out(f"s{i}", *sorted(r)) for i, r in enumerate(reaches)]
    shown, hidden = released(outputs, frozenset(readable))
    assert [o.step_id for o in shown + hidden] == [o.step_id for o in shown] + [
        o.step_id for o in hidden
    ]
    assert all(set(o.projects) <= readable for o in shown)
    assert all(not set(o.projects) <= readable for o in hidden)
    task = step_task("Go.", shown, hidden)
    for o in hidden:
        assert f"{o.step_id} done" not in task  # named, never shown
    assert released(outputs, None) == (outputs, [])  # the founder reads everything


def test_the_graph_is_done_only_when_every_step_is() -> None:
    assert graph_status({"a": StepStatus.DONE, "b": StepStatus.DONE}) is GraphStatus.COMPLETED
    assert graph_status({"a": StepStatus.DONE, "b": StepStatus.HELD}) is GraphStatus.NEEDS_HUMAN
    assert graph_status({"a": StepStatus.FAILED, "b": StepStatus.SKIPPED}) is GraphStatus.FAILED
    assert graph_status({"a": StepStatus.FAILED, "b": StepStatus.RUNNING}) is GraphStatus.RUNNING


def test_what_a_step_read_travels_to_the_steps_after_it() -> None:
    """The records a step's run read (and those it was handed) go on with its output: a
    later step's hold can name the invoice an earlier step read."""
    prepared = PreparedStep(
        run_id="r1", workflow_id="w1", handle="ledger", task="t", read_refs=("inv-1",)
    )
    state = RunState(run_id="r1", status=RunStatus.COMPLETED, released=("mail-2",))
    output = output_of("pay", prepared, state)
    assert output.read_refs == ("inv-1", "mail-2")
