"""One table answers a domain error on every surface: the API's status, the console
page's status and the command line's exit code (``api.refusals.REFUSALS``)."""

from __future__ import annotations

import pytest

from api.console.pages import FORM_REFUSALS, status_of
from api.refusals import REFUSALS, answer_to
from domain.errors import (
    Conflict,
    Forbidden,
    NotFound,
    Refused,
    StoreFailure,
    Unavailable,
    UnknownOrganization,
)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NotFound("x"), 404),
        (UnknownOrganization("x"), 404),
        (Forbidden("x"), 403),
        (Conflict("x"), 409),
        (Refused("x", ()), 422),
        (ValueError("x"), 422),
        (Unavailable("x"), 503),
        (StoreFailure("x"), 503),
    ],
)
def test_a_refusal_answers_as_its_nearest_entry_in_the_table(error: Exception, status: int) -> None:
    answer = answer_to(error)
    assert answer is not None
    assert answer.status == status
    assert status_of(error) == status
    assert answer.exit_code == 1


def test_an_error_outside_the_table_has_no_answer() -> None:
    assert answer_to(KeyError("x")) is None


def test_the_api_and_the_console_answer_by_the_table() -> None:
    from api.http.app import create_app
    from tests.support import make_settings

    app = create_app(make_settings())
    assert set(REFUSALS) <= set(app.exception_handlers)
    assert set(FORM_REFUSALS) == set(REFUSALS)
