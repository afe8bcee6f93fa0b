"""Dependencies of the HTTP API, as ``Annotated`` aliases: the ports, and the acting
principal as the front door proves it (see :mod:`usecases.ingress`)."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from fastapi import Depends, Header, Request

from domain.ingress import Refusal, Unauthenticated
from usecases import ingress
from usecases.context import Ports

NONCE_HEADER = "X-Verletica-Nonce"
DEV_HEADER = "X-Verletica-Principal"
ACTING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def get_ports(request: Request) -> Ports:
    """The ports built in the app's lifespan."""
    return request.app.state.ports  # type: ignore[no-any-return]


PortsDep = Annotated[Ports, Depends(get_ports)]


def bearer_of(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header; None when there is no header."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated(Refusal.MALFORMED, "expected 'Authorization: Bearer <ID token>'")
    return token.strip()


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address the server is bound to) is a loopback address."""
    if host in ("localhost", "testserver"):  # testserver: Starlette's in-process client
        return True
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def _caller(
    request: Request,
    ports: PortsDep,
    authorization: Annotated[str | None, Header(max_length=16_384)] = None,
    nonce: Annotated[
        str | None,
        Header(
            alias=NONCE_HEADER,
            max_length=200,
            description="A value never sent before with this token (a UUID), for a "
            "request that acts; a token with a jti may go without.",
        ),
    ] = None,
    dev_principal: Annotated[
        str | None,
        Header(
            alias=DEV_HEADER,
            max_length=100,
            description="Local development mode only (VERLETICA_DEV_PRINCIPAL_HEADER): "
            "the acting principal's id.",
        ),
    ] = None,
) -> str:
    return prove(
        request,
        ports,
        "api",
        bearer=bearer_of(authorization),
        nonce=nonce,
        dev_principal=dev_principal,
        acting=request.method in ACTING,
    )


def prove(
    request: Request,
    ports: Ports,
    surface: str,
    *,
    bearer: str | None,
    nonce: str | None,
    dev_principal: str | None,
    acting: bool,
) -> str:
    """The principal a request proves through the front door (``surface``: the API or
    the console), refused requests on the record."""
    server = request.scope.get("server")
    with ingress.refusals_recorded(ports, surface, request.url.path):
        return ingress.api_caller(
            ports,
            bearer=bearer,
            nonce=nonce,
            dev_principal=dev_principal,
            acting=acting,
            loopback=server is None or is_loopback(server[0]),
        )


Actor = Annotated[str, Depends(_caller)]
"""The acting principal's id, proven by the front door."""


def _founder_subject(
    request: Request,
    ports: PortsDep,
    authorization: Annotated[str | None, Header(max_length=16_384)] = None,
) -> str | None:
    with ingress.refusals_recorded(ports, "api", request.url.path):
        return ingress.founding_subject(ports, bearer_of(authorization))


FoundingSubject = Annotated[str | None, Depends(_founder_subject)]
"""The OIDC subject of a person founding an organization (None in development mode)."""
