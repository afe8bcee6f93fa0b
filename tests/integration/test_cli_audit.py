"""The audit record from the command line: export it and prove one decision as the
founder; check both anywhere, with the public key alone (nobody signed in, no database,
no secret, no network)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.store.store import Store
from api.cli.main import app
from tests.identity import cli_signed_in
from tests.support import Firm
from usecases.context import Ports

ENV = (
    "VERLETICA_DATABASE_URL",
    "VERLETICA_DATA_DIR",
    "VERLETICA_OIDC_ISSUER",
    "VERLETICA_OIDC_AUDIENCE",
    "VERLETICA_OIDC_JWKS",
    "VERLETICA_TOKEN",
    "VERLETICA_AUDIT_KEY",
    "VERLETICA_APPROVAL_KEY",
)


def test_an_export_and_a_proof_are_checked_with_the_public_key_alone(
    store: Store,
    firm: Firm,
    services: Ports,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_TEMPORAL_ADDRESS", "127.0.0.1:9")  # no Temporal: not needed
    cli_signed_in(monkeypatch, tmp_path, services, firm.founder)
    cli = CliRunner()
    export, proof = tmp_path / "audit.jsonl", tmp_path / "proof.json"
    done = cli.invoke(app, ["audit", "export", "--org", firm.org, "--out", str(export)])
    assert done.exit_code == 0, done.output
    done = cli.invoke(app, ["audit", "prove", "--org", firm.org, "5", "--out", str(proof)])
    assert done.exit_code == 0 and "entry 5 of the signed tree" in done.output, done.output
    keys = cli.invoke(app, ["audit", "keys"])
    assert keys.exit_code == 0
    key = keys.stdout.split()[-1]

    # Somewhere else: nobody signed in, no database, no key file, an empty folder.
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("VERLETICA_DATA_DIR", str(elsewhere / "data"))
    checked = cli.invoke(app, ["audit", "verify", "--bundle", str(export), "--key", key])
    assert checked.exit_code == 0, checked.output
    assert "verified: all" in checked.output
    checked = cli.invoke(app, ["audit", "verify", "--proof", str(proof), "--key", key])
    assert checked.exit_code == 0 and "entry 5" in checked.output, checked.output
    assert os.listdir(elsewhere) == []  # nothing made: no database, no key

    lines = export.read_bytes().split(b"\n")
    lines[7] = lines[7].replace(b'"decision":"', b'"decision":"x', 1)
    export.write_bytes(b"\n".join(lines))
    checked = cli.invoke(app, ["audit", "verify", "--bundle", str(export), "--key", key])
    assert checked.exit_code == 2 and "NOT verified (entry 7)" in checked.output, checked.output
    other = "verletica-audit+00000000+AQ" + "A" * 42 + "="
    checked = cli.invoke(app, ["audit", "verify", "--proof", str(proof), "--key", other])
    assert checked.exit_code != 0
