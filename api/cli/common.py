"""What every command module shares: the console, the ``--org`` and ``--as`` options, and
running a command against the ports.

Nothing here imports the use cases, the store, Temporal or the settings at import time:
``verletica --help`` builds every command (typer reads each signature), and a help page
should not cost the seconds those take to import. They are imported when a command runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from usecases.context import Ports

# Off a terminal (make demo piped, CI logs) rich would wrap tables at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 160)
notes = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
"""What a command says beside its output (on standard error: the output stays data)."""
T = TypeVar("T")

Org = Annotated[str, typer.Option("--org", envvar="VERLETICA_ORG", help="Organization id.")]
TOKEN_ENV = "VERLETICA_TOKEN"
SIGN_IN = (
    f"sign in: export {TOKEN_ENV}=<an ID token from your issuer> (with the local issuer of "
    f"'verletica up': export {TOKEN_ENV}=$(verletica token <email>))"
)


def prove_actor(ctx: typer.Context, value: str) -> str:
    """The acting principal, proven as the API proves it: the ID token in
    ``VERLETICA_TOKEN``, or (development header mode only) ``--as``."""
    if ctx.resilient_parsing:
        return value
    from usecases import ingress
    from worker.settings import Settings

    token = os.environ.get(TOKEN_ENV) or None
    if token is None and not (value and Settings().dev_principal_header):
        raise typer.BadParameter(
            f"{SIGN_IN}; --as <principal id> is honoured only with "
            "VERLETICA_DEV_PRINCIPAL_HEADER=true",
            param_hint="--as",
        )

    def prove(ports: Ports) -> str:
        with ingress.refusals_recorded(ports, "cli", ctx.command_path):
            return ingress.api_caller(
                ports,
                bearer=token,
                nonce=uuid.uuid4().hex,
                dev_principal=value or None,
                acting=True,
                loopback=True,
            )

    return sync(prove)


AS_HELP = f"Development header mode only: the acting principal's id (else {TOKEN_ENV})."
Unproven = Annotated[str, typer.Option("--as", envvar="VERLETICA_ACTOR", help=AS_HELP)]
"""``--as`` for a command that proves the actor only when it acts on the firm's record
(:func:`prove_actor`, called by the command itself)."""

As = Annotated[
    str,
    typer.Option(
        "--as",
        envvar="VERLETICA_ACTOR",
        callback=prove_actor,
        help=f"Development header mode only: the acting principal's id (else {TOKEN_ENV}).",
    ),
]


def services(fn: Callable[[Ports], Awaitable[T]], temporal: bool | Literal["if up"] = False) -> T:
    """Run ``fn`` on the ports (with a Temporal client when ``temporal``, or when it
    answers with ``"if up"``); a refusal is one red line and exit 1."""
    from api.refusals import answer_to
    from domain.ingress import Unauthenticated
    from worker.clock import utc_now
    from worker.ports import build_ports, open_store
    from worker.settings import Settings
    from worker.temporal import make_client

    async def go() -> T:
        settings = Settings()
        store = open_store(settings)
        client = None
        if temporal == "if up":  # e.g. the audit anchor: used when it answers
            with contextlib.suppress(Exception):
                client = await make_client(settings)
        elif temporal:
            client = await make_client(settings)
        try:
            return await fn(build_ports(store, client, settings, utc_now))
        finally:
            store.close()

    try:
        return asyncio.run(go())
    # every table entry is one of these; the table says the exit code
    except (LookupError, PermissionError, ValueError, RuntimeError, Unauthenticated) as exc:
        console.print(f"[red]error:[/] {exc}")
        answer = answer_to(exc)
        raise typer.Exit(answer.exit_code if answer else 1) from exc


def sync(fn: Callable[[Ports], T]) -> T:
    """:func:`services` for a use case that does not await."""

    async def wrap(svc: Ports) -> T:
        return fn(svc)

    return services(wrap)


def read_text(path: Path | str, what: str) -> str:
    """A file's text; one line saying why (and exit 1) when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        console.print(
            f"[red]error:[/] cannot read {what} {escape(str(path))}: {why}", soft_wrap=True
        )
        raise typer.Exit(1) from None


def fail(what: str, reasons: list[str]) -> None:
    """A graph or deliberation that failed: say why, in one line, and exit 1."""
    console.print(f"[red]error:[/] {what} failed: {escape('; '.join(reasons))}", soft_wrap=True)
    raise typer.Exit(1)


def show(value: Any) -> None:
    """A model (or plain data) as JSON."""
    data = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    console.print_json(json.dumps(data, default=str))


def principal_id(ports: Ports, org: str, actor: str, agent: str) -> str:
    """A principal of ``org`` by id or handle, as ``actor`` sees the directory."""
    from usecases import organization

    for p in organization.principals(ports, org, actor):
        if agent in (p.id, p.handle):
            return p.id
    raise LookupError(f"no principal {agent!r} in this organization")


def replies(items: list[str] | None, what: str) -> dict[str, list[str]]:
    """``KEY=FILE`` options: each file's text under its key (in the order given)."""
    found: dict[str, list[str]] = {}
    for item in items or ():
        key, sep, file = item.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"a reply is {what}=FILE", param_hint="--reply")
        found.setdefault(key, []).append(read_text(file, f"the reply for {key}"))
    return found


Replies = Annotated[
    list[str] | None,
    typer.Option(
        "--reply",
        help="KEY=FILE: the model's reply for a step (graph) or a persona's round, repeated "
        "for later rounds, or 'synthesis' (deliberation); only where no real model answers.",
    ),
]
