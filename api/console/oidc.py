"""The console as an OpenID Connect client: the authorization code flow with PKCE
(S256), against whatever issuer is configured (the local one of ``verletica up``, or the
firm's Entra, Okta, Auth0…). The ID token it gets back is verified like any bearer
token, by the API's verifier, and its nonce must be the one this sign-in asked for."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import urlencode

import httpx

from domain.errors import Unavailable
from domain.ingress import ConsoleSignIn

TIMEOUT = 10.0


def pkce_pair() -> tuple[str, str]:
    """A PKCE verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def endpoints(config: ConsoleSignIn) -> tuple[str, str]:
    """The issuer's authorization and token endpoints, from its discovery document."""
    url = f"{config.issuer.rstrip('/')}/.well-known/openid-configuration"
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            found = (await http.get(url)).raise_for_status().json()
        return str(found["authorization_endpoint"]), str(found["token_endpoint"])
    except (httpx.HTTPError, KeyError, ValueError) as exc:
        raise Unavailable(f"the identity provider's discovery failed: {exc}") from exc


def authorize_url(
    endpoint: str, config: ConsoleSignIn, redirect_uri: str, state: str, nonce: str, challenge: str
) -> str:
    """Where the browser goes to sign in."""
    query = urlencode(
        {
            "response_type": "code",
            "client_id": config.client_id,
            "redirect_uri": redirect_uri,
            "scope": "openid email profile",
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    return f"{endpoint}?{query}"


async def redeem(
    endpoint: str, config: ConsoleSignIn, code: str, redirect_uri: str, verifier: str
) -> str:
    """The ID token an authorization code is worth (with its PKCE verifier)."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "client_id": config.client_id,
        "code_verifier": verifier,
    }
    if config.client_secret is not None:
        form["client_secret"] = config.client_secret
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            answer = await http.post(endpoint, data=form)
    except httpx.HTTPError as exc:
        raise Unavailable(f"the identity provider did not answer: {exc}") from exc
    if answer.status_code != 200:
        raise ValueError(f"the identity provider refused the sign-in: {answer.text[:300]}")
    token = answer.json().get("id_token")
    if not isinstance(token, str):
        raise ValueError("the identity provider returned no ID token")
    return token
