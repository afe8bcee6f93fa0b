"""The console's cookies: a session (the person's ID token, their principal, a CSRF
token), the short-lived state of a sign-in in progress (PKCE verifier, state, nonce)
and a one-time flash of what was just done, each signed with the console's key so that
no browser can forge or alter one."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from pydantic import BaseModel

SESSION_COOKIE = "vl_session"
LOGIN_COOKIE = "vl_login"
SESSION_SECONDS = 8 * 3600
"""A session lasts at most this long (and never past its ID token's expiry)."""
LOGIN_SECONDS = 600


class Session(BaseModel):
    """Who is signed in: their verified ID token (the front door proves it again on every
    request), their subject and principal, and the token every form must carry."""

    id_token: str
    subject: str
    principal_id: str | None = None
    """None until they found an organization (or are linked to one)."""
    org_id: str | None = None
    csrf: str
    expires_at: int


class LoginState(BaseModel):
    """A sign-in in progress: what the callback must see again."""

    state: str
    nonce: str
    verifier: str
    next: str = "/console/"


def _signer(key: bytes, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(key, salt=f"verletica console {purpose}")


def secure(request: Request) -> bool:
    """Cookies are ``Secure`` everywhere but on this machine (plain http on localhost)."""
    host = (request.url.hostname or "").lower()
    return not (host in ("localhost", "testserver") or host.startswith("127."))


def _set(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        secure=secure(request),
        samesite="lax",
        path="/console",
    )


def read(request: Request, key: bytes) -> Session | None:
    """The session the request carries, if its signature and age hold."""
    raw = request.cookies.get(SESSION_COOKIE)
    if not raw:
        return None
    try:
        data: dict[str, Any] = _signer(key, "session").loads(raw, max_age=SESSION_SECONDS)
        return Session.model_validate(data)
    except (BadSignature, ValueError):
        return None


def write(response: Response, request: Request, key: bytes, session: Session) -> None:
    """Set the session cookie, for as long as its ID token lasts (at most
    :data:`SESSION_SECONDS`)."""
    value = _signer(key, "session").dumps(session.model_dump())
    left = max(min(session.expires_at - int(time.time()), SESSION_SECONDS), 0)
    _set(response, request, SESSION_COOKIE, value, left)


def clear(response: Response) -> None:
    """Sign out: forget the session."""
    response.delete_cookie(SESSION_COOKIE, path="/console")


def new_csrf() -> str:
    """A fresh CSRF token for a new session."""
    return secrets.token_urlsafe(24)


def start_login(response: Response, request: Request, key: bytes, login: LoginState) -> None:
    """Remember a sign-in in progress for the callback (ten minutes at most)."""
    value = _signer(key, "login").dumps(login.model_dump())
    _set(response, request, LOGIN_COOKIE, value, LOGIN_SECONDS)


def finish_login(request: Request, key: bytes) -> LoginState | None:
    """The sign-in in progress, if its cookie holds."""
    raw = request.cookies.get(LOGIN_COOKIE)
    if not raw:
        return None
    try:
        data: dict[str, Any] = _signer(key, "login").loads(raw, max_age=LOGIN_SECONDS)
        return LoginState.model_validate(data)
    except (BadSignature, ValueError):
        return None


FLASH_COOKIE = "vl_flash"
FLASH_SECONDS = 60
"""A flash is shown on the next page, within this long, or never."""


def _flash_tag(session: Session) -> str:
    """Binds a flash to the session it was set for (its CSRF token, hashed: the cookie
    never carries the token itself)."""
    return hashlib.sha256(f"flash:{session.csrf}".encode()).hexdigest()[:32]


def flash(response: Response, request: Request, key: bytes, session: Session, text: str) -> None:
    """Tell the next page what was done. The console's banner shows only this: text the
    server wrote, signed and bound to this session, never a query string's."""
    value = _signer(key, "flash").dumps({"tag": _flash_tag(session), "text": text})
    _set(response, request, FLASH_COOKIE, value, FLASH_SECONDS)


def take_flash(request: Request, key: bytes, session: Session | None) -> str | None:
    """The flash the request carries for ``session`` ("" when it carries one that does not
    hold: forged, stale or another session's; None when it carries none). The caller
    clears the cookie on the response that shows it, so it is shown once."""
    raw = request.cookies.get(FLASH_COOKIE)
    if raw is None:
        return None
    if session is None:
        return ""
    try:
        data: dict[str, Any] = _signer(key, "flash").loads(raw, max_age=FLASH_SECONDS)
    except (BadSignature, ValueError):
        return ""
    if not isinstance(data, dict) or data.get("tag") != _flash_tag(session):
        return ""
    text = data.get("text")
    return text if isinstance(text, str) else ""


def clear_flash(response: Response) -> None:
    """The flash was shown: forget it."""
    response.delete_cookie(FLASH_COOKIE, path="/console")


SEEN_COOKIE = "vl_seen"
SEEN_SECONDS = 400 * 24 * 3600
"""How long the console remembers which of your decisions' confirmations you dismissed."""


def mark_seen(response: Response, request: Request, session: Session, seq: int) -> None:
    """The person dismissed the confirmations of their decisions up to chain entry ``seq``
    (hiding a confirmation is all it does: no signature needed, bound to the person)."""
    _set(response, request, SEEN_COOKIE, f"{session.principal_id}:{seq}", SEEN_SECONDS)


def seen_up_to(request: Request, session: Session) -> int:
    """Up to which chain entry the person dismissed their confirmations (0: none)."""
    who, _, seq = request.cookies.get(SEEN_COOKIE, "").rpartition(":")
    # ASCII digits only: "²".isdigit() holds, and int() refuses it
    return int(seq) if who == session.principal_id and seq.isascii() and seq.isdigit() else 0


INVITATION_SECONDS = 7 * 24 * 3600
"""How long an invitation link holds."""


def invitation(key: bytes, org_id: str, principal_id: str) -> str:
    """A link's token inviting ``principal_id`` to ``org_id``: signed with the console's
    key (nobody can forge or alter one), good for :data:`INVITATION_SECONDS`, spent by the
    first to accept it (the colleague is then proven by their sign-in)."""
    return _signer(key, "invitation").dumps({"org": org_id, "principal": principal_id})


def invited(key: bytes, token: str) -> tuple[str, str] | None:
    """The (organization, colleague) a token invites, while its signature and age hold;
    None for anything else."""
    try:
        data: Any = _signer(key, "invitation").loads(token, max_age=INVITATION_SECONDS)
    except (BadSignature, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    org, principal = data.get("org"), data.get("principal")
    if not isinstance(org, str) or not isinstance(principal, str):
        return None
    return org, principal
