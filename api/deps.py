"""Dependencies of the HTTP API, as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from usecases.context import Ports


def get_ports(request: Request) -> Ports:
    """The ports built in the app's lifespan."""
    return request.app.state.ports  # type: ignore[no-any-return]


PortsDep = Annotated[Ports, Depends(get_ports)]
Actor = Annotated[
    str,
    Header(
        alias="X-Verletica-Principal",
        description="Acting principal id; replaced by OIDC identity when the ingress lands.",
        max_length=100,
    ),
]
