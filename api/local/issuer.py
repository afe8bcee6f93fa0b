"""The local OIDC issuer's HTTP face, for ``verletica up``, ``make demo`` and tests: its
discovery document and key set, and (loopback only) ID tokens for whoever asks. It
asks for no password: it exists so that the full bearer-token path runs on a laptop
with no cloud account. Production refuses it (``worker.settings``)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from pydantic import BaseModel, Field

from adapters.ingress.local_issuer import (
    KEY_FILE,
    LOCAL_AUDIENCE,
    AuthorizationCodes,
    CodeRefused,
    LocalIssuer,
)
from api.http.deps import is_loopback
from worker.settings import Settings


class TokenAsk(BaseModel):
    """Whom to mint an ID token for."""

    subject: str = Field(min_length=1, max_length=300)
    """The person, as the issuer names them (the demo uses their email)."""


class IdToken(BaseModel):
    """An ID token and how long it lasts."""

    id_token: str
    expires_in: int
    token_type: str = "Bearer"


_SIGN_IN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in: Verletica local issuer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}}
label,input,button{{display:block;width:100%;margin:.4rem 0}}input{{padding:.5rem}}
button{{padding:.6rem;background:#1d4ed8;color:#fff;border:0;border-radius:4px}}
.note{{color:#555;font-size:.9rem}}</style></head>
<body><main><h1>Sign in</h1>
<p class="note">The local issuer of <code>verletica up</code>: it vouches for whoever signs in
on this machine and asks for no password. Your organization's identity provider replaces it
in production.</p>
<form method="post" action="authorize">
<label for="subject">Your email (as the firm knows you)</label>
<input id="subject" name="subject" type="email" required autofocus autocomplete="email">
{hidden}
<button type="submit">Sign in</button></form></main></body></html>"""

_AUTHORIZE_PARAMS = (
    "client_id",
    "redirect_uri",
    "state",
    "nonce",
    "code_challenge",
    "code_challenge_method",
    "response_type",
    "scope",
)


def _form(raw: bytes) -> dict[str, str]:
    """A form body, each field's first value."""
    return {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}


def _loopback_redirect(uri: str) -> bool:
    """Only a page on this machine may receive the issuer's codes."""
    parts = urlsplit(uri)
    return parts.scheme in ("http", "https") and is_loopback(parts.hostname)


def create_issuer_app(issuer: LocalIssuer, codes: AuthorizationCodes | None = None) -> FastAPI:
    """The issuer's routes over ``issuer``'s key."""
    app = FastAPI(title="Verletica local issuer", version="0.1.0")
    grants = codes or AuthorizationCodes()

    def _local(request: Request) -> None:
        if request.client is None or not is_loopback(request.client.host):
            raise HTTPException(403, "the local issuer serves this machine only")

    def _checked(params: dict[str, str]) -> dict[str, str]:
        if params.get("response_type") != "code":
            raise HTTPException(400, "response_type must be code")
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            raise HTTPException(400, "PKCE with S256 is required (code_challenge)")
        if not params.get("client_id") or not _loopback_redirect(params.get("redirect_uri", "")):
            raise HTTPException(400, "a client_id and a redirect_uri on this machine are required")
        return params

    @app.get("/authorize", response_class=HTMLResponse)
    def authorize_page(request: Request) -> str:
        """The sign-in page (the authorization code flow's first leg)."""
        _local(request)
        params = _checked({k: v for k, v in request.query_params.items() if k in _AUTHORIZE_PARAMS})
        hidden = "\n".join(
            f'<input type="hidden" name="{k}" value="{html.escape(v, quote=True)}">'
            for k, v in params.items()
        )
        return _SIGN_IN.format(hidden=hidden)

    @app.post("/authorize")
    async def authorize(request: Request) -> RedirectResponse:
        """Sign in as the given email: a code for the client, back at its redirect."""
        _local(request)
        form = _form(await request.body())
        params = _checked({k: v for k, v in form.items() if k in _AUTHORIZE_PARAMS})
        subject = form.get("subject", "").strip()
        if not subject or len(subject) > 300:
            raise HTTPException(400, "an email is required")
        code = grants.issue(
            subject,
            client_id=params["client_id"],
            redirect_uri=params["redirect_uri"],
            challenge=params["code_challenge"],
            nonce=params.get("nonce"),
        )
        query = urlencode({"code": code, "state": params.get("state", "")})
        return RedirectResponse(f"{params['redirect_uri']}?{query}", status_code=303)

    @app.get("/.well-known/openid-configuration")
    def discovery() -> dict[str, Any]:
        return issuer.discovery(f"{issuer.issuer}/jwks.json")

    @app.get("/jwks.json")
    def jwks() -> dict[str, Any]:
        return issuer.jwks()

    @app.post("/token", response_model=None)
    async def token(request: Request) -> IdToken | JSONResponse:
        """An authorization code (form-encoded, with its PKCE verifier) redeemed for an
        ID token; or (JSON ``{subject}``, the command line's ``verletica token``) an ID
        token for whoever asks on this machine."""
        _local(request)
        if request.headers.get("content-type", "").startswith("application/x-www-form"):
            form = _form(await request.body())
            if form.get("grant_type") != "authorization_code":
                return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
            try:
                subject, nonce = grants.redeem(
                    form.get("code", ""),
                    client_id=form.get("client_id", ""),
                    redirect_uri=form.get("redirect_uri", ""),
                    verifier=form.get("code_verifier", ""),
                )
            except CodeRefused as refused:
                return JSONResponse(
                    {"error": "invalid_grant", "error_description": str(refused)}, 400
                )
            minted = issuer.mint(subject, form["client_id"], claims={"nonce": nonce})
            return IdToken(id_token=minted, expires_in=3600)
        try:
            ask = TokenAsk.model_validate_json(await request.body())
        except ValueError as exc:
            raise HTTPException(422, "expected {subject}") from exc
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
