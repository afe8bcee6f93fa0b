"""The front door: who a request proves it comes from, or why it proves nothing.

An acting API request passes four checks, in this order, and is refused at the first
that fails (recorded, with its reason, never its token):

1. **signature**: the bearer ID token verifies against the configured issuer (RS256);
2. **identity**: its subject is linked to an active human principal;
3. **replay**: its nonce (the ``X-Verletica-Nonce`` header, else the token's ``jti``)
   was not seen before, by any API process, while the token is valid;
4. **budget**: the principal and its organization are under their ceilings.

A read passes the first two. The development header (``X-Verletica-Principal``) is
honoured only when the settings ask for it, never in production, only on loopback.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from domain.errors import Conflict, Forbidden, NotFound, Unavailable
from domain.ingress import (
    LINK_CODE_SECONDS,
    LinkCode,
    Refusal,
    RefusedRequest,
    TokenClaims,
    Unauthenticated,
    link_code,
    read_link_code,
)
from domain.organization.contracts import Identity, Principal
from domain.organization.kinds import IdentityKind, PrincipalKind, PrincipalStatus
from usecases.access import founder, member
from usecases.context import Ports

log = logging.getLogger(__name__)
NONCE_LEEWAY = timedelta(minutes=1)
"""A nonce is remembered a little past its token's expiry (the verifier's clock leeway)."""


def link_identity(
    ports: Ports,
    org_id: str,
    actor_id: str,
    principal_id: str,
    kind: IdentityKind,
    external_id: str,
) -> Identity:
    """Let ``external_id`` (an OIDC subject, a Slack or Teams user) prove
    ``principal_id``, an active human of the organization (the founder's; audited). An
    identity proves one principal: linking it twice is a Conflict."""
    founder(ports, org_id, actor_id)
    if kind is not IdentityKind.OIDC:
        raise ValueError(
            "a Slack or Teams account is linked by its owner: they message Verletica from it "
            "and follow the link it answers with, signing in once"
        )
    identity = Identity(
        org_id=org_id, kind=kind, external_id=external_id, principal_id=principal_id
    )
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        principal = change.principal(principal_id)
        if (
            principal.kind is not PrincipalKind.HUMAN
            or principal.status is not PrincipalStatus.ACTIVE
        ):
            raise ValueError("only an active human signs in: agents act through runs")
        return change.link_identity(identity)


CHATS = frozenset({IdentityKind.SLACK, IdentityKind.TEAMS})
"""The chat channels a person links their own account of."""


def chat_code(ports: Ports, person: Principal, channel: IdentityKind) -> str:
    """A code for ``person`` (signed in to the console) to send from their Slack or Teams
    account, ``link <code>``: good for ten minutes, once. Sent from an account, it links
    that account to them (:func:`link_chat`): only they saw the code."""
    if channel not in CHATS:
        raise ValueError("only a Slack or Teams account is linked with a code")
    if person.kind is not PrincipalKind.HUMAN or person.status is not PrincipalStatus.ACTIVE:
        raise ValueError("only an active person links a chat account")
    if ports.console is None:
        raise Unavailable("sign-in is not set up here: nobody can be given a code")
    expires = int(ports.clock().timestamp()) + LINK_CODE_SECONDS
    code = LinkCode(
        org_id=person.org_id,
        principal_id=person.id,
        channel=channel.value,
        expires=expires,
        nonce=secrets.token_hex(6),
    )
    return link_code(ports.console.session_key, code)


def link_chat(ports: Ports, channel: IdentityKind, account: str, text: str) -> Principal:
    """Link the chat ``account`` a signed message came from to the person whose code it
    carries (``text``): their own act, on the record. The code is spent by the first
    message that carries it (the one its owner sent: another who sees it later in a
    channel finds it spent); a code for another channel, stale or forged, links nothing
    (:class:`Unauthenticated`, recorded by the caller). An account that proves someone
    already is a Conflict."""
    key = None if ports.console is None else ports.console.session_key
    code = None if key is None else read_link_code(key, text, ports.clock())
    if code is None or code.channel != channel.value:
        raise Unauthenticated(Refusal.INVALID_CLAIM, "the link code is stale, mistyped or forged")
    person = ports.directory.find_principal(code.principal_id)
    if person is None or person.org_id != code.org_id:
        raise Unauthenticated(Refusal.UNKNOWN_SUBJECT, "the link code's person is gone")
    if person.kind is not PrincipalKind.HUMAN or person.status is not PrincipalStatus.ACTIVE:
        raise Unauthenticated(Refusal.NOT_A_PERSON, "the link code's person is not active")
    if ports.front_door is not None:  # once: the nonce table remembers it while it holds
        expires = datetime.fromtimestamp(code.expires, UTC)
        ports.front_door.first_use(channel.value, f"link:{text.strip()}", expires, ports.clock())
    found = ports.directory.identity(channel, account)
    if found is not None:
        whose = "yours" if found.principal_id == person.id else "someone else's"
        raise Conflict(f"this {channel.value.capitalize()} account is linked already ({whose})")
    with ports.configuration.change(person.org_id, person.id, ports.clock) as change:
        change.link_identity(
            Identity(
                org_id=person.org_id,
                kind=channel,
                external_id=account,
                principal_id=person.id,
                linked_by=person.id,
            )
        )
    return person


def unlink_chat(
    ports: Ports, org_id: str, actor_id: str, principal_id: str, channel: IdentityKind
) -> int:
    """Unlink ``principal_id``'s accounts of ``channel`` (the person themselves, or the
    founder; on the record): they prove nobody from now on. How many were unlinked."""
    org, actor = member(ports, org_id, actor_id)
    if channel not in CHATS:
        raise ValueError("only a Slack or Teams account is unlinked this way")
    if actor.id not in (principal_id, org.founder_id):
        raise Forbidden("a chat account is unlinked by its owner or the founder")
    with ports.configuration.change(org_id, actor_id, ports.clock) as change:
        mine = [i for i in change.identities_of(principal_id) if i.kind is channel]
        for identity in mine:
            change.unlink_identity(identity, f"unlinked by {actor.display_name or actor.handle}")
    return len(mine)


def invitee(ports: Ports, org_id: str, principal_id: str) -> Principal:
    """The colleague an invitation names, while it can still be accepted: an active
    human of ``org_id`` whom no OIDC identity proves yet. Anything else is
    :class:`~domain.errors.NotFound` (a stale or spent link says no more than that)."""
    gone = NotFound("this invitation is no longer valid: ask for a new link")
    try:
        person = ports.directory.principal(org_id, principal_id)
    except NotFound:
        raise gone from None
    if person.kind is not PrincipalKind.HUMAN or person.status is not PrincipalStatus.ACTIVE:
        raise gone
    if any(
        i.principal_id == principal_id and i.kind is IdentityKind.OIDC
        for i in ports.directory.identities(org_id)
    ):
        raise gone
    return person


def accept_invitation(ports: Ports, org_id: str, principal_id: str, subject: str) -> Principal:
    """Let the signed-in ``subject`` prove the invited colleague ``principal_id``: once
    (the first to accept spends the invitation, checked under the organization's lock),
    never for a subject that already proves someone, on the chain as the colleague's own
    act."""
    person = invitee(ports, org_id, principal_id)
    if ports.directory.identity(IdentityKind.OIDC, subject) is not None:
        raise Conflict("you already belong to a firm here: sign out, then open the link again")
    with ports.configuration.change(org_id, principal_id, ports.clock) as change:
        # under the lock again: spent by another, or the colleague offboarded meanwhile
        if change.principal(principal_id).status is not PrincipalStatus.ACTIVE or any(
            i.kind is IdentityKind.OIDC for i in change.identities_of(principal_id)
        ):
            raise NotFound("this invitation is no longer valid: ask for a new link")
        change.link_identity(
            Identity(
                org_id=org_id,
                kind=IdentityKind.OIDC,
                external_id=subject,
                principal_id=principal_id,
            )
        )
    return person


def proven(
    ports: Ports, kind: IdentityKind, external_id: str, signed_in_at: int | None = None
) -> Principal:
    """The active human ``external_id`` proves, or :class:`Unauthenticated`. A sign-in
    (an ID token issued at ``signed_in_at``, in seconds) from before the person was last
    suspended or brought back proves nothing: they sign in again."""
    identity = ports.directory.identity(kind, external_id)
    if identity is None:
        raise Unauthenticated(Refusal.UNKNOWN_SUBJECT, f"no principal is linked to this {kind}")
    try:
        principal = ports.directory.principal(identity.org_id, identity.principal_id)
    except NotFound as exc:
        raise Unauthenticated(Refusal.UNKNOWN_SUBJECT, "the linked principal is gone") from exc
    if principal.kind is not PrincipalKind.HUMAN or principal.status is not PrincipalStatus.ACTIVE:
        raise Unauthenticated(Refusal.NOT_A_PERSON, "the linked principal is not an active human")
    if kind in CHATS and identity.linked_by != principal.id:
        # linked by someone else (the founder, before chat accounts were linked by their
        # owners): it proves nobody until its owner links it
        raise Unauthenticated(
            Refusal.UNKNOWN_SUBJECT, f"this {kind.value} account was not linked by its owner"
        )
    since = principal.status_since
    if signed_in_at is not None and since is not None and signed_in_at < int(since.timestamp()):
        raise Unauthenticated(
            Refusal.SIGNED_IN_BEFORE, "this sign-in is from before they were brought back"
        )
    return principal


def whoami(ports: Ports, bearer: str) -> Principal:
    """The principal a bearer ID token proves (``GET /v1/whoami``)."""
    if ports.tokens is None:
        raise Unauthenticated(Refusal.NOT_CONFIGURED, "no OIDC issuer is configured")
    claims = ports.tokens.verify(bearer)
    return proven(ports, IdentityKind.OIDC, claims.subject, claims.issued_at)


@contextmanager
def refusals_recorded(
    ports: Ports, channel: str, path: str, org_id: str | None = None
) -> Iterator[None]:
    """The front door's checks inside this block: a refusal they raise is recorded (its
    reason and detail, never the credential) and raised on."""
    try:
        yield
    except Unauthenticated as exc:
        record_refusal(ports, channel, path, exc, org_id)
        raise


def record_refusal(
    ports: Ports, channel: str, path: str, exc: Unauthenticated, org_id: str | None = None
) -> None:
    """Keep a refusal of the front door: its reason and detail, never the credential."""
    if ports.front_door is not None:
        ports.front_door.refused(
            RefusedRequest(
                at=ports.clock(),
                channel=channel,
                reason=exc.reason,
                detail=exc.detail,
                path=path,
                org_id=exc.org_id or org_id,
                principal_id=exc.principal_id,
            )
        )
    log.info("refused %s %s: %s (%s)", channel, path, exc.reason.value, exc.detail)


def claims_of(ports: Ports, bearer: str) -> TokenClaims:
    """Check 1: the bearer token's claims."""
    if ports.tokens is None:
        raise Unauthenticated(Refusal.NOT_CONFIGURED, "no OIDC issuer is configured")
    return ports.tokens.verify(bearer)


def admit(
    ports: Ports,
    principal: Principal,
    channel: str,
    nonce: str | None,
    nonce_expires: datetime | None,
) -> None:
    """Checks 3 and 4 for an acting request of ``principal``: its nonce is new, and it
    fits the budget ceilings. Either refusal names the organization and principal."""
    now = ports.clock()
    try:
        if ports.front_door is not None and nonce is not None:
            expires = nonce_expires or now + timedelta(minutes=5)
            ports.front_door.first_use(channel, nonce, expires + NONCE_LEEWAY, now)
        if ports.front_door is not None and ports.budgets is not None:
            ports.front_door.charge(principal.org_id, principal.id, now, ports.budgets)
    except Unauthenticated as exc:
        exc.org_id, exc.principal_id = principal.org_id, principal.id
        raise


def reserve_run(ports: Ports, principal: Principal) -> None:
    """Reserve what starting a run may spend of the model budget, before it starts;
    refused (and recorded) over budget."""
    budgets = ports.budgets
    if ports.front_door is None or budgets is None:
        return
    with refusals_recorded(ports, "api", "run"):
        try:
            ports.front_door.charge(
                principal.org_id,
                principal.id,
                ports.clock(),
                budgets,
                requests=0,
                model_cents=budgets.model_cents_per_run,
            )
        except Unauthenticated as exc:
            exc.org_id, exc.principal_id = principal.org_id, principal.id
            raise


def api_caller(
    ports: Ports,
    *,
    bearer: str | None,
    nonce: str | None,
    dev_principal: str | None,
    acting: bool,
    loopback: bool,
) -> str:
    """The principal id an API request proves (its four checks, see the module)."""
    if bearer is not None:
        claims = claims_of(ports, bearer)
        principal = proven(ports, IdentityKind.OIDC, claims.subject, claims.issued_at)
        if acting:
            seen = nonce or claims.token_id
            if not seen:
                missing = Unauthenticated(
                    Refusal.MISSING_NONCE,
                    "an acting request needs a nonce: the X-Verletica-Nonce header, or a "
                    "token with a jti",
                )
                missing.org_id, missing.principal_id = principal.org_id, principal.id
                raise missing
            admit(
                ports,
                principal,
                "api",
                f"{claims.issuer}|{claims.subject}|{seen}",
                datetime.fromtimestamp(claims.expires_at, UTC),
            )
        return principal.id
    if dev_principal is not None and ports.dev_principal_header:
        if not loopback:
            raise Unauthenticated(
                Refusal.NOT_CONFIGURED,
                "the development principal header is honoured only on a loopback address",
            )
        found = ports.directory.find_principal(dev_principal)
        if acting and found is not None:
            admit(ports, found, "api", None, None)
        return dev_principal
    raise Unauthenticated(
        Refusal.NO_CREDENTIALS, "send 'Authorization: Bearer <ID token>' from your issuer"
    )


def founding_subject(ports: Ports, bearer: str | None) -> str | None:
    """Who may found an organization: any person the issuer vouches for, not yet linked
    to a principal (their subject); None when the development header mode stands in."""
    if bearer is None:
        if ports.dev_principal_header:
            return None
        raise Unauthenticated(
            Refusal.NO_CREDENTIALS, "send 'Authorization: Bearer <ID token>' from your issuer"
        )
    claims = claims_of(ports, bearer)
    return claims.subject


def refusals(ports: Ports, org_id: str, actor_id: str, limit: int = 100) -> list[RefusedRequest]:
    """The organization's refused requests, newest first (the founder's)."""
    founder(ports, org_id, actor_id)
    if ports.front_door is None:
        return []
    return ports.front_door.refusals(limit, org_id)


def me(ports: Ports, actor_id: str) -> Principal:
    """The acting principal, an active human."""
    found = ports.directory.find_principal(actor_id)
    if found is None:
        raise NotFound("no such principal")
    member(ports, found.org_id, actor_id)
    return found
