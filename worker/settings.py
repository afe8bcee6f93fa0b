"""Settings, read from ``VERLETICA_*`` environment variables and validated at start-up."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from domain.audit.anchor import ANCHOR_SECONDS
from domain.audit.chain import MIN_KEY_BYTES, ChainKey, ChainKeys
from domain.audit.checkpoint import NoteError, Verifier
from domain.governance.approvals import ApprovalKey, ApprovalKeys
from domain.governance.intents import BrokerMode
from domain.webhooks import WebhookTarget

BUILT_IN_PROVIDERS = ("replay", "scripted", "gemini", "capture")
"""The model providers the project ships; any other is named as ``pkg.mod:Class``."""


class Settings(BaseSettings):
    """Everything a Verletica process needs to know about its surroundings."""

    model_config = SettingsConfigDict(env_prefix="VERLETICA_", extra="ignore")

    environment: Literal["development", "production"] = "development"
    data_dir: str = ".verletica"
    """Where the embedded default keeps its SQLite file, Temporal state and logs."""
    database_url: str = ""
    """SQLite or PostgreSQL URL; empty means a SQLite file under ``data_dir``."""

    temporal_address: str = "localhost:7233"
    temporal_namespace: str = "default"
    task_queue: str = "verletica"
    temporal_tls: bool = False
    temporal_api_key: SecretStr | None = None
    """Temporal Cloud API key (implies TLS)."""
    temporal_ui_url: str = "http://localhost:8233"
    temporal_connect_wait_seconds: float = Field(default=60.0, ge=0.0, le=3600.0)
    """How long a worker or the API waits, at start-up, for a Temporal server that does
    not answer yet (started in the other order, or restarting) before it gives up."""

    model_provider: str | None = None
    """``replay``, ``scripted``, ``gemini``, ``capture``, or ``pkg.mod:Class`` (any class
    satisfying ``domain.model_provider.ModelProvider``, called with no arguments and
    checked at start-up); None: gemini when Gemini is reachable, else replay."""
    embedder: Literal["local", "gemini"] | None = None
    """Memory's embedder: ``local`` (WordLlama, in the wheel), or ``gemini``; unset:
    gemini when Gemini is reachable (GEMINI_API_KEY or a Vertex AI project), local
    otherwise."""
    gemini_embedding_model: str = "gemini-embedding-001"
    screen_model_from: float = Field(default=0.2, ge=0.0, le=1.0)
    """The classifier score from which the ingestion screen asks the model (when Gemini
    is configured) about a text the rules and the classifier passed; 0: every text."""
    oidc_issuer: str | None = None
    """The OpenID Connect issuer whose ID tokens prove a person (its ``iss``)."""
    oidc_audience: str | None = None
    """The audience those tokens must name (this API's client id)."""
    oidc_client_secret: SecretStr | None = None
    """The web console's client secret at the issuer, when it registered the console as a
    confidential client (a public client with PKCE needs none)."""
    oidc_jwks: str | None = None
    """The issuer's key set: an ``https://`` URL (its ``jwks_uri``) or a file path."""
    dev_principal_header: bool = False
    """Local development only: trust the ``X-Verletica-Principal`` header as the acting
    principal. Refused in production, and honoured only on a loopback address."""
    local_issuer_port: int = 8001
    """Where ``verletica up`` and ``make demo`` serve their local OIDC issuer."""
    slack_signing_secret: SecretStr | None = None
    """The Slack app's signing secret (``POST /v1/ingress/slack``)."""
    teams_hmac_secret: SecretStr | None = None
    """The Teams outgoing webhook's security token, base64 (``POST /v1/ingress/teams``)."""
    budget_period: Literal["hour", "day"] = "hour"
    budget_requests_per_principal: int = Field(default=600, ge=0)
    """Acting requests one principal may make per period (0: none)."""
    budget_requests_per_org: int = Field(default=3000, ge=0)
    budget_model_cents_per_principal: int = Field(default=20_000, ge=0)
    """Model spend, in cents, that the runs one principal starts may reserve per period;
    each run reserves its agent's per-run budget when it starts."""
    budget_model_cents_per_org: int = Field(default=100_000, ge=0)
    budget_model_cents_per_run: int = Field(default=5, ge=0)
    """What a run reserves of those when it starts (an estimate of one model call)."""
    memory_adapter: str | None = None
    """Memory's backend as ``pkg.mod:Class`` (called with the database URL, checked
    against the MemoryAdapter protocol at start-up); unset: the SQL backend on the
    process's own database."""
    gemini_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("VERLETICA_GEMINI_API_KEY", "GEMINI_API_KEY")
    )
    gemini_model: str = "gemini-3.7-flash"
    gemini_base_url: str | None = None
    gemini_vertex_project: str | None = None
    """Reach Gemini through Vertex AI in this Google Cloud project, with the application
    default credentials, instead of the Gemini API's key (the model and the embedder).
    Only this setting turns it on: a machine's own ``GOOGLE_CLOUD_PROJECT`` does not."""
    gemini_vertex_location: str = "global"
    gemini_timeout_seconds: float = Field(default=60.0, gt=0, le=110)
    """How long one Gemini call may take before it fails (and the activity retries); at
    most 110 s, inside the reasoning step's own 120 s."""
    capture_path: str = "captured-fixtures.json"
    scripted_delay_ms: int = Field(default=0, ge=0, le=600_000)
    """How long the scripted provider takes to answer (to rehearse a model's latency)."""
    model_input_cents_per_mtok: float = Field(default=10.0, ge=0)
    model_output_cents_per_mtok: float = Field(default=40.0, ge=0)
    """What the model's tokens cost (cents per million, read and written): each run's
    model call is charged to the run, and counts against its effective budget."""
    smtp_host: str | None = None
    """The mail relay's SMTP server; unset: emails stay in the outbox (the record)."""
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_from: str = "verletica@localhost"
    smtp_starttls: bool = True
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    relay_seconds: int = Field(default=60, ge=5, le=24 * 3600)
    """How often the mail relay's Schedule runs while an SMTP server is configured."""
    console_url: str | None = None
    """Where people open the console, for the links notices carry (e.g.
    ``https://verletica.example/console``); unset: the API's own address."""
    slack_bot_token: SecretStr | None = None
    """The Slack app's bot token (``xoxb-…``, with ``chat:write``): notices reach people
    whose Slack account is linked as a direct message from the app."""
    slack_api_url: str = "https://slack.com/api"
    teams_webhook_url: SecretStr | None = None
    """A Teams workflow's webhook ("post to a channel when a webhook request is
    received"): notices reach people whose Teams account is linked as a card there
    that mentions them."""
    notices_seconds: int = Field(default=60, ge=5, le=24 * 3600)
    """How often the notices' Schedule runs while a channel is configured."""
    notice_digest_hour: int | None = Field(default=8, ge=0, le=23)
    """The hour (UTC) from which each person's digest of the day is written (empty: no
    digest)."""
    webhooks: dict[str, WebhookTarget] = Field(default_factory=dict)
    """The systems ``webhook.post`` may reach, by name (``VERLETICA_WEBHOOKS`` as JSON:
    ``{"crm": {"url": "https://…", "secret": "…"}}``); an agent names a target, never a URL."""
    compaction_engine: str = "extractive"
    """What summarises records (``extractive``, or ``pkg.mod:Class`` satisfying
    ``domain.memory.compaction.CompactionEngine``; checked at start-up)."""
    tracing: Literal["off", "console", "otlp"] = "off"
    """Where the worker's spans go (``VERLETICA_TRACING``): nowhere, the console, or an
    OTLP/HTTP collector; always through the attribute allowlist (``adapters/tracing.py``)."""
    otlp_endpoint: str | None = None
    """The collector's traces URL; None: the OpenTelemetry default (or its environment)."""

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    broker_mode: BrokerMode = BrokerMode.ENFORCE
    """``enforce``, or ``observe`` for a rollout: decide and record, never block."""
    heartbeat_seconds: int = Field(default=3600, ge=60, le=7 * 24 * 3600)
    """How often the heartbeat's Temporal Schedule runs (``VERLETICA_HEARTBEAT_SECONDS``)."""
    learning_seconds: int = Field(default=24 * 3600, ge=60, le=7 * 24 * 3600)
    """How often the learning pass's Temporal Schedule runs (``VERLETICA_LEARNING_SECONDS``)."""

    anchor_seconds: int = Field(default=ANCHOR_SECONDS, ge=1, le=24 * 3600)
    """How often the anchor checkpoints every chain that grew and anchors it outside the
    database (``VERLETICA_ANCHOR_SECONDS``)."""
    anchor_file: str | None = None
    """The append-only file where the anchor also writes each checkpoint it anchors;
    unset: ``<data_dir>/anchor.log``."""

    witness_url: str | None = None
    """A witness that cosigns each anchored checkpoint (``verletica audit witness``);
    unset: none. Needs ``witness_key``."""
    witness_key: str | None = None
    """The witness's public key, as ``verletica audit witness`` prints it."""

    audit_key: SecretStr | None = None
    """Hex key (at least 32 bytes) that signs the audit chains; never stored in the
    database. Unset in development: ``<data_dir>/audit.key``, created on first use."""
    audit_retired_keys: SecretStr | None = None
    """Comma-separated hex keys that signed older entries and still verify them."""

    approval_key: SecretStr | None = None
    """Hex key (at least 32 bytes) with which the API signs every approve or deny it
    sends to a run, and the broker verifies it. Unset in development:
    ``<data_dir>/approval.key``, created on first use."""
    approval_retired_keys: SecretStr | None = None
    """Comma-separated hex keys that still verify decisions signed before a rotation."""

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir}/verletica.db"
        if self.environment == "production":
            if self.database_url.startswith("sqlite"):
                raise ValueError("production needs VERLETICA_DATABASE_URL to name PostgreSQL")
            if self.temporal_api_key and self.temporal_api_key.get_secret_value() in (
                "",
                "changethis",
            ):
                raise ValueError("VERLETICA_TEMPORAL_API_KEY is a placeholder")
            if self.audit_key is None:
                raise ValueError(
                    "production needs VERLETICA_AUDIT_KEY: a secret kept outside the database"
                )
            if self.approval_key is None:
                raise ValueError(
                    "production needs VERLETICA_APPROVAL_KEY: a secret kept outside the database"
                )
            if self.dev_principal_header:
                raise ValueError(
                    "VERLETICA_DEV_PRINCIPAL_HEADER trusts a header anyone can send: "
                    "it is refused in production"
                )
        for name, value in (
            ("audit_key", self.audit_key),
            ("audit_retired_keys", self.audit_retired_keys),
            ("approval_key", self.approval_key),
            ("approval_retired_keys", self.approval_retired_keys),
        ):
            if value is not None:
                for part in value.get_secret_value().split(","):
                    _parse_key(part, f"VERLETICA_{name.upper()}")
        if (self.witness_url is None) != (self.witness_key is None):
            raise ValueError(
                "VERLETICA_WITNESS_URL and VERLETICA_WITNESS_KEY go together: set both or none"
            )
        if self.witness_key is not None:
            try:
                Verifier.from_vkey(self.witness_key)
            except NoteError as e:
                raise ValueError(f"VERLETICA_WITNESS_KEY is not a witness key: {e}") from None
        oidc = (self.oidc_issuer, self.oidc_audience, self.oidc_jwks)
        if any(oidc) and not all(oidc):
            raise ValueError(
                "VERLETICA_OIDC_ISSUER, VERLETICA_OIDC_AUDIENCE and VERLETICA_OIDC_JWKS "
                "go together: set all three or none"
            )
        if self.gemini_api_key is not None and self.gemini_vertex_project is not None:
            raise ValueError(
                "reach Gemini with GEMINI_API_KEY or VERLETICA_GEMINI_VERTEX_PROJECT, not both"
            )
        if self.embedder == "gemini" and not self.gemini_reachable:
            raise ValueError(
                "the gemini embedder needs GEMINI_API_KEY or VERLETICA_GEMINI_VERTEX_PROJECT"
            )
        if self.resolved_provider in ("gemini", "capture") and not self.gemini_reachable:
            raise ValueError(
                "the gemini provider needs GEMINI_API_KEY or VERLETICA_GEMINI_VERTEX_PROJECT"
            )
        provider = self.model_provider
        if provider is not None and provider not in BUILT_IN_PROVIDERS and ":" not in provider:
            raise ValueError(
                f"VERLETICA_MODEL_PROVIDER is one of {', '.join(BUILT_IN_PROVIDERS)}, or a "
                f"class as pkg.mod:Class; not {provider!r}"
            )
        return self

    @property
    def gemini_reachable(self) -> bool:
        """Whether Gemini can be reached: an API key, or a Vertex AI project."""
        return self.gemini_api_key is not None or self.gemini_vertex_project is not None

    def chain_keys(self) -> ChainKeys:
        """The audit keys: from the settings, or (development) the data folder's key file."""
        current, retired = _keys(self.audit_key, self.audit_retired_keys, self.data_dir, "audit")
        return ChainKeys(current=ChainKey(current), retired=tuple(ChainKey(k) for k in retired))

    def approval_keys(self) -> ApprovalKeys:
        """The approval keys: from the settings, or (development) the data folder's key file."""
        current, retired = _keys(
            self.approval_key, self.approval_retired_keys, self.data_dir, "approval"
        )
        return ApprovalKeys(
            current=ApprovalKey(current), retired=tuple(ApprovalKey(k) for k in retired)
        )

    @property
    def anchor_path(self) -> Path:
        """The anchor's append-only file."""
        return Path(self.anchor_file or Path(self.data_dir) / "anchor.log")

    @property
    def console_link(self) -> str:
        """Where the console is, for links sent outside it."""
        return (self.console_url or f"http://{self.api_host}:{self.api_port}/console").rstrip("/")

    @property
    def local_issuer_url(self) -> str:
        """The local OIDC issuer (``verletica up``, ``make demo``): its ``iss``."""
        return f"http://127.0.0.1:{self.local_issuer_port}"

    @property
    def resolved_embedder(self) -> Literal["local", "gemini"]:
        """The embedder this process uses."""
        if self.embedder is not None:
            return self.embedder
        return "gemini" if self.gemini_reachable else "local"

    @property
    def resolved_provider(self) -> str:
        """The model provider this process uses: a built-in's name or ``pkg.mod:Class``."""
        if self.model_provider is not None:
            return self.model_provider
        return "gemini" if self.gemini_reachable else "replay"


def _keys(
    current: SecretStr | None, retired: SecretStr | None, data_dir: str, purpose: str
) -> tuple[bytes, tuple[bytes, ...]]:
    """A key and its retired predecessors, from ``VERLETICA_<PURPOSE>_KEY`` and
    ``VERLETICA_<PURPOSE>_RETIRED_KEYS``, or (development) ``<data_dir>/<purpose>.key``."""
    name = f"VERLETICA_{purpose.upper()}"
    key = (
        _key_file(Path(data_dir) / f"{purpose}.key")
        if current is None
        else _parse_key(current.get_secret_value(), f"{name}_KEY")
    )
    older = (
        ()
        if retired is None
        else tuple(
            _parse_key(part, f"{name}_RETIRED_KEYS")
            for part in retired.get_secret_value().split(",")
            if part.strip()
        )
    )
    return key, older


def _parse_key(text: str, name: str) -> bytes:
    try:
        key = bytes.fromhex(text.strip())
    except ValueError as exc:
        raise ValueError(f"{name} must be hex") from exc
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"{name} needs at least {MIN_KEY_BYTES} bytes ({2 * MIN_KEY_BYTES} hex)")
    if len(set(key)) < 8:
        raise ValueError(f"{name} looks like a placeholder, not a random key")
    return key


def _key_file(path: Path) -> bytes:
    """Read the development key file, creating it (mode 0600) on first use.

    Two processes starting together must end up with one key: each writes a candidate
    and links it into place, which fails for all but the first.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(MIN_KEY_BYTES) + "\n")
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass
        finally:
            candidate.unlink()
    return _parse_key(path.read_text(encoding="utf-8"), str(path))
