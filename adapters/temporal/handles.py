"""What the gateways of workflows with a ``state`` query share: a client or a clear
error, and a workflow's status with its state (its result once completed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowFailureError,
    WorkflowHandle,
)
from temporalio.exceptions import TemporalError
from temporalio.service import RPCError, RPCStatusCode

from domain.errors import NotFound, Unavailable

S = TypeVar("S")


def client_or_unavailable(client: Client | None) -> Client:
    """The client; :class:`Unavailable` when this process has none."""
    if client is None:
        raise Unavailable("no Temporal client: start the dev server (`verletica up`)")
    return client


async def status_and_state(
    handle: WorkflowHandle[Any, S], query: Callable[[Any], S], missing: str
) -> tuple[str, S]:
    """The workflow's status (``running``, ``completed``…) and its state: the result
    once completed, else the answer to ``query``. :class:`NotFound` (``missing``) when
    there is no such workflow."""
    try:
        status = (await handle.describe()).status or WorkflowExecutionStatus.RUNNING
        if status is WorkflowExecutionStatus.COMPLETED:
            return "completed", await handle.result()
        return status.name.lower(), await handle.query(query)
    except RPCError as exc:
        if exc.status is RPCStatusCode.NOT_FOUND:
            raise NotFound(missing) from exc
        raise Unavailable(f"Temporal: {exc.message}") from exc
    except TemporalError as exc:  # a query failed or was rejected (the workflow is stuck)
        raise Unavailable(f"Temporal could not answer: {exc}") from exc


async def final_state(handle: WorkflowHandle[Any, S]) -> S:
    """Wait for the workflow's result; a workflow that failed is :class:`Unavailable`."""
    try:
        return await handle.result()
    except WorkflowFailureError as exc:
        raise Unavailable(f"the workflow failed: {exc.cause or exc}") from exc
    except RPCError as exc:
        raise Unavailable(f"Temporal: {exc.message}") from exc
