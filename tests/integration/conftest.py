"""Fixtures shared by the integration tests."""

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from adapters.ingress.local_issuer import LocalIssuer
from api.http.app import create_app
from tests.identity import ServedIssuer, link_subject
from tests.integration.test_gemini_provider import gemini_stub  # noqa: F401  (a local Gemini)
from tests.support import Firm, make_settings

CONSOLE_BASE = "http://127.0.0.1:8000"
"""Where the console's in-process client says it is (no port is opened)."""


@pytest.fixture
def web(firm: Firm, served_issuer: ServedIssuer) -> Iterator[tuple[TestClient, Firm, LocalIssuer]]:
    """The console in process over ``firm``, its people signed in by the served issuer
    (Ada linked to her founder principal); a client that does not follow redirects."""
    local = served_issuer.issuer
    ports = served_issuer.console_ports(firm.svc)
    link_subject(firm.svc, firm.founder, "ada@hv.example")
    app = create_app(make_settings(), ports)
    with TestClient(app, base_url=CONSOLE_BASE, follow_redirects=False) as client:
        yield client, firm, local
