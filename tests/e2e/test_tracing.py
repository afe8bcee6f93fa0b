"""Tracing on the real dev server: Temporal's interceptor and our own spans reach an
in-memory exporter through the allowlist, and secrets placed in a prompt, a document,
a message body and an error message never appear in any exported span."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode
from temporalio.testing import WorkflowEnvironment

from adapters.models.replay import ReplayProvider
from adapters.store.store import Store
from adapters.tracing import ALLOWED, scrubbed, tracer_provider
from domain.runs.run import RunStatus
from tests.support import TEST_KEYS, Firm, make_settings, model_reply, utc_now, wire
from usecases import memory, runs
from worker.bootstrap import build_worker
from worker.settings import Settings
from worker.temporal import make_client

pytestmark = pytest.mark.temporal

SECRETS = ("ZEBRA-PROMPT-4410", "ZEBRA-DOC-7731", "ZEBRA-BODY-9921")


class Traced:
    """A store, a tracer exporting to memory, and the use cases over a client that traces
    what it starts (as the API's does with tracing on: ``make_client(settings, tracer)``)."""

    def __init__(self, temporal: WorkflowEnvironment, store: Store, settings: Settings) -> None:
        self.temporal, self.store, self.settings = temporal, store, settings
        self.exporter = InMemorySpanExporter()
        provider = tracer_provider("off", "verletica-test", exporter=self.exporter)
        assert isinstance(provider, TracerProvider)
        self.provider = provider

    async def start(self) -> None:
        client = await make_client(self.settings, self.provider)
        self.svc = wire(self.store, client, self.settings, utc_now)
        self.firm = Firm(self.svc)


@pytest.fixture
async def traced(temporal_env: WorkflowEnvironment, sqlite_url: str) -> AsyncIterator[Traced]:
    address = temporal_env.client.service_client.config.target_host
    settings = make_settings(
        database_url=sqlite_url, model_provider="replay", temporal_address=address
    )
    store = Store.open(sqlite_url, TEST_KEYS, migrate_schema=False)
    found = Traced(temporal_env, store, settings)
    await found.start()
    yield found
    store.close()


def _exported(span: ReadableSpan) -> str:
    return str(span.to_json())


async def test_no_secret_leaves_in_a_span_while_the_allowed_attributes_do(
    traced: Traced,
) -> None:
    svc, firm = traced.svc, traced.firm
    memory.remember(
        svc,
        firm.org,
        firm.founder,
        memory.Remember(
            "atlas-code", ("east",), f"Atlas kickoff notes; the data-room code is {SECRETS[1]}."
        ),
    )
    task = f"Send the Atlas client the kickoff agenda, quoting {SECRETS[0]}."
    reply = model_reply(
        {
            "tool": "email.send",
            "projects": ["east"],
            "payload": {"to": "cfo@atlas.example", "subject": "Kickoff", "body": SECRETS[2]},
            "cost_cents": 0,
            "justification": f"asked in {SECRETS[0]}",
            "references": ["atlas-code"],
        }
    )
    async with build_worker(
        traced.temporal.client, svc.settings, traced.store, model=ReplayProvider(),
        tracer=traced.provider,
    ):  # fmt: skip
        done = await runs.start_run(
            svc,
            firm.org,
            firm.founder,
            runs.StartRun(firm.agents["orion"], task, scripted_reply=reply),
        )
        final = await asyncio.wait_for(runs.wait_run(svc, done.run_id, firm.founder), 60)
        assert final.status is RunStatus.COMPLETED and final.intents[0].dispatch is not None
        # No fixture, no reply: the model "fails", and its error message quotes the task.
        missed = await runs.start_run(
            svc, firm.org, firm.founder, runs.StartRun(firm.agents["orion"], task)
        )
        failed = await asyncio.wait_for(runs.wait_run(svc, missed.run_id, firm.founder), 60)
        assert failed.status is RunStatus.FAILED and SECRETS[0] in (failed.error or "")
    traced.provider.force_flush()
    spans = traced.exporter.get_finished_spans()

    everything = "\n".join(_exported(s) for s in spans)
    for secret in SECRETS:
        assert secret not in everything, secret
    names = {s.name for s in spans}
    assert {"identity & charter", "memory read", "model call", "broker decide", "tool"} <= names
    assert any(n.startswith("RunWorkflow:AgentRunWorkflow") for n in names), names
    assert any(n.startswith("RunActivity:reasoning") for n in names), names
    decide = next(s for s in spans if s.name == "broker decide")
    attributes = dict(decide.attributes or {})
    assert attributes["verletica.tool"] == "email.send"
    assert attributes["verletica.outcome"] == "allow"
    assert attributes["verletica.run"] == done.run_id
    read = next(s for s in spans if s.name == "memory read" and s.attributes)
    # Orion (East) recalls East's two records; West's is withheld: counts, no content.
    recalled = dict(read.attributes or {})
    assert (recalled["verletica.released"], recalled["verletica.withheld"]) == (2, 1)
    for s in spans:
        assert set(s.attributes or {}) <= ALLOWED, s.attributes
        for event in s.events:
            assert set(event.attributes or {}) <= ALLOWED
    failed_calls = [s for s in spans if s.name == "model call" and s.events]
    assert failed_calls and all({e.name for e in s.events} == {"exception"} for s in failed_calls)
    _assert_nested(spans, done.run_id)


def _chain(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[str]:
    """The names from ``span`` up to its trace's root, through each parent exported."""
    names = [span.name]
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def _root(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> int:
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
    return span.context.span_id


def _assert_nested(spans: Sequence[ReadableSpan], run_id: str) -> None:
    """Issue 26.7: each step of the run nests under the activity that ran it, and that
    under the run's workflow, across the workflow/activity boundary (the interceptor's
    headers carry the context); the run's spans are one trace; identity, model and tool
    spans say which agent, charter version and definition acted."""
    mine = [s for s in spans if (s.attributes or {}).get("verletica.run") == run_id]
    by_id = {s.context.span_id: s for s in spans}
    wanted = {
        "identity & charter": "resolve_and_recall",
        "memory read": "resolve_and_recall",
        "model call": "reasoning",
        "broker decide": "broker_decide",
        "tool": "dispatch",
    }
    for name, step in wanted.items():
        (own,) = [s for s in mine if s.name == name]
        chain = _chain(own, by_id)
        # the run (the start that made it) > the step > the activity that ran it > ours
        assert chain[1:] == [
            f"RunActivity:{step}",
            f"StartActivity:{step}",
            "StartWorkflow:AgentRunWorkflow",
        ], (name, chain)
    (root,) = {by_id[_root(s, by_id)] for s in mine}
    assert root.name == "StartWorkflow:AgentRunWorkflow" and root.parent is None
    ran = [s for s in spans if s.name == "RunWorkflow:AgentRunWorkflow" and s.parent is not None]
    assert any(s.parent.span_id == root.context.span_id for s in ran if s.parent)
    assert {s.context.trace_id for s in mine} == {root.context.trace_id}, "one run, one trace"
    identity = dict(next(s for s in mine if s.name == "identity & charter").attributes or {})
    model = dict(next(s for s in mine if s.name == "model call").attributes or {})
    tool = dict(next(s for s in mine if s.name == "tool").attributes or {})
    assert identity["verletica.charter"] >= 1 and identity["verletica.definition"] >= 1
    assert (model["verletica.charter"], model["verletica.definition"]) == (
        identity["verletica.charter"],
        identity["verletica.definition"],
    )
    assert model["verletica.provider"] == "given" and model["verletica.agent"]  # a scripted reply
    assert tool["verletica.agent"] == model["verletica.agent"] == identity["verletica.agent"]
    assert tool["verletica.tool"] == "email.send"


def test_the_allowlist_drops_every_other_attribute_and_what_an_error_says() -> None:
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span(
        "s", attributes={"verletica.tool": "email.send", "prompt": "ZEBRA", "body": "ZEBRA"}
    ) as span:
        span.add_event("note", {"text": "ZEBRA", "verletica.rule": "r"})
        span.record_exception(ValueError("ZEBRA in the message"))
        span.set_status(Status(StatusCode.ERROR, "ZEBRA in the description"))
    (raw,) = [s for s in [span] if isinstance(s, ReadableSpan)]
    clean = scrubbed(raw)
    exporter.export([clean])
    text = json.dumps(json.loads(clean.to_json()))
    assert "ZEBRA" not in text
    assert dict(clean.attributes or {}) == {"verletica.tool": "email.send"}
    assert [dict(e.attributes or {}) for e in clean.events] == [
        {"verletica.rule": "r"},
        {"exception.type": "ValueError"},
    ]
    assert clean.status.status_code is StatusCode.ERROR and clean.status.description is None


def test_the_otlp_exporter_sends_only_scrubbed_spans_to_a_collector() -> None:
    """``VERLETICA_TRACING=otlp``: spans reach a local OTLP/HTTP collector, scrubbed."""
    received: list[tuple[str, str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((self.path, self.headers.get("Content-Type", ""), body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1/traces"
        provider = tracer_provider("otlp", "verletica-test", otlp_endpoint=url)
        assert isinstance(provider, TracerProvider)
        tracer = provider.get_tracer("t")
        with tracer.start_as_current_span(
            "model call", attributes={"verletica.tool": "email.send", "prompt": "ZEBRA-OTLP-1"}
        ):
            pass
        assert provider.force_flush()
        provider.shutdown()
    finally:
        server.shutdown()
        server.server_close()
    (path, kind, body) = received[0]
    assert (path, kind) == ("/v1/traces", "application/x-protobuf")
    assert b"verletica.tool" in body and b"email.send" in body
    assert b"ZEBRA-OTLP-1" not in body and b"prompt" not in body
