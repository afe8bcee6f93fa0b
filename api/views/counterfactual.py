"""A counterfactual as a rich table: what was done beside what would have happened
(the command line and the demo print it)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from domain.counterfactual.replay import Counterfactual, OtherView, WouldWrite
from domain.governance.standing import requester_words


def _write(write: WouldWrite | None) -> str:
    if write is None:
        return "no connector would have been reached"
    fields = ", ".join(f"{k}={v}" for k, v in write.fields.items())
    return f"{write.system}.{write.action} writes: {fields}"


def _other(other: OtherView) -> str:
    if other.withheld or other.intent_id is None:
        return "an intent outside your projects (withheld)"
    written = "written" if other.written else "not written yet"
    fields = ", ".join(f"{k}={v}" for k, v in other.fields.items())
    return f"{other.intent_id} ({other.status}, {written}): {fields}"


def counterfactual_table(cf: Counterfactual) -> Table:
    """One row per aspect: the decision, each stage, the write, the caps, the wall, the
    collision; what enforcement did beside what would have happened without it."""
    table = Table(
        title=f"counterfactual — intent {cf.intent_id} ({cf.tool}; snapshot: {cf.snapshot})",
        show_lines=True,
    )
    for column in ("", "what was done", "without enforcement"):
        table.add_column(column)
    done = cf.done
    table.add_row(
        "decision",
        escape(f"{done.outcome} at {done.stage}: {done.rule}\n{done.reason}\nnow: {done.status}"),
        escape(f"{cf.would}: nothing stops it"),
    )
    asked = "the system (no one asked)"
    if cf.requested_by is not None:
        asked = requester_words(cf.requested_by, {})
    table.add_row("asked by", escape(asked), escape(asked))
    for stage in cf.stages:
        recorded = done.rule if stage.stage == done.stage else ""
        said = stage.verdict + (f" {stage.rule}" if stage.rule else "")
        table.add_row(
            escape(str(stage.stage)),
            escape(recorded),
            escape(said + (f"\n{stage.reason}" if stage.reason else "")),
        )
    table.add_row(
        "write",
        "nothing written" if not done.written else "written",
        escape(_write(cf.write)),
    )
    for cap in cf.caps:
        table.add_row(
            escape(f"cap: {cap.title}"),
            escape(f"{cap.committed_cents} of {cap.limit_cents} {cap.currency} committed"),
            escape(
                f"{cap.committed_cents} + {cap.intent_cents} = {cap.total_cents} of "
                f"{cap.limit_cents} {cap.currency}"
                + (f": over by {cap.over_by_cents}" if cap.over_by_cents else ": within it")
            ),
        )
    if cf.crossing is not None:
        sides = []
        for side in cf.crossing.sides:
            if side.withheld:
                sides.append("a side outside your projects (withheld)")
                continue
            refs = ", ".join(
                r.ref + ("" if r.released else " (its content withheld from you)")
                for r in side.records
            )
            sides.append(", ".join(side.projects) + (f" (records: {refs})" if refs else ""))
        table.add_row(
            escape(f"wall: {cf.crossing.barrier}"),
            "the wall held",
            escape("crosses it: " + " | ".join(sides)),
        )
    if cf.collision is not None:
        c = cf.collision
        lines = [
            f"{c.key}: written {c.writes} times" + (" (a double write)" if c.double_write else "")
        ]
        lines += [f"done before: {_other(o)}" for o in c.completed]
        lines += [f"in flight: {_other(o)}" for o in c.in_flight]
        table.add_row("collision", "written at most once", escape("\n".join(lines)))
    if cf.withheld_projects:
        table.add_row("withheld", "", f"{cf.withheld_projects} project(s) outside yours")
    return table
