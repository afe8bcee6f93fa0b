"""Dependencies of the HTTP API, as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from api.services import Services


def get_services(request: Request) -> Services:
    """The services built in the app's lifespan."""
    return request.app.state.services  # type: ignore[no-any-return]


Svc = Annotated[Services, Depends(get_services)]
Actor = Annotated[
    str,
    Header(
        alias="X-Verletica-Principal",
        description="Acting principal id; replaced by OIDC identity when the ingress lands.",
    ),
]
