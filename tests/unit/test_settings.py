"""Settings refuse what would make a production process unsafe, with a clear reason."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from worker.settings import Settings

GOOD_KEY = bytes(range(32)).hex()
PG = "postgresql://postgres@127.0.0.1:5432/verletica"


def _production(**overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "production",
        "database_url": PG,
        "audit_key": GOOD_KEY,
        "approval_key": bytes(range(40, 72)).hex(),
        "model_provider": "replay",
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


def test_a_sound_production_configuration_is_accepted() -> None:
    assert _production().chain_keys().current.secret == bytes(range(32))


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"database_url": "sqlite:///x.db"}, "PostgreSQL"),
        ({"audit_key": None}, "VERLETICA_AUDIT_KEY"),
        ({"approval_key": None}, "VERLETICA_APPROVAL_KEY"),
        ({"approval_key": "ab" * 8}, "at least"),
        ({"dev_principal_header": True}, "refused in production"),
        ({"temporal_api_key": "changethis"}, "placeholder"),
    ],
)
def test_production_refuses_what_is_unsafe(overrides: dict[str, object], reason: str) -> None:
    with pytest.raises(ValidationError, match=reason):
        _production(**overrides)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("zz" * 32, "must be hex"),
        ("ab" * 8, "at least"),
        ("00" * 32, "placeholder"),
        ("0102" * 16, "placeholder"),
    ],
)
def test_audit_keys_that_are_not_random_secrets_are_refused(key: str, reason: str) -> None:
    with pytest.raises((ValidationError, ValueError), match=reason):
        _production(audit_key=key).chain_keys()


def test_the_oidc_settings_go_together() -> None:
    with pytest.raises(ValidationError, match="go together"):
        Settings(oidc_issuer="https://id.example", oidc_audience="api")
    both = Settings(oidc_issuer="https://id.example", oidc_audience="api", oidc_jwks="jwks.json")
    assert both.oidc_jwks == "jwks.json"
    assert Settings().oidc_issuer is None


def test_the_local_issuer_and_plain_http_key_sets_stay_local(tmp_path: object) -> None:
    from adapters.ingress.oidc import key_source

    with pytest.raises(ValueError, match="loopback only"):
        key_source("http://id.example/jwks.json")
    assert key_source("http://127.0.0.1:8001/jwks.json") is not None
