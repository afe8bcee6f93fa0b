"""Who a request proves it comes from: outside identities linked to human principals,
and a bearer token turned into the principal it proves."""

from __future__ import annotations

from domain.errors import NotFound
from domain.ingress import Refusal, Unauthenticated
from domain.model import Identity, IdentityKind, Principal, PrincipalKind, PrincipalStatus
from usecases.access import founder
from usecases.context import Ports


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


def proven(ports: Ports, kind: IdentityKind, external_id: str) -> Principal:
    """The active human ``external_id`` proves, or :class:`Unauthenticated`."""
    identity = ports.directory.identity(kind, external_id)
    if identity is None:
        raise Unauthenticated(Refusal.UNKNOWN_SUBJECT, f"no principal is linked to this {kind}")
    try:
        principal = ports.directory.principal(identity.org_id, identity.principal_id)
    except NotFound as exc:
        raise Unauthenticated(Refusal.UNKNOWN_SUBJECT, "the linked principal is gone") from exc
    if principal.kind is not PrincipalKind.HUMAN or principal.status is not PrincipalStatus.ACTIVE:
        raise Unauthenticated(Refusal.NOT_A_PERSON, "the linked principal is not an active human")
    return principal


def whoami(ports: Ports, bearer: str) -> Principal:
    """The principal a bearer ID token proves (``GET /v1/whoami``)."""
    if ports.tokens is None:
        raise Unauthenticated(Refusal.NOT_CONFIGURED, "no OIDC issuer is configured")
    claims = ports.tokens.verify(bearer)
    return proven(ports, IdentityKind.OIDC, claims.subject)
