"""The local OIDC issuer's HTTP face, for ``verletica up``, ``make demo`` and tests: its
discovery document and key set, and (loopback only) ID tokens for whoever asks. It
asks for no password: it exists so that the full bearer-token path runs on a laptop
with no cloud account. Production refuses it (``worker.settings``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from pydantic import BaseModel, Field

from adapters.ingress.local_issuer import KEY_FILE, LOCAL_AUDIENCE, LocalIssuer
from api.deps import is_loopback
from worker.settings import Settings


class TokenAsk(BaseModel):
    """Whom to mint an ID token for."""

    subject: str = Field(min_length=1, max_length=300)
    """The person, as the issuer names them (the demo uses their email)."""


class IdToken(BaseModel):
    """An ID token and how long it lasts."""

    id_token: str
    expires_in: int


def create_issuer_app(issuer: LocalIssuer) -> FastAPI:
    """The issuer's routes over ``issuer``'s key."""
    app = FastAPI(title="Verletica local issuer", version="0.1.0")

    @app.get("/.well-known/openid-configuration")
    def discovery() -> dict[str, Any]:
        return issuer.discovery(f"{issuer.issuer}/jwks.json")

    @app.get("/jwks.json")
    def jwks() -> dict[str, Any]:
        return issuer.jwks()

    @app.post("/token")
    def token(ask: TokenAsk, request: Request) -> IdToken:
        if request.client is None or not is_loopback(request.client.host):
            raise HTTPException(403, "the local issuer mints tokens for this machine only")
        return IdToken(id_token=issuer.mint(ask.subject, LOCAL_AUDIENCE), expires_in=3600)

    return app


def main() -> None:
    """Serve the issuer whose key ``verletica up`` wrote to the data folder."""
    settings = Settings()
    issuer = LocalIssuer.load(settings.local_issuer_url, Path(settings.data_dir) / KEY_FILE)
    uvicorn.run(
        create_issuer_app(issuer),
        host="127.0.0.1",
        port=settings.local_issuer_port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
