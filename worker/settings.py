"""Settings, read from ``VERLETICA_*`` environment variables and validated at start-up."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ModelProviderName = Literal["replay", "scripted", "gemini", "capture"]


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

    model_provider: ModelProviderName | None = None
    """None picks Gemini when an API key is set, else replay."""
    gemini_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("VERLETICA_GEMINI_API_KEY", "GEMINI_API_KEY")
    )
    gemini_model: str = "gemini-3.7-flash"
    gemini_base_url: str | None = None
    capture_path: str = "captured-fixtures.json"

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    enforced: bool = True
    """Check dispatch invariants and poison the broker on a broken foundation."""

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
        if self.resolved_provider in ("gemini", "capture") and self.gemini_api_key is None:
            raise ValueError("the gemini provider needs GEMINI_API_KEY")
        return self

    @property
    def resolved_provider(self) -> ModelProviderName:
        """The model provider this process uses."""
        if self.model_provider is not None:
            return self.model_provider
        return "gemini" if self.gemini_api_key is not None else "replay"
