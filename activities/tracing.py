"""Spans of our own around each step an operator wants to time: identity and charter,
memory read, model call, broker decision, tool. Attributes are identifiers, names,
counts and outcomes only; the export path drops anything else (``adapters/tracing.py``).
Without a configured provider these spans cost next to nothing (OpenTelemetry's no-op)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace

from domain.fleet.registry import AgentPin

_provider: trace.TracerProvider | None = None


def use(provider: trace.TracerProvider | None) -> None:
    """Trace this process's activities through ``provider`` (None: the global one)."""
    global _provider
    _provider = provider


@contextmanager
def span(name: str, **values: object) -> Iterator[trace.Span]:
    """A span named ``name`` with ``verletica.<key>`` attributes (None values left out)."""
    tracer = trace.get_tracer("verletica", tracer_provider=_provider)
    attributes = {f"verletica.{k}": v for k, v in values.items() if v is not None}
    with tracer.start_as_current_span(name, attributes=attributes) as current:  # type: ignore[arg-type]
        yield current


def pinned(pin: AgentPin | None) -> dict[str, int]:
    """The charter version and the definition it pins, as span values (none when the run
    has no pin: one resolved before pins)."""
    return {} if pin is None else {"charter": pin.version, "definition": pin.definition}
