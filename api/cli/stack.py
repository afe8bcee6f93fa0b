"""The local stack: ``verletica up`` and ``demo`` start and supervise the Temporal dev
server, a worker and the API (and stop them on any signal); ``worker`` runs one worker."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from api.cli.common import TOKEN_ENV, console

if TYPE_CHECKING:
    from api.local.demo_report import DemoReport


def worker() -> None:
    """Run one worker (polls the task queue until interrupted)."""
    # A process of its own: the CLI never imports the composition root (or connectors).
    os.execv(sys.executable, [sys.executable, "-m", "worker"])


class _Stopped(Exception):
    """A signal asked the stack to stop."""


def _stop_on_signals() -> None:
    """SIGINT, SIGTERM (a supervisor, ``docker stop``) and SIGHUP (a closed terminal) all
    stop what this command started, instead of leaving it running behind."""

    def stop(signum: int, _frame: object) -> None:
        # A second signal while stopping must not cut the stopping short.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        raise _Stopped(signal.Signals(signum).name)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


def _stack_session(play: bool, keep_running: bool | None) -> None:
    import httpx

    from api.local.demo import play as play_demo
    from api.local.demo_report import ENV_FILE, env_file, render, waiting_lines
    from api.local.stack import Stack, StackRefused
    from worker.settings import Settings

    settings = Settings()
    stack = Stack(settings)
    _stop_on_signals()
    try:
        if play and not stack.local_issuer:
            raise typer.BadParameter(
                "the demo signs its people in with its own local issuer: "
                "unset VERLETICA_OIDC_ISSUER/_AUDIENCE/_JWKS to play it"
            )
        try:
            stack.claim()  # before anything is started or written: a busy port refuses
            console.print("Starting the Temporal dev server, a worker and the API…")
            stack.start()
        except (StackRefused, RuntimeError, TimeoutError) as refused:
            console.print(f"[red]error:[/] {escape(str(refused))}", soft_wrap=True)
            raise typer.Exit(1) from refused
        console.print(
            f"API {stack.api_url}  ·  Web console {stack.api_url}/console/  ·  "
            f"Temporal UI {settings.temporal_ui_url}"
        )
        if stack.local_issuer:
            console.print(
                f"Local OIDC issuer {settings.local_issuer_url} (development only): "
                "sign in with [bold]export VERLETICA_TOKEN=$(verletica token <email>)[/]"
            )
        if play:
            issuer = stack.issuer()

            async def go() -> DemoReport:
                async with httpx.AsyncClient(base_url=stack.api_url, timeout=30) as http:
                    report = await play_demo(http, issuer.mint, console)
                    render(report, console)
                    return report

            played = asyncio.run(go())
            written = Path(settings.data_dir) / ENV_FILE
            written.write_text(env_file(played), encoding="utf-8")
            console.print(
                f"[bold]Web console[/] {stack.api_url}/console/ — sign in as "
                f"{played.founder_subject} (Ada, the founder) or {played.associate_subject} "
                "(Ben, a member of East)"
            )
            left = waiting_lines(played, f"{stack.api_url}/console/")
            console.print(
                f"[bold]Waiting for Ada in the console[/] ({len(left)}): approve or deny "
                "each there, no terminal needed",
            )
            for line in left:
                console.print(f"  • {escape(line)}", soft_wrap=True)
            console.print(
                "[bold]Command line[/] (the README's walkthrough): "
                + escape(
                    f". .venv/bin/activate; . {written}; "
                    f'export {TOKEN_ENV}=$(verletica token "$DEMO_FOUNDER")'
                ),
                soft_wrap=True,
            )
        if keep_running is None:
            keep_running = sys.stdin.isatty()
        if keep_running:
            console.print("Running. Press Ctrl-C to stop.")
            while True:
                signal.pause()
    except (KeyboardInterrupt, _Stopped) as why:
        console.print(f"Stopping ({why or 'interrupted'})…")
    finally:
        stack.stop()


def up() -> None:
    """Start the Temporal dev server, a worker and the API; keep them running."""
    _stack_session(play=False, keep_running=True)


def demo(
    keep_running: Annotated[
        bool | None,
        typer.Option(
            "--keep-running/--exit", help="Keep the stack up afterwards (default: on a terminal)."
        ),
    ] = None,
) -> None:
    """Start the stack and play the diligence showcase."""
    _stack_session(play=True, keep_running=keep_running)
