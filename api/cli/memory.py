"""``verletica memory``: ingest, query, link, compact and explain records, screen texts,
and the read log."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from api.cli.common import As, Org, console, principal_id, read_text, show, sync

memory_app = typer.Typer(
    help="Organizational memory: query it, and its read log.", no_args_is_help=True
)


@memory_app.command("ingest")
def memory_ingest(
    ref: str,
    org: Org,
    project: Annotated[list[str], typer.Option(help="A project it belongs to (repeat).")],
    actor: As = "",
    text: Annotated[str | None, typer.Option(help="The text (or --file).")] = None,
    file: Annotated[Path | None, typer.Option(help="Read the text from this file.")] = None,
    kind: Annotated[str, typer.Option(help="note, email, contract, invoice, …")] = "note",
    source: Annotated[
        str | None, typer.Option(help="Where it came from (default: the file's name).")
    ] = None,
) -> None:
    """Ingest a record into memory: screened (instructions refused, card numbers and
    national ids removed, identifying detail tagged), embedded, stored."""

    if file is not None and text is None:
        body = read_text(file, "the text")
    elif text is not None and file is None:
        body = text
    else:
        console.print("[red]error:[/] give the text with --text or --file, one of them")
        raise typer.Exit(1)
    from usecases import memory

    origin = source if source is not None else (file.name if file is not None else None)
    sync(
        lambda s: memory.remember(
            s, org, actor, memory.Remember(ref, tuple(project), body, kind=kind, source=origin)
        )
    )
    console.print(f"stored: {ref}")


@memory_app.command("procedure")
def memory_procedure(
    name: str,
    org: Org,
    actor: As = "",
    version: Annotated[int | None, typer.Option(help="A version (default: the newest).")] = None,
) -> None:
    """A procedure (workflow definition or playbook) as you may see it."""
    from usecases import memory

    found = sync(lambda s: memory.procedure(s, org, actor, name, version))
    console.print(f"{found.name} v{found.version}")
    for i, step in enumerate(found.steps, start=1):
        console.print(f"  {i}. {step}")


@memory_app.command("query")
def memory_query(
    text: str,
    org: Org,
    actor: As = "",
    k: Annotated[int, typer.Option(help="How many records at most.")] = 10,
) -> None:
    """The records most similar to TEXT that you may read, best first."""
    from usecases import memory

    result = sync(lambda s: memory.query(s, org, actor, text, k))
    table = Table(title=escape(f"memory: {text[:60]}"))
    for column in ("score", "record", "kind", "source", "release", "text"):
        table.add_column(column)
    for hit in result.hits:
        # Stored text is shown as it is: "[card removed]" is not console markup.
        table.add_row(
            f"{hit.score:.3f}",
            hit.view.ref or "",
            hit.view.kind or "",
            escape(hit.view.source or ""),
            hit.view.release.value,
            escape((hit.view.text or "")[:100]),
        )
    console.print(table)
    if result.withheld:
        console.print(f"{result.withheld} record(s) withheld: not yours to see")


@memory_app.command("compact")
def memory_compact(
    ref: Annotated[str, typer.Argument(help="The new, compact record.")],
    sources: Annotated[list[str], typer.Argument(help="The records it summarises.")],
    agent: Annotated[str, typer.Option(help="The agent (id or handle) that reads them.")],
    org: Org,
    actor: As = "",
    max_chars: Annotated[int, typer.Option(help="The summary's length, at most.")] = 1200,
) -> None:
    """Summarise records into one new record, linked back to each (the founder asks, an
    agent reads them through the memory gate)."""
    from usecases import memory

    show(
        sync(
            lambda s: memory.compact(
                s,
                org,
                actor,
                memory.Compact(
                    principal_id(s, org, actor, agent), sources, ref, max_chars=max_chars
                ),
            )
        )
    )


@memory_app.command("link")
def memory_link(
    src: str,
    dst: str,
    org: Org,
    actor: As = "",
    kind: Annotated[
        str, typer.Option(help="relates, mentions, supersedes or derived_from.")
    ] = "relates",
    span: Annotated[
        str | None, typer.Option(help="For derived_from: START:END of DST's text drawn on.")
    ] = None,
) -> None:
    """Link record SRC to record DST (the founder's)."""
    from usecases import memory

    bounds = None
    if span is not None:
        start, _, end = span.partition(":")
        bounds = (int(start), int(end))
    link_id = sync(
        lambda s: memory.link(s, org, actor, memory.AddLink(src, dst, kind, span=bounds))
    )
    console.print(f"linked: {link_id}")


@memory_app.command("explain")
def memory_explain(ref: str, org: Org, actor: As = "") -> None:
    """Where record REF came from, as you may see it."""
    from usecases import memory

    show(sync(lambda s: memory.explain(s, org, actor, ref)))


@memory_app.command("screen")
def memory_screen(
    file: Annotated[Path, typer.Argument(help='JSON lines, each {"text": …}; - for stdin.')],
) -> None:
    """Screen texts as ingestion would, storing nothing: one JSON line out per line in,
    with refused, reasons and the identifying detail found (type, start, end)."""
    from adapters.memory.entity_tagger import local_tagger
    from adapters.memory.screen_classifier import local_classifier
    from domain.memory.judge import second_opinion
    from domain.memory.screen import screen
    from worker.ports import build_judge
    from worker.settings import Settings

    settings = Settings()
    classifier, finder, judge = local_classifier(), local_tagger(), build_judge(settings)
    lines: Iterable[str] = (
        sys.stdin if str(file) == "-" else read_text(file, "the lines").splitlines()
    )
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            text = json.loads(line)["text"]
            if not isinstance(text, str):
                raise TypeError("text is not a string")
        except (ValueError, KeyError, TypeError) as exc:
            out: dict[str, Any] = {"line": number, "error": f'not a {{"text": …}} line: {exc}'}
        else:
            first = screen(text, classifier, finder)
            result = second_opinion(first, text, judge, settings.screen_model_from)
            out = {
                "refused": result.refused,
                "reasons": list(result.reasons),
                "spans": [{"type": s.kind, "start": s.start, "end": s.end} for s in result.spans],
            }
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


@memory_app.command("reembed")
def memory_reembed(org: Org, actor: As = "") -> None:
    """Embed again every record another embedder made (after changing the embedder)."""
    from usecases import memory

    count = sync(lambda s: memory.reembed(s, org, actor))
    console.print(f"{count} record(s) embedded again")


@memory_app.command("reads")
def memory_reads(org: Org, actor: As = "") -> None:
    """Every read of the organization's memory: who asked, for whom, what it released."""
    from usecases import memory

    log = sync(lambda s: memory.reads(s, org, actor))
    table = Table(title="memory reads")
    for column in (
        "at",
        "asker",
        "on behalf of",
        "path",
        "query",
        "released",
        "withheld",
        "outcome",
    ):
        table.add_column(column)
    for r in log:
        table.add_row(
            r.at.isoformat(timespec="seconds"),
            r.asker_id,
            r.on_behalf_of or "",
            r.path,
            escape(r.query[:60]),
            ", ".join(r.released),
            str(r.withheld),
            r.outcome,
        )
    console.print(table)
