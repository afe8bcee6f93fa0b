"""The tests' people signing in: ID tokens from the test issuer for the API, the
environment of a signed-in ``verletica`` command, and a served issuer for the console."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from temporalio.client import Client

from adapters.ingress.local_issuer import LOCAL_AUDIENCE, LocalIssuer
from adapters.ingress.oidc import KeySet, OidcVerifier
from domain.ingress import ConsoleSignIn
from domain.organization.contracts import Identity
from domain.organization.kinds import IdentityKind
from tests.support import TEST_APPROVAL_KEY, TEST_AUDIENCE, TEST_ISSUER, TEST_KEYS, StaticKeys
from usecases.context import Ports

P = TypeVar("P", bound=Ports)


class ServedIssuer:
    """A local OIDC issuer served over HTTP on a loopback port (its sign-in page and
    token endpoint), for the web console's tests."""

    def __init__(self, issuer: LocalIssuer, url: str) -> None:
        self.issuer, self.url = issuer, url

    def console_ports(self, svc: P) -> P:
        """``svc`` with its people proven by this issuer's tokens and the console signing
        them in through it."""
        return replace(
            svc,
            tokens=OidcVerifier(self.url, LOCAL_AUDIENCE, KeySet(StaticKeys(self.issuer.jwks()))),
            console=ConsoleSignIn(issuer=self.url, client_id=LOCAL_AUDIENCE, session_key=bytes(32)),
        )


def signed_in(svc: Ports, principal_id: str, **claims: Any) -> dict[str, str]:
    """Headers proving ``principal_id`` (a human): a fresh ID token from the test issuer
    (its subject linked on first use) and a fresh nonce."""
    subject = f"sub-{principal_id}"
    if svc.directory.identity(IdentityKind.OIDC, subject) is None:
        link_subject(svc, principal_id, subject)
    return bearer(subject, **claims)


def link_subject(svc: Ports, principal_id: str, subject: str) -> None:
    """Let the OIDC ``subject`` prove ``principal_id`` (linked by the founder)."""
    person = svc.directory.find_principal(principal_id)
    assert person is not None, f"no principal {principal_id}"
    org = svc.directory.org(person.org_id)
    with svc.configuration.change(person.org_id, org.founder_id, svc.clock) as change:
        change.link_identity(
            Identity(
                org_id=person.org_id,
                kind=IdentityKind.OIDC,
                external_id=subject,
                principal_id=principal_id,
            )
        )


def bearer(subject: str, **claims: Any) -> dict[str, str]:
    """Headers with a fresh ID token for ``subject`` from the test issuer and a nonce."""
    token = TEST_ISSUER.mint(subject, TEST_AUDIENCE, claims=claims)
    return {"Authorization": f"Bearer {token}", "X-Verletica-Nonce": uuid.uuid4().hex}


def cli_signed_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, svc: Ports, principal_id: str
) -> None:
    """The environment of a ``verletica`` command signed in as ``principal_id``: the
    test issuer configured (its key set in a file) and a fresh ID token."""
    jwks = tmp_path / "test-issuer-jwks.json"
    jwks.write_text(json.dumps(TEST_ISSUER.jwks()), encoding="utf-8")
    signed_in(svc, principal_id)  # link the subject
    for name, value in {
        "VERLETICA_DATA_DIR": str(tmp_path / "cli-data"),
        "VERLETICA_OIDC_ISSUER": TEST_ISSUER.issuer,
        "VERLETICA_OIDC_AUDIENCE": TEST_AUDIENCE,
        "VERLETICA_OIDC_JWKS": str(jwks),
        "VERLETICA_AUDIT_KEY": TEST_KEYS.current.secret.hex(),
        "VERLETICA_APPROVAL_KEY": TEST_APPROVAL_KEY.hex(),
        "VERLETICA_TOKEN": TEST_ISSUER.mint(f"sub-{principal_id}", TEST_AUDIENCE),
    }.items():
        monkeypatch.setenv(name, value)


def cli_against(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    svc: Ports,
    client: Client,
    db_url: str,
    principal_id: str,
) -> None:
    """The environment of a ``verletica`` command that uses ``db_url`` and ``client``'s
    Temporal server on ``svc``'s task queue, signed in as ``principal_id``."""
    settings = getattr(svc, "settings", None)
    assert settings is not None
    monkeypatch.setenv("VERLETICA_DATABASE_URL", db_url)
    monkeypatch.setenv("VERLETICA_TEMPORAL_ADDRESS", client.service_client.config.target_host)
    monkeypatch.setenv("VERLETICA_TASK_QUEUE", settings.task_queue)
    cli_signed_in(monkeypatch, tmp_path, svc, principal_id)


def sign_in(subject: str) -> str:
    """An ID token for ``subject`` (what the demo's ``sign_in`` returns)."""
    return TEST_ISSUER.mint(subject, TEST_AUDIENCE)


def link_chat(svc: Ports, principal_id: str, kind: IdentityKind, account: str) -> None:
    """Link ``account`` to ``principal_id`` as its owner does: a code from their console
    sign-in, sent from the account (``link <code>``)."""
    from usecases import ingress

    person = svc.directory.find_principal(principal_id)
    assert person is not None, f"no principal {principal_id}"
    ingress.link_chat(svc, kind, account, ingress.chat_code(svc, person, kind))
