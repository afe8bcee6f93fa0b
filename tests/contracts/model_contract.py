"""The model provider contract: what any class satisfying
:class:`~domain.model_provider.ModelProvider` must do, whoever wrote it.

Each check takes a :class:`Harness`, which knows how to make its provider answer a
given text, fail, or not answer in time (a local server, a fixture, a script). The
shipped providers each have one (``test_model_provider_contracts.py``); a broken
provider has one too, and fails.

- **the port**: a ``name``, an ``async generate(request)``;
- **JSON mode**: the text the model wrote comes back as written (a JSON document stays
  one), and a provider that talks to a model asks it for JSON;
- **usage**: input and output tokens are reported together or not at all, never
  negative, as the model counted them;
- **who answered**: the reply names a provider and a model;
- **errors**: a call that fails raises; it never returns an empty or made-up reply.
  A request it can never answer (no fixture, no script) raises ``LookupError`` or
  ``ValueError``, which the run does not retry; a transport failure raises anything
  else, which the run retries;
- **timeouts**: a model that does not answer makes the call fail within the provider's
  timeout, not hang.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from adapters.memory.backends import problems
from domain.model_provider import ModelProvider, ModelReply, ModelRequest

JSON_REPLY = '{"summary": "ok", "actions": [{"tool": "email.send", "note": "naïve café ✓"}]}'
GRACE = 5.0
"""How much longer than its timeout a call may take to fail (a loaded machine)."""


@dataclass(frozen=True)
class Call:
    """A provider and the request to send it."""

    provider: ModelProvider
    request: ModelRequest


class Harness(Protocol):
    """What the contract needs of a provider's test double."""

    def answering(self, text: str, tokens: tuple[int, int] | None) -> Call:
        """A call the model answers with ``text`` (and counts ``tokens``, when the
        provider's model reports usage)."""
        ...

    @property
    def reports_usage(self) -> bool:
        """Whether the model behind it counts tokens (a fixture or a script does not)."""
        ...

    def asked_for_json(self) -> bool | None:
        """Whether the last call asked the model for JSON (None: no model was asked)."""
        ...

    def unanswerable(self) -> Call:
        """A call the provider can never answer (retrying cannot help)."""
        ...

    def transport_failure(self) -> Call | None:
        """A call whose model fails on the way (a server error); None: no transport."""
        ...

    def not_answering(self) -> tuple[Call, float] | None:
        """A call whose model never answers, and the provider's timeout in seconds;
        None: nothing to wait for (a local provider)."""
        ...


def ask(call: Call, timeout: float = 30.0) -> ModelReply:
    return asyncio.run(asyncio.wait_for(call.provider.generate(call.request), timeout))


def satisfies_the_port(harness: Harness) -> None:
    call = harness.answering(JSON_REPLY, None)
    assert problems(call.provider, ModelProvider) == [], problems(call.provider, ModelProvider)
    assert isinstance(call.provider.name, str) and call.provider.name


def returns_json_as_the_model_wrote_it(harness: Harness) -> None:
    reply = ask(harness.answering(JSON_REPLY, (12, 5)))
    assert reply.text == JSON_REPLY
    assert json.loads(reply.text)["actions"][0]["note"] == "naïve café ✓"
    assert harness.asked_for_json() in (True, None)


def reports_usage_as_counted(harness: Harness) -> None:
    reply = ask(harness.answering(JSON_REPLY, (12, 5)))
    pair = (reply.input_tokens, reply.output_tokens)
    if harness.reports_usage:
        assert pair == (12, 5), pair
    else:
        assert pair == (None, None), pair
    other = ask(harness.answering(JSON_REPLY, (3000, 0)))
    counted = (other.input_tokens, other.output_tokens)
    assert (None in counted) == (counted == (None, None)), "both or neither"
    assert all(n is None or n >= 0 for n in counted)
    if harness.reports_usage:
        assert counted == (3000, 0), counted


def names_who_answered(harness: Harness) -> None:
    reply = ask(harness.answering(JSON_REPLY, None))
    assert isinstance(reply.provider, str) and reply.provider
    assert isinstance(reply.model, str) and reply.model


def raises_what_it_cannot_answer(harness: Harness) -> None:
    try:
        reply = ask(harness.unanswerable())
    except (LookupError, ValueError):
        return
    raise AssertionError(f"an unanswerable request was answered: {reply!r}")


def raises_a_transport_failure_to_be_retried(harness: Harness) -> None:
    call = harness.transport_failure()
    if call is None:
        return
    try:
        reply = ask(call)
    except (LookupError, ValueError) as exc:
        raise AssertionError(f"a server error must be retried, not final: {exc!r}") from exc
    except Exception:
        return
    raise AssertionError(f"a failed call returned a reply: {reply!r}")


def gives_up_within_its_timeout(harness: Harness) -> None:
    found = harness.not_answering()
    if found is None:
        return
    call, timeout = found
    began = time.monotonic()
    try:
        reply = ask(call, timeout=timeout + GRACE)
    except Exception:
        took = time.monotonic() - began
        assert took < timeout + GRACE, f"no answer, and no timeout of its own ({timeout} s)"
        return
    raise AssertionError(f"a model that never answered gave a reply: {reply!r}")


CHECKS: tuple[Callable[[Harness], None], ...] = (
    satisfies_the_port,
    returns_json_as_the_model_wrote_it,
    reports_usage_as_counted,
    names_who_answered,
    raises_what_it_cannot_answer,
    raises_a_transport_failure_to_be_retried,
    gives_up_within_its_timeout,
)
