"""``verletica token``: an ID token from the local issuer of ``verletica up``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from api.cli.common import console


def token(
    subject: Annotated[str, typer.Argument(help="Who signs in (the demo uses emails).")],
) -> None:
    """An ID token from the local issuer of 'verletica up' (development only): print it,
    for export VERLETICA_TOKEN=$(verletica token ada@example.com)."""
    from adapters.ingress.local_issuer import KEY_FILE, LocalIssuer
    from worker.settings import Settings

    settings = Settings()
    key = Path(settings.data_dir) / KEY_FILE
    if settings.environment != "development" or not key.exists():
        console.print(
            "[red]error:[/] no local issuer is running (start one with 'verletica up'); "
            "with your own identity provider, get an ID token from it"
        )
        raise typer.Exit(1)
    sys.stdout.write(LocalIssuer.load(settings.local_issuer_url, key).mint(subject) + "\n")
