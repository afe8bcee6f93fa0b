"""What a refusal says to whoever asked, on every surface (the API's answers, the
console's pages, the command line): the reason in words, at most :data:`MAX_REFUSAL`
characters, never a library's internals.

Refusals are built in many places (``NotFound(f"no graph {graph_id}")``), most of them
naming what the request sent; this is the one place they are cut to size, so an id of
5,000 characters is never repeated whole, and a pydantic error raised inside a use case
(a model the request could not build) is told as its messages, without the record it
was validating, pydantic's error codes or its documentation URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from pydantic import ValidationError

from domain.errors import Conflict, Forbidden, NotFound, StoreFailure, Unavailable


class Answer(NamedTuple):
    """How every surface answers one kind of refusal."""

    status: int
    """The HTTP status of the API's answer, and of the console page that shows it."""
    exit_code: int
    """The command line's exit code."""


REFUSALS: Mapping[type[Exception], Answer] = {
    NotFound: Answer(404, 1),
    Forbidden: Answer(403, 1),
    Conflict: Answer(409, 1),
    Unavailable: Answer(503, 1),
    StoreFailure: Answer(503, 1),
    ValueError: Answer(422, 1),
}
"""The one table from a domain error to the API's status, the console page's status and
the command line's exit code. A subclass answers as its nearest entry (``Conflict`` is a
``ValueError`` and answers 409). A refused sign-in (``Unauthenticated``, 401) has its
own handlers: the API adds its challenge header, the console its sign-in page."""


def answer_to(exc: BaseException) -> Answer | None:
    """The table's answer to ``exc``: its own class's entry, else its nearest base's."""
    for kind in type(exc).__mro__:
        if kind in REFUSALS:
            return REFUSALS[kind]
    return None


MAX_REFUSAL = 200
"""The most characters a refusal's message holds."""

LONG_WORD = 80
"""A word longer than this (an id, a value the request sent) is shortened in place, so
that what follows it in the message is still read; a SHA-256 in hex (64) stays whole."""

_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def brief(text: str, limit: int = MAX_REFUSAL) -> str:
    """``text`` with each overlong word shortened and the whole cut to ``limit``."""
    text = _WORD.sub(lambda m: f"{m.group()[: LONG_WORD - 1]}…", text)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def validation_messages(exc: ValidationError) -> str:
    """A pydantic error as its messages alone: ``valid_until: must come after…``."""
    parts = []
    for error in exc.errors(include_url=False, include_context=False, include_input=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        where = ".".join(str(part) for part in error["loc"])
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts) or "the request could not be read"


def refusal_text(exc: BaseException) -> str:
    """What the refusal ``exc`` says, as a person may be shown it."""
    if isinstance(exc, ValidationError):
        return brief(validation_messages(exc))
    return brief(str(exc))
