"""Tracing: OpenTelemetry spans of Temporal's interceptor and our own, exported only
through an allowlist.

Every span passes :class:`AllowlistProcessor` before any exporter sees it: attributes
whose keys are not on :data:`ALLOWED` are dropped (on the span, its events and its
links), an error status keeps its code but loses its description, and an exception event
keeps its type but loses its message and stack trace. So prompts, documents, message
bodies and whatever an exception quotes of them never leave the process, whichever code
set them. Off by default; ``console`` or ``otlp`` by settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)
from opentelemetry.trace import Link, Status
from opentelemetry.util.types import Attributes

TracingMode = Literal["off", "console", "otlp"]

ALLOWED: frozenset[str] = frozenset(
    {
        # Temporal's TracingInterceptor
        "temporalWorkflowID",
        "temporalRunID",
        "temporalActivityID",
        "temporalUpdateID",
        # ours: identifiers, names, counts and outcomes; never text a person or a model wrote
        "verletica.org",
        "verletica.run",
        "verletica.agent",
        "verletica.charter",
        "verletica.definition",
        "verletica.intent",
        "verletica.tool",
        "verletica.stage",
        "verletica.outcome",
        "verletica.rule",
        "verletica.provider",
        "verletica.model",
        "verletica.released",
        "verletica.withheld",
        "verletica.actions",
        "verletica.duplicate",
        # exception events: the type only
        "exception.type",
    }
)
"""Attribute keys that may leave the process."""


def _allowed(attributes: Attributes) -> dict[str, object]:
    return {k: v for k, v in (attributes or {}).items() if k in ALLOWED}


def scrubbed(span: ReadableSpan) -> ReadableSpan:
    """``span`` with only allowed attributes, and no status description."""
    events = [
        Event(e.name, _allowed(e.attributes), e.timestamp)  # type: ignore[arg-type]
        for e in span.events
    ]
    links = [Link(link.context, _allowed(link.attributes)) for link in span.links]  # type: ignore[arg-type]
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=_allowed(span.attributes),  # type: ignore[arg-type]
        events=events,
        links=links,
        kind=span.kind,
        status=Status(span.status.status_code),
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


class AllowlistProcessor(SpanProcessor):
    """Hands ``inner`` (an exporting processor) each ended span, scrubbed."""

    def __init__(self, inner: SpanProcessor) -> None:
        self._inner = inner

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self._inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        self._inner.on_end(scrubbed(span))

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


def tracer_provider(
    mode: TracingMode,
    service: str,
    otlp_endpoint: str | None = None,
    exporter: SpanExporter | None = None,
) -> TracerProvider | None:
    """A tracer provider exporting through the allowlist: to ``exporter`` when given
    (tests), else to the console or an OTLP/HTTP endpoint; None when tracing is off."""
    if mode == "off" and exporter is None:
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    if exporter is not None:
        inner: SpanProcessor = SimpleSpanProcessor(exporter)
    elif mode == "console":
        inner = SimpleSpanProcessor(ConsoleSpanExporter())
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        inner = BatchSpanProcessor(
            OTLPSpanExporter(endpoint=otlp_endpoint) if otlp_endpoint else OTLPSpanExporter()
        )
    provider.add_span_processor(AllowlistProcessor(inner))
    return provider


def install(provider: TracerProvider | None) -> None:
    """Make ``provider`` the process's (once per process, as OpenTelemetry allows)."""
    if provider is not None:
        trace.set_tracer_provider(provider)


def attributes(**values: object) -> Mapping[str, object]:
    """``verletica.<name>`` attributes from keyword arguments (None values left out)."""
    return {f"verletica.{k}": v for k, v in values.items() if v is not None}
