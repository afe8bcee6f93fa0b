"""The HTTP API. Until the authenticated ingress lands it listens on localhost only and
takes the acting principal from the ``X-Verletica-Principal`` header."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from temporalio.service import RPCError

from adapters.store.store import Store
from api.deps import Actor, Svc
from api.schemas import (
    BarrierBody,
    CommitmentBody,
    DecisionBody,
    HumanBody,
    MemoryBody,
    OnboardBody,
    ProjectBody,
    RunBody,
    StaffingBody,
)
from api.services import (
    AuditView,
    Conflict,
    Forbidden,
    NotFound,
    RunStarted,
    RunView,
    Services,
    TemporalUnavailable,
)
from domain.model import Barrier, Commitment, Principal, Project, Staffing
from domain.text import NUL
from worker.clock import utc_now
from worker.settings import Settings
from worker.temporal import make_client

ECHO_LIMIT = 200
"""The most of a refused input that a 422 repeats back, in characters."""


def _brief(value: Any) -> Any:
    """``value`` as the client sent it, or the start of it when it is long."""
    text = str(jsonable_encoder(value))
    if len(text) <= ECHO_LIMIT:
        return value
    return f"{text[:ECHO_LIMIT]}… ({len(text)} characters in all)"


async def _invalid(_: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422, but repeating at most the start of each refused input."""
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        error = dict(error)
        if "input" in error:
            error["input"] = _brief(error["input"])
        error.pop("ctx", None)
        error.pop("url", None)
        errors.append(error)
    return JSONResponse(status_code=422, content={"detail": jsonable_encoder(errors)})


def refuse_nul(request: Request) -> None:
    """No path segment, query value or header may carry a NUL character (U+0000)."""
    for where, items in (
        ("path", request.path_params.items()),
        ("query", request.query_params.multi_items()),
        ("header", request.headers.items()),
    ):
        for name, value in items:
            if NUL in str(value):
                raise RequestValidationError(
                    [
                        {
                            "type": "value_error",
                            "loc": (where, name),
                            "msg": f"{where} {name} contains a NUL character (U+0000), "
                            "which is not allowed",
                            "input": _brief(value),
                        }
                    ]
                )


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """Build the app; ``services`` may be injected (tests), else built in the lifespan."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if services is not None:
            app.state.services = services
            yield
            return
        conf = settings or Settings()
        store = Store.open(conf.database_url, conf.chain_keys())
        client = await make_client(conf)
        app.state.services = Services(store, client, conf, utc_now)
        yield
        store.close()

    app = FastAPI(
        title="Verletica",
        version="0.1.0",
        lifespan=lifespan,
        dependencies=[Depends(refuse_nul)],
    )

    def error(status: int) -> Any:
        async def handler(_: Request, exc: Exception) -> JSONResponse:
            return JSONResponse(status_code=status, content={"detail": str(exc)})

        return handler

    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(NotFound, error(404))
    app.add_exception_handler(Forbidden, error(403))
    app.add_exception_handler(Conflict, error(409))
    app.add_exception_handler(ValueError, error(422))
    app.add_exception_handler(TemporalUnavailable, error(503))
    app.add_exception_handler(RPCError, error(503))

    @app.post("/v1/orgs", status_code=201)
    def onboard(body: OnboardBody, svc: Svc) -> dict[str, Any]:
        done = svc.onboard(body.name, body.founder_email, body.founder_name)
        return {
            "org_id": done.org.id,
            "founder_id": done.founder.id,
            "agents": [a.model_dump(mode="json") for a in done.agents],
        }

    @app.post("/v1/orgs/{org_id}/humans", status_code=201)
    def add_human(org_id: str, body: HumanBody, svc: Svc, actor: Actor) -> Principal:
        return svc.add_human(org_id, actor, body.email, body.display_name)

    @app.get("/v1/orgs/{org_id}/principals")
    def principals(org_id: str, svc: Svc, actor: Actor) -> list[Principal]:
        return svc.principals(org_id, actor)

    @app.post("/v1/orgs/{org_id}/projects", status_code=201)
    def add_project(org_id: str, body: ProjectBody, svc: Svc, actor: Actor) -> Project:
        return svc.add_project(org_id, actor, body.slug, body.name)

    @app.get("/v1/orgs/{org_id}/projects")
    def projects(org_id: str, svc: Svc, actor: Actor) -> list[Project]:
        return svc.projects(org_id, actor)

    @app.post("/v1/orgs/{org_id}/staffing", status_code=201)
    def staff(org_id: str, body: StaffingBody, svc: Svc, actor: Actor) -> Staffing:
        return svc.staff(
            org_id, actor, body.principal_id, body.project, body.role, body.valid_until
        )

    @app.delete("/v1/orgs/{org_id}/staffing/{staffing_id}")
    def unstaff(org_id: str, staffing_id: str, svc: Svc, actor: Actor) -> Staffing:
        return svc.unstaff(org_id, actor, staffing_id)

    @app.get("/v1/orgs/{org_id}/staffing")
    def staffing(org_id: str, svc: Svc, actor: Actor) -> list[Staffing]:
        return svc.staffing(org_id, actor)

    @app.post("/v1/orgs/{org_id}/barriers", status_code=201)
    def add_barrier(org_id: str, body: BarrierBody, svc: Svc, actor: Actor) -> Barrier:
        return svc.add_barrier(org_id, actor, body.name, body.groups)

    @app.post("/v1/orgs/{org_id}/commitments", status_code=201)
    def add_commitment(org_id: str, body: CommitmentBody, svc: Svc, actor: Actor) -> Commitment:
        return svc.add_commitment(
            org_id, actor, body.title, body.constraint, body.source, body.excerpt,
            tuple(body.projects), body.valid_from, body.valid_until,
        )  # fmt: skip

    @app.get("/v1/orgs/{org_id}/commitments")
    def commitments(org_id: str, svc: Svc, actor: Actor) -> list[Commitment]:
        return svc.commitments(org_id, actor)

    @app.post("/v1/commitments/{commitment_id}/confirm")
    def confirm(commitment_id: str, svc: Svc, actor: Actor) -> Commitment:
        return svc.confirm_commitment(commitment_id, actor)

    @app.post("/v1/orgs/{org_id}/memory", status_code=201)
    def remember(org_id: str, body: MemoryBody, svc: Svc, actor: Actor) -> dict[str, str]:
        svc.remember(org_id, actor, body.ref, tuple(body.projects), body.text)
        return {"ref": body.ref}

    @app.post("/v1/orgs/{org_id}/runs", status_code=201)
    async def start_run(org_id: str, body: RunBody, svc: Svc, actor: Actor) -> RunStarted:
        return await svc.start_run(
            org_id, actor, body.agent_id, body.task, body.scripted_reply, body.client_key,
            body.hold_timeout_seconds,
        )  # fmt: skip

    @app.get("/v1/runs/{run_id}")
    async def run(run_id: str, svc: Svc, actor: Actor) -> RunView:
        return await svc.run_view(run_id, actor)

    @app.post("/v1/intents/{intent_id}/approve", status_code=202)
    async def approve(intent_id: str, body: DecisionBody, svc: Svc, actor: Actor) -> dict[str, Any]:
        return await svc.decide_hold(intent_id, actor, body.approver_id, True, body.reason)

    @app.post("/v1/intents/{intent_id}/deny", status_code=202)
    async def deny(intent_id: str, body: DecisionBody, svc: Svc, actor: Actor) -> dict[str, Any]:
        return await svc.decide_hold(intent_id, actor, body.approver_id, False, body.reason)

    @app.get("/v1/orgs/{org_id}/audit")
    def audit(org_id: str, svc: Svc, actor: Actor, verify: bool = False) -> AuditView:
        return svc.audit(org_id, actor, verify)

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return app
