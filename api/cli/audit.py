"""The audit chain (``verletica audit``) and the broker's poisoned state
(``verletica broker``), which the chain's verification decides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from api.cli.common import (
    As,
    Org,
    Unproven,
    console,
    notes,
    prove_actor,
    read_text,
    services,
    show,
    sync,
)

if TYPE_CHECKING:
    from domain.audit.bundle import Bundle
    from usecases.audit import AuditView
    from usecases.context import Ports

audit_app = typer.Typer(help="The audit chain.", no_args_is_help=True)
broker_app = typer.Typer(help="The broker's state: poisoned or not.", no_args_is_help=True)


Keys = Annotated[
    list[str],
    typer.Option(
        "--key",
        help="A public key that signs checkpoints (from `verletica audit keys`, the console or "
        "GET /v1/audit/keys); repeat for a rotation, oldest first.",
    ),
]


@audit_app.command("verify")
def audit_verify(
    ctx: typer.Context,
    org: Annotated[
        str, typer.Option("--org", envvar="VERLETICA_ORG", help="Organization id.")
    ] = "",
    actor: Unproven = "",
    bundle: Annotated[
        Path | None,
        typer.Option(help="Check an export offline instead: no database, no network, no secret."),
    ] = None,
    proof: Annotated[
        Path | None, typer.Option(help="Check the proof of one decision offline instead.")
    ] = None,
    key: Keys | None = None,
    checkpoint: Annotated[
        list[Path] | None,
        typer.Option(
            help="Checkpoints you kept from before (a signed note, the anchor file, an earlier "
            "export): the export must still hold their trees. Repeatable."
        ),
    ] = None,
) -> None:
    """Recompute every hash, link and signature of the organization's chain and hold it
    to its checkpoints and to the anchor's; or, with --bundle or --proof and --key, check
    an export or a proof with the public key alone."""
    if bundle is not None or proof is not None:
        _verify_offline(bundle, proof, key or [], checkpoint or [])
        return
    if not org:
        console.print("[red]name the organization (--org), or give --bundle or --proof[/red]")
        raise typer.Exit(1)
    actor = prove_actor(ctx, actor)  # offline, nobody signs in: only the record needs it
    from usecases import audit

    async def verify(s: Ports) -> AuditView:
        anchored = await audit.anchored(s, org, actor)
        return audit.audit(s, org, actor, verify=True, anchored=anchored)

    view = services(verify, temporal="if up")
    verification = view.verification
    assert verification is not None
    show(verification)
    if view.anchor_reached is False:
        notes.print(
            "the anchor (outside the database) could not be reached: the chain was not held "
            "to its checkpoint (is Temporal up, and a worker running?)"
        )
    elif view.anchored_size is not None:
        notes.print(f"held to the anchor's checkpoint of {view.anchored_size} entries")
    if not verification.ok:
        raise typer.Exit(2)


def _verify_offline(
    bundle: Path | None, proof: Path | None, keys: list[str], held: list[Path]
) -> None:
    from domain.audit.bundle import InclusionProof, verify_export, verify_inclusion_proof
    from domain.audit.checkpoint import NoteError, Verifier
    from domain.audit.tree import LogKeys

    if not keys:
        console.print("[red]give the public key (--key) to check against[/red]")
        raise typer.Exit(1)
    try:
        log_keys = LogKeys(tuple(Verifier.from_vkey(k) for k in keys))
    except NoteError as e:
        console.print(f"[red]not a public key: {e}[/red]")
        raise typer.Exit(1) from None
    kept = [note for path in held for note in _notes_in(read_text(path, "checkpoint"))]
    try:
        if proof is not None:
            shown = InclusionProof.model_validate_json(read_text(proof, "proof"))
            problem = verify_inclusion_proof(shown, log_keys, kept)
            if problem is not None:
                console.print(f"NOT verified: {problem}")
                raise typer.Exit(2)
            console.print(
                f"verified: entry {shown.entry.seq} ({shown.entry.decision}, "
                f"{shown.entry.stage}, at {shown.entry.at}) is in the signed tree of "
                f"{shown.tree_size} entries"
            )
            return
    except ValidationError as e:
        console.print(f"[red]not a Verletica proof: {e.errors()[0]['msg']}[/red]")
        raise typer.Exit(1) from None
    assert bundle is not None
    try:
        data = bundle.read_bytes()
    except OSError as e:
        console.print(f"[red]cannot read {bundle}: {e.strerror or e}[/red]")
        raise typer.Exit(1) from None
    found = verify_export(data, log_keys, kept)
    console.print(found.words())
    if not found.ok:
        raise typer.Exit(2)


def _notes_in(text: str) -> list[str]:
    """The checkpoints a kept file holds: a signed note, the anchor file (many notes), or
    an earlier export (the checkpoints in its header)."""
    from domain.audit.checkpoint import split_notes

    if text.startswith("{"):
        try:
            header = json.loads(text.split("\n", 1)[0])
        except (ValueError, RecursionError):
            return [text]
        if not isinstance(header, dict):
            return [text]
        notes = [*header.get("checkpoints", []), header.get("anchored")]
        return [n for n in notes if isinstance(n, str)]
    return split_notes(text) or [text]


@audit_app.command("keys")
def audit_keys() -> None:
    """Print the public keys that sign checkpoints, oldest first (the last signs now)."""
    from worker.settings import Settings

    for verifier in Settings().chain_keys().log_keys().verifiers:
        console.print(verifier.vkey(), soft_wrap=True)


@audit_app.command("export")
def audit_export(
    org: Org,
    out: Annotated[Path, typer.Option(help="Where to write the export (JSON Lines).")],
    actor: As = "",
) -> None:
    """Write the chain, its checkpoints, the anchored checkpoint and the public keys to a
    file anyone can check offline (`verletica audit verify --bundle`)."""
    from usecases import audit

    async def export(s: Ports) -> Bundle:
        return audit.export(s, org, actor, await audit.anchored(s, org, actor))

    bundle = services(export, temporal="if up")
    from domain.audit.bundle import export_bytes

    out.write_bytes(export_bytes(bundle))
    console.print(
        f"{len(bundle.entries)} entries and {len(bundle.checkpoints)} checkpoints → {out}"
    )


@audit_app.command("prove")
def audit_prove(
    org: Org,
    entry: Annotated[str, typer.Argument(help="An intent id, or an entry's sequence number.")],
    out: Annotated[Path | None, typer.Option(help="Write the proof here (JSON).")] = None,
    actor: As = "",
) -> None:
    """The proof that a decision is in the signed record, to be checked alone
    (`verletica audit verify --proof FILE --key KEY`)."""
    from usecases import audit

    proofs = sync(
        lambda s: (
            audit.prove(s, org, actor, seq=int(entry))
            if entry.isdigit()
            else audit.prove(s, org, actor, intent_id=entry)
        )
    )
    for p in proofs:
        console.print(
            f"entry {p.entry.seq:,} of the signed tree of {p.tree_size:,}: "
            f"{p.entry.decision} ({p.entry.stage}) at {p.entry.at}"
        )
    if out is not None:
        newest = proofs[-1]
        out.write_text(newest.model_dump_json(indent=1), encoding="utf-8")
        console.print(f"the proof of entry {newest.entry.seq} → {out}")
    else:
        show(proofs)


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

    async def clear(s: Ports) -> bool:
        anchored = await audit.anchored(s, org, actor)
        audit.unpoison(s, org, actor, reason, anchored)
        return anchored.reached

    if not services(clear, temporal="if up"):
        notes.print(
            "the anchor could not be reached: the chain was verified without it (its next "
            "pass stops the broker again if the chain does not extend what it holds)"
        )
    console.print("the broker acts again; the clearing is in the audit chain")


@audit_app.command("witness")
def audit_witness(
    state: Annotated[
        Path, typer.Option(help="The witness's append-only record (created if missing).")
    ],
    key_file: Annotated[
        Path,
        typer.Option(help="The witness's private key (made on first use, kept 0600)."),
    ],
    log_key: Annotated[
        list[str],
        typer.Option(
            help="A public key of the log it witnesses (`verletica audit keys`); repeat for "
            "a rotation, oldest first."
        ),
    ],
    host: Annotated[str, typer.Option(help="Where to listen.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8790,
    name: Annotated[str, typer.Option(help="The witness's key name.")] = "verletica-witness",
) -> None:
    """Run a witness (C2SP tlog-witness): a second process that cosigns each checkpoint
    once it has checked that it extends the last one it cosigned. Give the anchor its URL
    and the key this prints (VERLETICA_WITNESS_URL, VERLETICA_WITNESS_KEY)."""
    import os

    import uvicorn

    from adapters.witness.server import WitnessRecord, witness_app
    from domain.audit.checkpoint import COSIGNATURE_V1, NoteError, Signer, Verifier
    from domain.audit.tree import LOG_NAME, LogKeys

    try:
        if key_file.exists():
            signer = Signer.from_skey(read_text(key_file, "witness key").strip())
        else:
            signer = Signer.generate(name)
            key_file.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(signer.skey() + "\n")
        logs = {f"{LOG_NAME}/": LogKeys(tuple(Verifier.from_vkey(k) for k in log_key))}
    except NoteError as e:
        console.print(f"[red]{e}[/red]")
        raise typer.Exit(1) from None
    console.print(signer.verifier(kind=COSIGNATURE_V1).vkey(), soft_wrap=True)
    uvicorn.run(witness_app(signer, logs, WitnessRecord(state)), host=host, port=port)
