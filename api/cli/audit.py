"""The audit chain (``verletica audit``) and the broker's poisoned state
(``verletica broker``), which the chain's verification decides."""

from __future__ import annotations

from typing import Annotated

import typer

from api.cli.common import As, Org, console, show, sync

audit_app = typer.Typer(help="The audit chain.", no_args_is_help=True)
broker_app = typer.Typer(help="The broker's state: poisoned or not.", no_args_is_help=True)


@audit_app.command("verify")
def audit_verify(org: Org, actor: As = "") -> None:
    """Recompute every hash, link and signature of the organization's chain."""
    from usecases import audit

    view = sync(lambda s: audit.audit(s, org, actor, verify=True))
    assert view.verification is not None
    show(view.verification)
    if not view.verification.ok:
        raise typer.Exit(2)


@broker_app.command("status")
def broker_status(org: Org, actor: As = "") -> None:
    """Say whether the organization's broker is poisoned, and why."""
    from usecases import audit

    reason = sync(lambda s: audit.broker_status(s, org, actor))
    console.print("poisoned: " + reason if reason else "not poisoned")


@broker_app.command("unpoison")
def broker_unpoison(
    org: Org,
    reason: Annotated[str, typer.Option(help="Why it is safe to act again (recorded).")],
    actor: As = "",
) -> None:
    """Clear a poisoned broker, on the record, once the chain verifies (the founder)."""
    from usecases import audit

    sync(lambda s: audit.unpoison(s, org, actor, reason))
    console.print("the broker acts again; the clearing is in the audit chain")
