"""Spans of our own around each step an operator wants to time: identity and charter,
memory read, model call, broker decision, tool. Attributes are identifiers, names,
counts and outcomes only; the export path drops anything else (``adapters/tracing.py``).
Without a configured provider these spans cost next to nothing (OpenTelemetry's no-op)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import trace

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
