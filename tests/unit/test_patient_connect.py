"""Waiting for a Temporal server that does not answer yet, and only for that."""

from __future__ import annotations

import pytest
from temporalio.service import RPCError, RPCStatusCode

from domain.errors import Unavailable
from tests.support import make_settings
from worker.temporal import patiently, unanswered

REFUSED = RuntimeError("Failed client connect: Server connection error: tcp connect error")


class Flaky:
    """Fails with ``errors`` in turn, then answers."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "answered"


async def test_waits_while_the_server_does_not_answer() -> None:
    call = Flaky(REFUSED, RPCError("down", RPCStatusCode.UNAVAILABLE, b""), REFUSED)
    assert await patiently(make_settings(), "connect", call) == "answered"
    assert call.calls == 4


@pytest.mark.parametrize(
    "error",
    [
        RPCError("bad key", RPCStatusCode.UNAUTHENTICATED, b""),
        RPCError("no such namespace", RPCStatusCode.NOT_FOUND, b""),
        ValueError("a bug"),
    ],
)
async def test_an_answer_that_says_no_is_raised_at_once(error: BaseException) -> None:
    call = Flaky(error)
    with pytest.raises(type(error)):
        await patiently(make_settings(), "connect", call)
    assert call.calls == 1


async def test_gives_up_after_the_wait_with_what_to_do() -> None:
    settings = make_settings(temporal_connect_wait_seconds=0.6)
    call = Flaky(*[REFUSED] * 100)
    with pytest.raises(Unavailable) as caught:
        await patiently(settings, "schedules", call)
    assert 2 <= call.calls < 10
    said = str(caught.value)
    assert f"Temporal at {settings.temporal_address} did not answer (schedules)" in said
    assert "VERLETICA_TEMPORAL_ADDRESS" in said


def test_what_counts_as_no_answer() -> None:
    assert unanswered(REFUSED)
    assert unanswered(RPCError("x", RPCStatusCode.UNAVAILABLE, b""))
    assert not unanswered(RPCError("x", RPCStatusCode.PERMISSION_DENIED, b""))
    assert not unanswered(RuntimeError("something else broke"))
